/**
 * The dashboard's explorer over the project's chains: blocks with their
 * transactions, a page of transactions, one transaction with its logs and
 * what it carried (user operation, x402 payment), and one address — what it
 * is in the project, its balances and its latest transactions.
 */
import { decodeEventLog, getAddress, parseAbi } from "viem";
import { blockTimestampOf } from "../chain/blocks.js";
import { ledgerTxs } from "../chain/evm/ledger.js";
import { forEachBalance } from "../chain/balances.js";
import { headBlock } from "../chain/mining.js";
import { EVM_NETWORKS } from "../chain/networks.js";
import { solanaTxs } from "../chain/solana/ledger.js";
import { SOLANA_TOKENS } from "../chain/solana/tokens.js";
import { EVM_TOKENS } from "../chain/tokens.js";
import { endUsers } from "../wallet/records/endUsers.js";
import { evmAccounts } from "../wallet/records/evmAccounts.js";
import { smartAccounts } from "../wallet/evm-smart-accounts/accounts.js";
import { hasSandboxCode } from "../products/sandboxContracts.js";
import { solanaAccounts } from "../wallet/records/solanaAccounts.js";
import { settlements } from "../products/x402/model.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectTx } from "../store/store.js";
import { type AnyTx, allTransactions, blockOf, involves, networkOf, summarize, userOperationIn } from "./explorer.js";
import { balanceView } from "./holdings.js";
import { integerOf, pageOf, textOf } from "./paging.js";
import { type AdminHandler, callerProject } from "./types.js";

const KNOWN_NETWORKS = new Set([...Object.keys(EVM_NETWORKS), ...Object.keys(SOLANA_TOKENS)]);
const ERC20_EVENTS = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
]);
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
/** How many transactions an address page lists. */
const ADDRESS_TRANSACTIONS = 50;

/** Every network with a transaction of the project, with its head and its number of transactions (counted without copying any). */
export function chainsOf(tx: ProjectTx, nowMs: number) {
  const counts = new Map<string, number>();
  const count = (t: { network: string }) => {
    counts.set(t.network, (counts.get(t.network) ?? 0) + 1);
    return false;
  };
  ledgerTxs(tx).filter(count);
  solanaTxs(tx).filter(count);
  return [...counts]
    .map(([network, transactions]) => ({ network, head: headBlock(tx, network, nowMs), transactions }))
    .sort((a, b) => a.network.localeCompare(b.network));
}

export const listSandboxBlocks: AdminHandler<"listSandboxBlocks"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const asked = textOf(call.query.network);
  if (asked !== undefined && !KNOWN_NETWORKS.has(asked)) throw apiError("invalid_request", `network must be one of ${[...KNOWN_NETWORKS].join(", ")}.`);
  const everything = allTransactions(tx);
  const network = asked ?? (everything[0] ? networkOf(everything[0]) : "base-sepolia");
  const before = integerOf(call.query.before);
  const { limit } = pageOf(call.query);
  const blocks: Array<{ number: number; timestamp: string; transactions: ReturnType<typeof summarize>[] }> = [];
  for (const t of everything) {
    if (networkOf(t) !== network || (before !== undefined && blockOf(t) >= before)) continue;
    let last = blocks.at(-1);
    if (last?.number !== blockOf(t)) {
      if (blocks.length === limit) break;
      last = { number: blockOf(t), timestamp: new Date(blockTimestampOf(network, blockOf(t))).toISOString(), transactions: [] };
      blocks.push(last);
    }
    last.transactions.push(summarize(tx, t));
  }
  const now = ctx.clock.now();
  return { status: 200, body: { network, head: headBlock(tx, network, now), networks: chainsOf(tx, now), blocks } };
};

export const listSandboxTransactions: AdminHandler<"listSandboxTransactions"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const address = textOf(call.query.address);
  const { offset, limit } = pageOf(call.query);
  const matching = allTransactions(tx, textOf(call.query.network)).filter((t) => address === undefined || involves(t, address));
  return { status: 200, body: { total: matching.length, offset, items: matching.slice(offset, offset + limit).map((t) => summarize(tx, t)) } };
};

export const getSandboxTransaction: AdminHandler<"getSandboxTransaction"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const { hash } = call.pathParams;
  // Both ledgers are keyed by the transaction's id: EVM hashes as written (lowercase), Solana signatures exactly.
  const evm = ledgerTxs(tx).get(hash.toLowerCase()) ?? ledgerTxs(tx).get(hash);
  const solana = evm ? undefined : solanaTxs(tx).get(hash);
  const found: AnyTx | undefined = evm ? { evm, atMs: evm.submittedAtMs } : solana ? { solana, atMs: solana.submittedAtMs } : undefined;
  if (!found) throw apiError("not_found", `Transaction ${hash} is not on the project's chains.`);
  const summary = summarize(tx, found);
  if (!("evm" in found)) return { status: 200, body: summary };
  const t = found.evm;
  const operation = userOperationIn(tx, t.hash);
  const x402 = settlements(tx).get(t.hash);
  return {
    status: 200,
    body: {
      ...summary,
      nonce: t.nonce,
      gas: t.gas,
      gasUsed: t.gasUsed,
      gasPrice: t.gasPrice,
      fee: (BigInt(t.gasUsed) * BigInt(t.gasPrice)).toString(),
      input: t.input,
      logs: t.logs.map((l) => {
        let decoded: { event?: string; args?: Record<string, string> } = {};
        try {
          const d = decodeEventLog({ abi: ERC20_EVENTS, topics: l.topics as [`0x${string}`, ...`0x${string}`[]], data: l.data });
          decoded = { event: d.eventName, args: Object.fromEntries(Object.entries(d.args).map(([k, v]) => [k, String(v)])) };
        } catch {
          // Not an ERC-20 event: shown raw.
        }
        return { logIndex: l.logIndex, address: l.address, topics: l.topics, data: l.data, ...decoded };
      }),
      ...(operation
        ? {
            userOperation: {
              userOpHash: operation.userOpHash,
              smartAccount: operation.smartAccount,
              status: t.status,
              ...(operation.calls ? { calls: operation.calls } : {}),
            },
          }
        : {}),
      ...(x402
        ? {
            x402: { payer: x402.payer, payTo: x402.payTo, asset: x402.asset, amount: x402.amount, ...(x402.resourceKey ? { resource: x402.resourceKey } : {}) },
          }
        : {}),
    },
  };
};

/** What an address is in the project, in words. */
function labelsOf(tx: ProjectTx, address: string): string[] {
  const labels: string[] = [];
  const a = address.toLowerCase();
  const named = (what: string, r: { name?: string }) => labels.push(r.name ? `${what} '${r.name}'` : what);
  // Accounts are keyed by address (EVM lowercase), end users indexed by each of their accounts' addresses.
  const evm = evmAccounts(tx).get(a);
  if (evm) named("EVM account", evm);
  const smart = smartAccounts(tx).get(a);
  if (smart) named("Smart account", smart);
  const sol = solanaAccounts(tx).get(address);
  if (sol) named("Solana account", sol);
  const user = endUsers(tx).findBy("account", address.startsWith("0x") ? a : address);
  if (user) labels.push(`Account of end user ${user.userId}`);
  for (const [network, tokens] of Object.entries(EVM_TOKENS)) {
    const token = tokens.find((t) => t.address.toLowerCase() === a);
    if (token) labels.push(`${token.symbol} on ${network}`);
  }
  for (const [network, tokens] of Object.entries(SOLANA_TOKENS)) {
    const token = tokens.find((t) => t.mint === address);
    if (token) labels.push(`${token.symbol} on ${network}`);
  }
  if (address.startsWith("0x") && hasSandboxCode(address)) labels.push("Sandbox contract");
  return labels;
}

export const getSandboxAddress: AdminHandler<"getSandboxAddress"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const given = call.pathParams.address;
  if (!EVM_ADDRESS.test(given) && !SOLANA_ADDRESS.test(given)) throw apiError("not_found", `${given} is not an EVM (0x…) or Solana (base-58) address.`);
  const address = given.startsWith("0x") ? getAddress(given) : given;
  const key = address.startsWith("0x") ? address.toLowerCase() : address;
  const balances: ReturnType<typeof balanceView>[] = [];
  forEachBalance(tx, (b) => {
    if (b.holder === key && b.amount !== "0") balances.push(balanceView(b.network, b.asset, BigInt(b.amount)));
  });
  const mine = allTransactions(tx).filter((t) => involves(t, address));
  return {
    status: 200,
    body: {
      address,
      labels: labelsOf(tx, address),
      balances: balances.sort((x, y) => x.network.localeCompare(y.network) || x.token.localeCompare(y.token)),
      transactions: mine.slice(0, ADDRESS_TRANSACTIONS).map((t) => summarize(tx, t)),
      totalTransactions: mine.length,
    },
  };
};
