/**
 * The money of wallet-paid sessions on the project's ledger. An authorization
 * executes the payer's EIP-3009 `transferWithAuthorization` into the sandbox's
 * payment escrow (a fixed address that holds every session's funds, as the
 * platform's escrow contract does); a capture pays the merchant's address from
 * it, a void (or what a final capture leaves) goes back to the payer, and a
 * refund is drawn from the merchant — a custodial account (paid out from the
 * platform's hot wallet) or an address that approved the escrow for the token.
 * Each move is a mined transaction with the token's Transfer log, so the
 * node and the token balance APIs see it. Checks happen before any write.
 */
import { encodeEventTopics, encodeFunctionData, getAddress, keccak256, parseAbi, toHex, type Hex } from "viem";
import type { Clock } from "../../clock.js";
import { allowanceOf, chainIdOf, GAS_PRICE_WEI, type LedgerLog, ledgerTxs, moveToken, recordPayout, setAllowance, takeNonce } from "../../chain/evm/index.js";
import { balanceOf, settlementBlock } from "../../chain/index.js";
import type { ProjectTx } from "../../store/store.js";
import { HOT_WALLET } from "../transfers/settle.js";
import { executeTransferWithAuthorization } from "../x402/eip3009.js";
import { authorizationKey, usedAuthorizations } from "../x402/model.js";
import type { Eip3009Transfer } from "./model.js";

/** The sandbox's payment escrow: holds authorized funds until they are captured or released. */
export const PAYMENT_ESCROW = getAddress(keccak256(toHex("cdp-sandbox:payment-sessions:escrow")).slice(0, 42));
/** The platform's operator wallet that submits the escrow's transactions (it pays their gas, not the payer). */
const OPERATOR = getAddress(keccak256(toHex("cdp-sandbox:payment-sessions:operator")).slice(0, 42));

const abi = parseAbi([
  "function transfer(address to, uint256 value)",
  "function transferFrom(address from, address to, uint256 value)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

const _topics = (name: "Transfer", args: Record<string, unknown>) => encodeEventTopics({ abi, eventName: name, args } as never) as Hex[];

/** A deterministic transaction hash for the n-th transaction of an action. */
export const actionHash = (actionId: string, n = 0): Hex => keccak256(toHex(`payment-sessions/${actionId}/${n}`));

interface Move {
  network: string;
  token: `0x${string}`;
  from: string;
  to: string;
  units: bigint;
  hash: Hex;
  input: Hex;
  atMs: number;
}

/** Moves tokens and records the operator's mined transaction (the caller checked the balance). */
function record(store: ProjectTx, clock: Clock, m: Move): void {
  const logs: LedgerLog[] = [];
  moveToken(store, m.network, m.token, m.from, m.to, m.units, logs);
  ledgerTxs(store).put(m.hash, {
    hash: m.hash,
    network: m.network,
    chainId: chainIdOf(m.network)!,
    from: OPERATOR,
    to: m.token,
    value: "0",
    input: m.input,
    nonce: takeNonce(store, m.network, OPERATOR),
    gas: "100000",
    gasUsed: "62000",
    gasPrice: GAS_PRICE_WEI.toString(),
    type: "eip1559",
    block: settlementBlock(store, clock, m.network, m.atMs),
    status: "success",
    logs,
    submittedAtMs: m.atMs,
  });
}

/** Why a signed EIP-3009 transfer cannot execute at `atMs` (its nonce used, its window, the payer's balance), or undefined. */
export function transferProblem(store: ProjectTx, network: string, t: Eip3009Transfer, atMs: number): { code: string; message: string } | undefined {
  const used = usedAuthorizations(store).get(authorizationKey(network, t.token, t.from, t.nonce));
  if (used) return { code: "nonce_already_used", message: `The signed transfer's nonce ${t.nonce} was already used by transaction ${used.transaction}.` };
  const seconds = BigInt(Math.floor(atMs / 1000));
  if (BigInt(t.validBefore) <= seconds)
    return { code: "authorization_expired", message: `The signed transfer was valid before ${t.validBefore} (unix seconds) only.` };
  if (BigInt(t.validAfter) > seconds)
    return { code: "authorization_not_yet_valid", message: `The signed transfer is valid after ${t.validAfter} (unix seconds) only.` };
  const held = balanceOf(store, network, t.token, t.from);
  if (held < BigInt(t.value))
    return { code: "insufficient_funds", message: `The payer ${t.from} holds ${held} of the token (smallest unit); the payment needs ${t.value}.` };
  return undefined;
}

/** Executes a checked transferWithAuthorization into the escrow, submitted by the operator; its nonce is used from then on. */
export function executeTransfer(store: ProjectTx, clock: Clock, network: string, t: Eip3009Transfer, hash: Hex, atMs: number): void {
  executeTransferWithAuthorization(store, {
    network,
    token: t.token,
    authorization: { from: t.from, to: t.to, value: BigInt(t.value), validAfter: BigInt(t.validAfter), validBefore: BigInt(t.validBefore), nonce: t.nonce },
    signature: t.signature,
    sender: OPERATOR,
    hash,
    block: settlementBlock(store, clock, network, atMs),
    atMs,
    clock,
  });
}

/** Pays `units` out of the escrow (a capture to the merchant, a release to the payer). */
export function payFromEscrow(
  store: ProjectTx,
  clock: Clock,
  p: { network: string; token: `0x${string}`; to: string; units: bigint; hash: Hex; atMs: number },
): void {
  const input = encodeFunctionData({ abi, functionName: "transfer", args: [p.to as `0x${string}`, p.units] });
  record(store, clock, { ...p, from: PAYMENT_ESCROW, input });
}

/** Why `from` cannot fund a refund of `units` (balance, or the allowance it gave the escrow), or undefined. */
export function walletRefundProblem(
  store: ProjectTx,
  network: string,
  token: `0x${string}`,
  from: string,
  units: bigint,
): { code: string; message: string } | undefined {
  const held = balanceOf(store, network, token, from);
  if (held < units)
    return { code: "insufficient_balance", message: `${from} holds ${held} of the token (smallest unit) on ${network}; the refund needs ${units}.` };
  const allowed = allowanceOf(store, network, token, from, PAYMENT_ESCROW);
  if (allowed < units) {
    return {
      code: "insufficient_allowance",
      message: `${from} allows the payment escrow ${PAYMENT_ESCROW} to move ${allowed} of the token (smallest unit); the refund needs ${units}: approve it first.`,
    };
  }
  return undefined;
}

/** Draws a refund from the merchant's approved address to the payer (transferFrom by the escrow). */
export function refundFromWallet(
  store: ProjectTx,
  clock: Clock,
  p: { network: string; token: `0x${string}`; from: string; to: string; units: bigint; hash: Hex; atMs: number },
): void {
  const allowed = allowanceOf(store, p.network, p.token, p.from, PAYMENT_ESCROW);
  setAllowance(store, p.network, p.token, p.from, PAYMENT_ESCROW, allowed - p.units);
  const input = encodeFunctionData({ abi, functionName: "transferFrom", args: [p.from as `0x${string}`, p.to as `0x${string}`, p.units] });
  record(store, clock, { ...p, input });
}

/** Pays `units` of a token from the platform's hot wallet (funds that left a custodial account) to an address. */
export function payFromCustody(
  store: ProjectTx,
  clock: Clock,
  p: { network: string; token: `0x${string}`; to: string; units: bigint; hash: Hex; atMs: number },
): void {
  recordPayout(store, {
    hash: p.hash,
    network: p.network,
    chainId: chainIdOf(p.network)!,
    from: HOT_WALLET.evm,
    holder: p.to as `0x${string}`,
    asset: p.token,
    amount: p.units,
    block: settlementBlock(store, clock, p.network, p.atMs),
    submittedAtMs: p.atMs,
    input: encodeFunctionData({ abi, functionName: "transfer", args: [p.to as `0x${string}`, p.units] }),
  });
}
