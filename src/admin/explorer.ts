/**
 * How the dashboard's explorer reads the project's chains: every ledger
 * transaction (EVM and Solana) decoded into one line — a native or token
 * transfer, an approval, a swap through the sandbox's settler, a user
 * operation the bundler carried, an x402 settlement — with its token
 * movements read from its Transfer logs.
 */
import { formatUnits, getAddress, type Hex } from "viem";
import { ledgerTxs, type LedgerTx, TRANSFER_TOPIC } from "../chain/evm/ledger.js";
import { solanaTxs, type SolanaLedgerTx } from "../chain/solana/ledger.js";
import { erc20ByAddress, nativeTokenOf } from "../chain/tokens.js";
import type { components } from "../contract/generated/admin-types.js";
import { BUNDLED } from "../wallet/evm-smart-accounts/entryPoint.js";
import { USER_OPERATIONS } from "../wallet/evm-smart-accounts/userOperations.js";
import { COMMERCE_TRANSFERS_ADDRESS } from "../products/shared/charges/transfers.js";
import { SWAP_SETTLER_ADDRESS } from "../products/swaps/settler.js";
import { settlements } from "../products/x402/model.js";
import type { ProjectTx } from "../store/store.js";

export type ChainTransaction = components["schemas"]["ChainTransaction"];

const APPROVE_SELECTOR = "0x095ea7b3";
const TRANSFER_SELECTORS = new Set(["0xa9059cbb", "0x23b872dd"]);

/** One transaction of either ledger, with what sorting and filtering need. */
export type AnyTx = { evm: LedgerTx; atMs: number } | { solana: SolanaLedgerTx; atMs: number };

const short = (a: string) => (a.length > 14 ? `${a.slice(0, 8)}…${a.slice(-4)}` : a);
const topicAddress = (topic: Hex | undefined) => (topic ? getAddress(`0x${topic.slice(-40)}`) : undefined);

/** Every transaction of the project, newest first (by block, then by submission). */
export function allTransactions(tx: ProjectTx, network?: string): AnyTx[] {
  const all: AnyTx[] = [];
  for (const t of ledgerTxs(tx).filter((t) => network === undefined || t.network === network)) all.push({ evm: t, atMs: t.submittedAtMs });
  for (const t of solanaTxs(tx).filter((t) => network === undefined || t.network === network)) all.push({ solana: t, atMs: t.submittedAtMs });
  return all.sort((a, b) => blockOf(b) - blockOf(a) || b.atMs - a.atMs);
}

export const blockOf = (t: AnyTx) => ("evm" in t ? t.evm.block : t.solana.slot);
export const networkOf = (t: AnyTx) => ("evm" in t ? t.evm.network : t.solana.network);

function tokenTransfers(t: LedgerTx): NonNullable<ChainTransaction["tokenTransfers"]> {
  return t.logs
    .filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3)
    .map((l) => {
      const token = erc20ByAddress(t.network, l.address);
      const amount = BigInt(l.data === "0x" ? 0 : l.data);
      return {
        token: token?.symbol ?? getAddress(l.address),
        address: getAddress(l.address),
        from: topicAddress(l.topics[1])!,
        to: topicAddress(l.topics[2])!,
        amount: amount.toString(),
        formatted: formatUnits(amount, token?.decimals ?? 0),
      };
    });
}

/** Whether the transaction concerns `address`: sent it, received it, or moved its tokens. */
export function involves(t: AnyTx, address: string): boolean {
  if ("solana" in t) {
    // A transaction the runtime ran names its accounts (a faucet payout's recipient is not its fee payer).
    const run = t.solana.execution;
    return (
      t.solana.feePayer === address || (run !== undefined && (run.accountKeys.includes(address) || run.postTokenBalances.some((b) => b.owner === address)))
    );
  }
  const a = address.toLowerCase();
  if (t.evm.from.toLowerCase() === a || t.evm.to?.toLowerCase() === a) return true;
  return t.evm.logs.some(
    (l) => l.topics[0] === TRANSFER_TOPIC && (topicAddress(l.topics[1])?.toLowerCase() === a || topicAddress(l.topics[2])?.toLowerCase() === a),
  );
}

/** A user operation a transaction carried: sent through the platform API or through the bundler (JSON-RPC). */
interface CarriedOperation {
  userOpHash: string;
  smartAccount: string;
  calls?: Array<Record<string, unknown>>;
}

/** The user operations of a project by the hash of the transaction that carried them, read once per transaction of the store. */
const carriedBy = new WeakMap<ProjectTx, Map<string, CarriedOperation>>();

export function userOperationIn(tx: ProjectTx, hash: string): CarriedOperation | undefined {
  let byHash = carriedBy.get(tx);
  if (!byHash) {
    const map = new Map<string, CarriedOperation>();
    tx.collection(BUNDLED).filter((b) => {
      map.set(b.transactionHash.toLowerCase(), { userOpHash: b.userOpHash, smartAccount: getAddress(b.sender) });
      return false;
    });
    tx.collection(USER_OPERATIONS).filter((o) => {
      if (o.transactionHash) {
        const calls = o.calls as unknown as Array<Record<string, unknown>>;
        map.set(o.transactionHash.toLowerCase(), { userOpHash: o.userOpHash, smartAccount: getAddress(o.smartAccount), calls });
      }
      return false;
    });
    byHash = map;
    carriedBy.set(tx, map);
  }
  return byHash.get(hash.toLowerCase());
}

function evmSummary(tx: ProjectTx, t: LedgerTx): ChainTransaction {
  const native = nativeTokenOf(t.network);
  const moves = tokenTransfers(t);
  const userOp = userOperationIn(tx, t.hash);
  const x402 = settlements(tx).get(t.hash);
  const selector = t.input.slice(0, 10).toLowerCase();
  let kind: ChainTransaction["kind"];
  let summary: string;
  if (userOp) {
    kind = "user-operation";
    summary = `User operation of ${short(userOp.smartAccount)}${moves.length ? `: ${moves.map((m) => `${m.formatted} ${m.token} to ${short(m.to)}`).join(", ")}` : ""}`;
  } else if (x402) {
    kind = "x402-settlement";
    summary = `x402 payment of ${moves[0] ? `${moves[0].formatted} ${moves[0].token}` : x402.amount} from ${short(x402.payer)} to ${short(x402.payTo)}`;
  } else if (t.to?.toLowerCase() === SWAP_SETTLER_ADDRESS.toLowerCase()) {
    kind = "swap";
    // What the taker gave: a token it sent, or the native coin the transaction carried (a sale of ETH has no log).
    const sent = moves.find((m) => m.from.toLowerCase() === t.from.toLowerCase());
    const out = sent ?? (BigInt(t.value) > 0n ? { formatted: formatUnits(BigInt(t.value), native.decimals), token: native.symbol } : undefined);
    const back = moves.find((m) => m.to.toLowerCase() === t.from.toLowerCase());
    summary = out && back ? `Swapped ${out.formatted} ${out.token} for ${back.formatted} ${back.token}` : "Swap";
  } else if (t.to === null) {
    kind = "contract-creation";
    summary = "Contract creation";
  } else if (selector === APPROVE_SELECTOR) {
    kind = "approval";
    summary = `Approval on ${erc20ByAddress(t.network, t.to)?.symbol ?? short(t.to)}`;
  } else if (TRANSFER_SELECTORS.has(selector) && moves.length > 0) {
    kind = "token-transfer";
    summary = moves.map((m) => `Sent ${m.formatted} ${m.token} to ${m.to}`).join(", ");
  } else if (t.input === "0x" || t.input === "0x0") {
    kind = "native-transfer";
    summary = `Sent ${formatUnits(BigInt(t.value), native.decimals)} ${native.symbol} to ${getAddress(t.to)}`;
  } else if (t.to.toLowerCase() === COMMERCE_TRANSFERS_ADDRESS.toLowerCase()) {
    kind = "contract-call";
    // A checkout's payment: the first Transfer is the recipient's share, the second the fee.
    summary = moves[0] ? `Checkout payment of ${moves[0].formatted} ${moves[0].token} to ${short(moves[0].to)}` : "Checkout payment";
  } else {
    kind = "contract-call";
    summary = `Call to ${short(t.to)}${moves.length ? `: ${moves.map((m) => `${m.formatted} ${m.token}`).join(", ")}` : ""}`;
  }
  if (t.status === "reverted") summary = `Reverted: ${summary}`;
  return {
    hash: t.hash,
    network: t.network,
    block: t.block,
    timestamp: new Date(t.submittedAtMs).toISOString(),
    from: getAddress(t.from),
    ...(t.to ? { to: getAddress(t.to) } : {}),
    status: t.status,
    kind,
    summary,
    value: t.value,
    ...(t.revertReason ? { revertReason: t.revertReason } : {}),
    ...(userOp ? { userOpHash: userOp.userOpHash } : {}),
    ...(moves.length ? { tokenTransfers: moves } : {}),
  };
}

function solanaSummary(t: SolanaLedgerTx): ChainTransaction {
  return {
    hash: t.signature,
    network: t.network,
    block: t.slot,
    timestamp: new Date(t.submittedAtMs).toISOString(),
    from: t.feePayer,
    status: t.status,
    kind: "solana",
    summary: `${t.status === "failed" ? "Failed: " : ""}Solana transaction paid by ${short(t.feePayer)}`,
  };
}

export const summarize = (tx: ProjectTx, t: AnyTx): ChainTransaction => ("evm" in t ? evmSummary(tx, t.evm) : solanaSummary(t.solana));
