/**
 * The EVM ledger of a project: native and ERC-20 balances per network,
 * allowances, and the transactions applied to them with their receipts and
 * Transfer/Approval logs. Everything lives in the project's store, so it is
 * isolated per project, all-or-nothing per request, and kept with `--data`.
 *
 * Gas: every transaction burns gasUsed × GAS_PRICE_WEI from the sender
 * (a Base-like 0.001 gwei), so balances are conserved up to burnt fees.
 */
import { decodeFunctionData, encodeAbiParameters, erc20Abi, keccak256, pad, toHex, type Hex } from "viem";
import type { Clock } from "../../clock.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { inclusionBlock } from "../mining.js";
import { erc20ByAddress } from "../tokens.js";
import { assetKey, creditEvm, evmBalanceOf, NATIVE, setEvmBalance } from "./balances.js";
import { declareCollection } from "../../store/collections.js";

export const GAS_PRICE_WEI = 1_000_000n;
export const TRANSFER_TOPIC = keccak256(toHex("Transfer(address,address,uint256)"));
export const APPROVAL_TOPIC = keccak256(toHex("Approval(address,address,uint256)"));

/** The token calls the ledger applies itself; any other call to a token reverts. */
const APPLIED_TOKEN_CALLS: ReadonlySet<string> = new Set(["transfer", "transferFrom", "approve"]);

export interface LedgerLog {
  address: `0x${string}`;
  topics: Hex[];
  data: Hex;
  logIndex: number;
}

export interface LedgerTx {
  hash: Hex;
  network: string;
  chainId: number;
  from: `0x${string}`;
  to: `0x${string}` | null;
  value: string;
  input: Hex;
  nonce: number;
  gas: string;
  gasUsed: string;
  gasPrice: string;
  type: string;
  block: number;
  status: "success" | "reverted";
  /** Why it reverted, when a contract of the sandbox says (the swap settler does). */
  revertReason?: string;
  /** What a reverted bytecode transaction returned (its `Error(string)` or custom error), as the receipt reports it. */
  revertData?: Hex;
  /** The contract a creation deployed. */
  contractAddress?: `0x${string}`;
  logs: LedgerLog[];
  submittedAtMs: number;
}

const LEDGER_TXS = declareCollection<LedgerTx>("ledgerTxs");
const LEDGER_ALLOWANCES = declareCollection<{ amount: string }>("ledgerAllowances");
/** A token's EIP-2612 `nonces(owner)`: the next permit nonce, kept once a permit has been executed. */
const LEDGER_PERMIT_NONCES = declareCollection<{ next: string }>("ledgerPermitNonces");

export const ledgerTxs = (store: ProjectTx) => store.collection(LEDGER_TXS);
const allowances = (store: ProjectTx) => store.collection(LEDGER_ALLOWANCES);

const topicAddress = (a: string) => pad(a.toLowerCase() as Hex, { size: 32 });

/** The ERC-20 `Transfer(from, to, value)` log of a token move, at `logIndex` of its transaction. */
export function transferLog(token: `0x${string}`, from: string, to: string, amount: bigint, logIndex: number): LedgerLog {
  return {
    address: token,
    topics: [TRANSFER_TOPIC, topicAddress(from), topicAddress(to)],
    data: encodeAbiParameters([{ type: "uint256" }], [amount]),
    logIndex,
  };
}

/**
 * Moves `amount` of `asset` (a token's address, or the native token) between two holders and appends the token's
 * Transfer log to `logs` (none for the native token): the one ledger operation behind every token move of the
 * modelled contracts, so a balance and its log never disagree. The caller has checked the balance: a shortfall
 * is a sandbox defect, and throws without changing anything.
 */
export function moveToken(store: ProjectTx, network: string, asset: string, from: string, to: string, amount: bigint, logs: LedgerLog[]): void {
  const held = evmBalanceOf(store, network, asset, from);
  if (held < amount) throw new Error(`moveToken: ${from} holds ${held} of ${asset} on ${network}, not ${amount}`);
  setEvmBalance(store, network, asset, from, held - amount);
  creditEvm(store, network, asset, to, amount);
  if (assetKey(asset) !== NATIVE) logs.push(transferLog(asset as `0x${string}`, from, to, amount, logs.length));
}

export interface EvmTransactionInput {
  hash: Hex;
  network: string;
  chainId: number;
  from: `0x${string}`;
  to: `0x${string}` | null;
  value: bigint;
  input: Hex;
  nonce: number;
  gas: bigint;
  type: string;
  /** Gas paid by a paymaster (user operations): the sender pays none. */
  sponsored?: boolean;
  /** The block it is included in, when the caller mined one for several transactions (a user operation's calls). */
  block?: number;
  /** A call a contract makes (a smart wallet's batch): it does not use or move the sender's nonce. */
  internal?: boolean;
}

/** What a contract's call did: it succeeded, or it reverted (and changed nothing) for the reason given. */
export interface ContractCallResult {
  status: "success" | "reverted";
  revertReason?: string;
}

/**
 * A contract the simulated chain executes beyond ERC-20 tokens (the swap
 * settler, the SpendPermissionManager). They hold domain logic, so they live
 * with their domains; whoever applies a transaction passes the table in.
 * A contract checks everything before changing anything, and says why it reverts.
 */
export interface SandboxContract {
  address: `0x${string}`;
  /** Gas one call burns. */
  gasUsed: bigint;
  call(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): ContractCallResult;
}

/**
 * Applies a signed transaction. A sender who cannot pay value + fee is refused
 * before inclusion (400 insufficient_balance, nothing changes); a token call
 * that fails (balance, allowance) is included and reverts, and its fee is spent.
 */
export function applyEvmTransaction(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, contracts: readonly SandboxContract[]): LedgerTx {
  const token = tx.to ? erc20ByAddress(tx.network, tx.to) : undefined;
  const isTokenCall = token !== undefined && tx.input !== "0x";
  const to = tx.to?.toLowerCase();
  const contract = to === undefined ? undefined : contracts.find((c) => c.address.toLowerCase() === to);
  const gasUsed = contract ? contract.gasUsed : isTokenCall ? 52_000n : tx.input && tx.input !== "0x" ? 60_000n : 21_000n;
  const fee = tx.sponsored ? 0n : gasUsed * GAS_PRICE_WEI;
  const native = evmBalanceOf(store, tx.network, NATIVE, tx.from);
  if (native < tx.value + fee) {
    throw apiError(
      "insufficient_balance",
      `${tx.from} has ${native} wei on ${tx.network}; this transaction needs ${tx.value + fee} (value ${tx.value} + gas ${fee}).`,
    );
  }
  setEvmBalance(store, tx.network, NATIVE, tx.from, native - fee);
  let status: LedgerTx["status"] = "success";
  let revertReason: string | undefined;
  const logs: LedgerLog[] = [];
  if (contract) {
    // A sandbox contract moves any value itself, and only if its call succeeds.
    ({ status, revertReason } = contract.call(store, clock, tx, logs));
  } else if (tx.value > 0n) {
    setEvmBalance(store, tx.network, NATIVE, tx.from, evmBalanceOf(store, tx.network, NATIVE, tx.from) - tx.value);
    if (tx.to) creditEvm(store, tx.network, NATIVE, tx.to, tx.value);
  }
  if (isTokenCall) status = applyTokenCall(store, tx, token!.address, logs) ? "success" : "reverted";
  const record = ledgerRecord(clock, tx, tx.block ?? inclusionBlock(store, clock, tx.network), {
    gasUsed,
    status,
    ...(revertReason ? { revertReason } : {}),
    logs,
  });
  ledgerTxs(store).put(record.hash, record);
  return record;
}

/** What a transaction's record holds besides the transaction itself: how its run went. */
export type LedgerOutcome = Pick<LedgerTx, "status" | "revertReason" | "revertData" | "contractAddress" | "logs"> & { gasUsed: bigint };

/** The ledger's record of `tx`, included in `block`, with how it ran; submitted now. */
export function ledgerRecord(clock: Clock, tx: EvmTransactionInput, block: number, outcome: LedgerOutcome): LedgerTx {
  const { gasUsed, logs, ...how } = outcome;
  return {
    hash: tx.hash,
    network: tx.network,
    chainId: tx.chainId,
    from: tx.from,
    to: tx.to,
    value: tx.value.toString(),
    input: tx.input,
    nonce: tx.nonce,
    gas: tx.gas.toString(),
    gasUsed: gasUsed.toString(),
    gasPrice: GAS_PRICE_WEI.toString(),
    type: tx.type,
    block,
    ...how,
    logs,
    submittedAtMs: clock.now(),
  };
}

function applyTokenCall(store: ProjectTx, tx: EvmTransactionInput, contract: `0x${string}`, logs: LedgerLog[]): boolean {
  let call: { functionName: string; args: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi: erc20Abi, data: tx.input }) as typeof call;
  } catch {
    return false; // not a call this token understands: it reverts
  }
  if (!APPLIED_TOKEN_CALLS.has(call.functionName)) return false;
  if (call.functionName === "approve") {
    const [spender, amount] = call.args as [string, bigint];
    allowances(store).put(`${tx.network}|${contract.toLowerCase()}|${tx.from.toLowerCase()}|${spender.toLowerCase()}`, { amount: amount.toString() });
    logs.push({
      address: contract,
      topics: [APPROVAL_TOPIC, topicAddress(tx.from), topicAddress(spender)],
      data: encodeAbiParameters([{ type: "uint256" }], [amount]),
      logIndex: logs.length,
    });
    return true;
  }
  const [from, to, amount] = call.functionName === "transfer" ? [tx.from, ...(call.args as [string, bigint])] : (call.args as [string, string, bigint]);
  // Both checks before any write: a transferFrom that reverts for want of balance keeps its allowance.
  if (evmBalanceOf(store, tx.network, contract, from) < amount) return false;
  if (call.functionName === "transferFrom") {
    const key = `${tx.network}|${contract.toLowerCase()}|${from.toLowerCase()}|${tx.from.toLowerCase()}`;
    const allowed = BigInt(allowances(store).get(key)?.amount ?? "0");
    if (allowed < amount) return false;
    allowances(store).put(key, { amount: (allowed - amount).toString() });
  }
  moveToken(store, tx.network, contract, from, to, amount, logs);
  return true;
}

export function allowanceOf(store: ProjectTx, network: string, contract: string, owner: string, spender: string): bigint {
  return BigInt(allowances(store).get(`${network}|${contract.toLowerCase()}|${owner.toLowerCase()}|${spender.toLowerCase()}`)?.amount ?? "0");
}

export function setAllowance(store: ProjectTx, network: string, contract: string, owner: string, spender: string, amount: bigint): void {
  allowances(store).put(`${network}|${contract.toLowerCase()}|${owner.toLowerCase()}|${spender.toLowerCase()}`, { amount: amount.toString() });
}

const permitNonceKey = (network: string, contract: string, owner: string) => `${network}|${contract.toLowerCase()}|${owner.toLowerCase()}`;

/** The token's `nonces(owner)`: how many of the owner's EIP-2612 permits have been executed. */
export function permitNonceOf(store: ProjectTx, network: string, contract: string, owner: string): bigint {
  return BigInt(store.collection(LEDGER_PERMIT_NONCES).get(permitNonceKey(network, contract, owner))?.next ?? "0");
}

/** An executed EIP-2612 permit: the allowance becomes its value and the owner's nonce moves past it. */
export function executePermit(store: ProjectTx, network: string, contract: string, owner: string, spender: string, value: bigint, nonce: bigint): void {
  setAllowance(store, network, contract, owner, spender, value);
  store.collection(LEDGER_PERMIT_NONCES).put(permitNonceKey(network, contract, owner), { next: (nonce + 1n).toString() });
}

/** A payment to a holder from a platform wallet (faucet, onramp delivery), mined in `block`. */
export interface PayoutInput {
  hash: Hex;
  network: string;
  chainId: number;
  /** The paying wallet. */
  from: `0x${string}`;
  holder: `0x${string}`;
  /** Token contract, or the native token's address. */
  asset: string;
  amount: bigint;
  block: number;
  submittedAtMs: number;
  /** Calldata recorded on the transaction (a token payout's `transfer`, when the caller wants it). */
  input?: Hex;
}

/** Credits the holder and records the paying transaction, with a Transfer log for tokens. */
export function recordPayout(store: ProjectTx, p: PayoutInput): LedgerTx {
  const isNative = assetKey(p.asset) === NATIVE;
  creditEvm(store, p.network, p.asset, p.holder, p.amount);
  const record: LedgerTx = {
    hash: p.hash,
    network: p.network,
    chainId: p.chainId,
    from: p.from,
    to: isNative ? p.holder : (p.asset as `0x${string}`),
    value: isNative ? p.amount.toString() : "0",
    input: p.input ?? "0x",
    nonce: 0,
    gas: "21000",
    gasUsed: "21000",
    gasPrice: GAS_PRICE_WEI.toString(),
    type: "eip1559",
    block: p.block,
    status: "success",
    logs: isNative ? [] : [transferLog(p.asset as `0x${string}`, p.from, p.holder, p.amount, 0)],
    submittedAtMs: p.submittedAtMs,
  };
  ledgerTxs(store).put(p.hash, record);
  return record;
}

/** A faucet payout: credits the holder and records a transaction from the faucet, with a Transfer log for tokens. */
export function faucetPayout(
  store: ProjectTx,
  clock: Clock,
  random: { hex(n: number): string },
  network: string,
  chainId: number,
  holder: `0x${string}`,
  asset: string,
  amount: bigint,
): LedgerTx {
  const FAUCET = "0x7E2B7fbC3a2Fb5a64B1e9D7f0c7F1C6dDbC0fA11" as const;
  const hash = `0x${random.hex(32)}` as Hex;
  return recordPayout(store, {
    hash,
    network,
    chainId,
    from: FAUCET,
    holder,
    asset,
    amount,
    block: inclusionBlock(store, clock, network),
    submittedAtMs: clock.now(),
  });
}
