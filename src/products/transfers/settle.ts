/**
 * Moving a transfer along its state machine: execution (holds the source
 * amount and fixes when it settles) and settlement on the sandbox clock
 * (completed: the hold is spent and the target paid, once; failed: the hold
 * is released), and the expiry of quotes nobody executed. Each transition
 * sends its webhook event once (events.ts). Settlement runs before every
 * platform request and node call (src/products/settle.ts), and stamps the
 * times the transfer was due, so the outcome does not depend on when anyone looks.
 *
 * | target                         | settles after (sandbox time) |
 * |--------------------------------|------------------------------|
 * | account, email                 | 5 s                          |
 * | onchain address (ethereum)     | 3 min                        |
 * | onchain address (other network)| 30 s                         |
 * | payment method: fedwire / sepa / swift | 30 min / 1 h / 2 h   |
 */
import { keccak256, toHex, type Hex } from "viem";
import { sha512 } from "@noble/hashes/sha2.js";
import { chainIdOf, recordPayout } from "../../chain/evm/index.js";
import { blockNumberAt, credit } from "../../chain/index.js";
import { solanaTxs } from "../../chain/solana/index.js";
import { toBase58 } from "../../crypto/solana.js";
import type { ProjectTx, Store } from "../../store/store.js";
import type { EmitContext } from "../../wallet/events/emit.js";
import { creditAccount, debitAccount, holdFunds, releaseHold } from "../accounts/model.js";
import { ledgerTokenOf } from "../shared/custodialAssets.js";
import { emitTransferEvent } from "./events.js";
import { FAILURE, TRANSFERS, transfers, type TransferRecord } from "./model.js";
import type { Route } from "./quote.js";
import { recipientProblem } from "./rules.js";

const SECOND = 1000;
const BANK_DELAY: Record<string, number> = { fedwire: 30 * 60 * SECOND, sepa: 60 * 60 * SECOND, swift: 2 * 60 * 60 * SECOND };

/** The platform's custodial hot wallets, the senders of onchain payouts on the ledger. */
export const HOT_WALLET = {
  evm: "0x9bc7A1a8845cd0EFd777CE028C2B828891fC8851" as const,
  solana: toBase58(sha512(new TextEncoder().encode("cdp-sandbox custodial hot wallet")).slice(0, 32)),
};

/** How long a transfer on this route processes before it settles. */
export function settlementDelay(route: Route): number {
  if (route.kind === "onchain") return route.network === "ethereum" ? 3 * 60 * SECOND : 30 * SECOND;
  if (route.kind === "bank") return BANK_DELAY[route.rail]!;
  return 5 * SECOND;
}

/** quoted → processing: reserve the source amount when it is available (else the transfer fails when it settles). */
export function startExecution(ctx: EmitContext, t: TransferRecord, nowMs: number): TransferRecord {
  const iso = new Date(nowMs).toISOString();
  const held = t.sourceAccountId ? holdFunds(ctx.store, t.sourceAccountId, t.sourceAsset, BigInt(t.sourceUnits)) : false;
  const { expiryUnnotified: _executed, ...rest } = t;
  const next: TransferRecord = { ...rest, status: "processing", executedAt: iso, updatedAt: iso, held, settlesAtMs: nowMs + t.settleAfterMs };
  transfers(ctx.store).put(next.transferId, next);
  emitTransferEvent(ctx, "payments.transfers.processing", next, nowMs);
  return next;
}

/** Whether a transfer of the project is due to settle, or a quote to expire, by `nowMs` (committed state, no transaction). */
export function hasDueTransfers(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, TRANSFERS, nowMs);
}

/** Settles every processing transfer whose time has come, and notes expired quotes, in the order they became due. */
export function settleDueTransfers(ctx: EmitContext, nowMs: number): void {
  const due = transfers(ctx.store)
    .dueBy(nowMs)
    .map((t) => ({ t, atMs: t.status === "quoted" ? t.expiresAtMs! : t.settlesAtMs! }))
    .sort((a, b) => a.atMs - b.atMs || a.t.createdAtMs - b.t.createdAtMs);
  for (const { t } of due) {
    if (t.status === "quoted") expire(ctx, t);
    else settle(ctx, t);
  }
}

/** A quote past its expiresAt stays `quoted` (the contract has no expired status); its expiry is announced once. */
function expire(ctx: EmitContext, t: TransferRecord): void {
  const { expiryUnnotified: _noted, ...rest } = t;
  transfers(ctx.store).put(t.transferId, rest);
  emitTransferEvent(ctx, "payments.transfers.expired", rest, t.expiresAtMs!);
}

function settle(ctx: EmitContext, t: TransferRecord): void {
  const { store } = ctx;
  const at = new Date(t.settlesAtMs!).toISOString();
  const units = BigInt(t.sourceUnits);
  const problem = recipientProblem(store, t.target);
  const fail = (reason: string) => {
    if (t.held && t.sourceAccountId) releaseHold(store, t.sourceAccountId, t.sourceAsset, units);
    const failed: TransferRecord = { ...t, status: "failed", failureReason: reason, updatedAt: at, held: false };
    transfers(store).put(t.transferId, failed);
    emitTransferEvent(ctx, "payments.transfers.failed", failed, t.settlesAtMs);
  };
  if (problem) {
    fail(problem);
    return;
  }
  if (t.sourceAccountId && !debitAccount(store, t.sourceAccountId, t.sourceAsset, units, t.held === true)) {
    fail(FAILURE.insufficientBalance);
    return;
  }
  const details = deliver(store, t);
  const completed: TransferRecord = { ...t, status: "completed", completedAt: at, updatedAt: at, held: false, ...(details ? { details } : {}) };
  transfers(store).put(t.transferId, completed);
  emitTransferEvent(ctx, "payments.transfers.completed", completed, t.settlesAtMs);
}

/** Pays the target: an account's balance, or the project's ledger for onchain addresses; emails and banks are outside the sandbox. */
export function deliver(store: ProjectTx, t: TransferRecord): TransferRecord["details"] | undefined {
  const units = BigInt(t.targetUnits);
  if (t.targetAccountId) {
    creditAccount(store, t.targetAccountId, t.targetAsset, units);
    return t.details;
  }
  const target = "address" in t.target ? t.target : undefined;
  if (!target?.address || !target.network) return t.details;
  const hash = onchainHash(store, t, target.network, target.address, units);
  return { ...t.details, onchainTransactions: [{ transactionHash: hash, network: target.network }] };
}

function onchainHash(store: ProjectTx, t: TransferRecord, network: string, address: string, units: bigint): string {
  const token = ledgerTokenOf(network, t.targetAsset);
  const atMs = t.settlesAtMs ?? t.createdAtMs;
  if (network === "solana") {
    const signature = toBase58(sha512(new TextEncoder().encode(`payout/${t.transferId}`)));
    if (token) {
      credit(store, "solana", token.token, address, units);
      solanaTxs(store).put(signature, {
        signature,
        network: "solana",
        slot: blockNumberAt("solana", atMs) + 1,
        feePayer: HOT_WALLET.solana,
        status: "success",
        submittedAtMs: atMs,
      });
    }
    return signature;
  }
  const hash = keccak256(toHex(`payout/${t.transferId}`)) as Hex;
  if (token) {
    const payout = { network, chainId: chainIdOf(network)!, from: HOT_WALLET.evm, holder: address as `0x${string}`, asset: token.token, amount: units, hash };
    recordPayout(store, { ...payout, block: blockNumberAt(network, atMs) + 1, submittedAtMs: atMs });
  }
  return hash;
}
