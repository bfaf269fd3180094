/**
 * Actions landing on the sandbox clock. Before every request (src/products/settle.ts)
 * each session whose pending action is due has it land, stamped with the time
 * it was due, so the outcome does not depend on when anyone looks:
 *
 * - authorization: the payer's signed transfer into the escrow executes if it
 *   still can at that time (nonce unused, inside its window, funds there),
 *   else it fails with the reason; with autoCapture a full, final capture
 *   starts at once;
 * - capture: the escrow pays the merchant (and, if final, returns the rest),
 *   unless it lands after captureExpiresAt: then it fails and nothing moves;
 * - void: the escrow returns what is still held;
 * - refund: the merchant's account or approved address pays the payer back,
 *   or the refund fails when the address no longer can or it lands after
 *   refundExpiresAt (then nothing moves and a custodial hold is released).
 *
 * A session paid from a Coinbase account has no escrow: its amount is held in
 * the payer's Coinbase balance (coinbaseUsers.ts), so its authorization
 * always succeeds; a capture spends the hold (paying a custodial account
 * inside the platform, an address from the hot wallet), a void releases it,
 * and a refund credits the payer's Coinbase balance.
 */
import type { Store } from "../../store/store.js";
import { creditAccount, debitAccount, releaseHold } from "../accounts/model.js";
import { HOT_WALLET } from "../transfers/settle.js";
import type { EmitContext } from "../../wallet/events/emit.js";
import { actionHash, executeTransfer, payFromCustody, payFromEscrow, refundFromWallet, transferProblem, walletRefundProblem } from "./escrow.js";
import { emitSessionEvent } from "./events.js";
import { creditCoinbaseUser, releaseCoinbaseHold, spendCoinbaseHold } from "./coinbaseUsers.js";
import {
  ACTION_DELAY_MS,
  coinbasePayerOf,
  PAYMENT_SESSIONS,
  paymentSessions,
  payerAddressOf,
  queueAction,
  type CaptureRecord,
  type CoinbaseAuthorizationRecord,
  type PaymentSessionRecord,
  type WalletAuthorizationRecord,
} from "./model.js";

export function hasDuePaymentSessions(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, PAYMENT_SESSIONS, nowMs);
}

/** Lands every action due by `nowMs`, one at a time in the order due (then submitted), across all sessions. */
export function settleDuePaymentSessions(ctx: EmitContext, nowMs: number): void {
  for (;;) {
    const due = paymentSessions(ctx.store).dueBy(nowMs);
    if (due.length === 0) return;
    const next = due.reduce((a, b) => ((b.pending!.landsAtMs - a.pending!.landsAtMs || b.pending!.seq - a.pending!.seq) < 0 ? b : a));
    const landed = land(ctx, next);
    paymentSessions(ctx.store).put(landed.paymentSessionId, landed);
  }
}

/** Replaces the action `id` of list `key` with `change(action)`. */
function withAction<K extends "authorizations" | "captures" | "voids" | "refunds">(
  s: PaymentSessionRecord,
  key: K,
  id: string,
  change: (a: PaymentSessionRecord[K][number]) => PaymentSessionRecord[K][number],
): PaymentSessionRecord {
  return { ...s, [key]: (s[key] as PaymentSessionRecord[K][number][]).map((a) => (a.id === id ? change(a) : a)) };
}

/** Lands the session's pending action; returns the session after it (and after any action it starts). */
function land(ctx: EmitContext, s: PaymentSessionRecord): PaymentSessionRecord {
  const { kind, id, landsAtMs: atMs } = s.pending!;
  const iso = new Date(atMs).toISOString();
  const base = { ...s, pending: undefined, updatedAt: iso };
  const payer = coinbasePayerOf(s);
  let next: PaymentSessionRecord;
  if (kind === "authorization") {
    const a = s.authorizations.find((x) => x.id === id)!;
    next = a.kind === "coinbase" ? landCoinbaseAuthorization(base, a, iso) : landWalletAuthorization(ctx, base, a, atMs);
    emitSessionEvent(ctx, next, atMs, { kind, id });
    if (next.status === "authorization_succeeded" && next.autoCapture) next = startAutoCapture(ctx, next, atMs);
    return next;
  }
  if (kind === "capture" && atMs > Date.parse(s.expiries.captureExpiresAt)) {
    next = captureTooLate(base, id, iso);
  } else if (kind === "capture") {
    const c = s.captures.find((x) => x.id === id)!;
    const units = BigInt(c.units);
    const left = BigInt(s.capturable) - units;
    const released = c.finalCapture ? left : 0n;
    const onchain = payer ? captureFromCoinbase(ctx, s, payer, id, units, released, atMs) : captureFromEscrow(ctx, s, id, units, released, atMs);
    const totals = { capturable: (c.finalCapture ? 0n : left).toString(), captured: (BigInt(s.captured) + units).toString() };
    next = withAction({ ...base, ...totals, status: "capture_succeeded" }, "captures", id, (x) => ({
      ...x,
      status: "succeeded",
      ...(onchain.length > 0 ? { onchainTransactions: onchain } : {}),
      updatedAt: iso,
    }));
  } else if (kind === "void") {
    const units = BigInt(s.capturable);
    let onchain: OnchainTransaction[] = [];
    if (payer) releaseCoinbaseHold(ctx.store, payer, s.asset, units);
    else {
      const hash = actionHash(id, 0);
      payFromEscrow(ctx.store, ctx.clock, { network: s.network!, token: s.token!, to: payerAddressOf(s), units, hash, atMs });
      onchain = [onchainTx(s, hash)];
    }
    next = withAction({ ...base, capturable: "0", status: "void_succeeded" }, "voids", id, (x) => ({
      ...x,
      status: "succeeded",
      ...(onchain.length > 0 ? { onchainTransactions: onchain } : {}),
      updatedAt: iso,
    }));
  } else {
    next = landRefund(ctx, base, id, atMs);
  }
  emitSessionEvent(ctx, next, atMs, { kind, id });
  return next;
}

type OnchainTransaction = NonNullable<CaptureRecord["onchainTransactions"]>[number];
const onchainTx = (s: PaymentSessionRecord, hash: string): OnchainTransaction => ({ transactionHash: hash, network: s.network as "base" });

/**
 * A capture accepted before captureExpiresAt whose transaction lands after it: the escrow refuses a capture past the
 * deadline when it executes, as the request is refused (a Coinbase payer's hold likewise), so nothing moves and what
 * was capturable stays held until the merchant voids it.
 */
function captureTooLate(s: PaymentSessionRecord, id: string, iso: string): PaymentSessionRecord {
  const error = {
    code: "capture_expired",
    message: `The capture landed at ${iso}, after the session's captureExpiresAt ${s.expiries.captureExpiresAt}; void the session to release the funds.`,
    occurredAt: iso,
  };
  return withAction({ ...s, status: "capture_failed" }, "captures", id, (x) => ({ ...x, status: "failed", error, updatedAt: iso }));
}

/** The payer's signed transfer into the escrow executes if it still can at `atMs`, else the authorization fails with the reason. */
function landWalletAuthorization(ctx: EmitContext, s: PaymentSessionRecord, a: WalletAuthorizationRecord, atMs: number): PaymentSessionRecord {
  const iso = new Date(atMs).toISOString();
  const problem = transferProblem(ctx.store, s.network!, a.transfer, atMs);
  if (problem) {
    return withAction({ ...s, status: "authorization_failed" }, "authorizations", a.id, (x) => ({
      ...x,
      status: "failed",
      error: { ...problem, occurredAt: iso },
      updatedAt: iso,
    }));
  }
  executeTransfer(ctx.store, ctx.clock, s.network!, a.transfer, a.hash, atMs);
  return withAction({ ...s, status: "authorization_succeeded", capturable: a.units, source: a.source }, "authorizations", a.id, (x) => ({
    ...x,
    status: "succeeded",
    onchainTransactions: [onchainTx(s, a.hash)],
    updatedAt: iso,
  }));
}

/** A Coinbase account's funds were held when it authorized, so its authorization always succeeds, with nothing onchain. */
function landCoinbaseAuthorization(s: PaymentSessionRecord, a: CoinbaseAuthorizationRecord, iso: string): PaymentSessionRecord {
  return withAction({ ...s, status: "authorization_succeeded", capturable: a.units, source: a.source }, "authorizations", a.id, (x) => ({
    ...x,
    status: "succeeded",
    updatedAt: iso,
  }));
}

/** The escrow pays the merchant's address and, on a final capture, returns what is left to the payer. */
function captureFromEscrow(ctx: EmitContext, s: PaymentSessionRecord, id: string, units: bigint, released: bigint, atMs: number): OnchainTransaction[] {
  const network = s.network!;
  const token = s.token!;
  const hashes = [actionHash(id, 0)];
  payFromEscrow(ctx.store, ctx.clock, { network, token, to: targetAddress(s), units, hash: hashes[0]!, atMs });
  if (released > 0n) {
    hashes.push(actionHash(id, 1));
    payFromEscrow(ctx.store, ctx.clock, { network, token, to: payerAddressOf(s), units: released, hash: hashes[1]!, atMs });
  }
  return hashes.map((h) => onchainTx(s, h));
}

/**
 * The payer's hold is spent: a custodial account target is credited inside the platform, an address is paid onchain
 * from the platform's hot wallet. On a final capture the rest of the hold is released.
 */
function captureFromCoinbase(
  ctx: EmitContext,
  s: PaymentSessionRecord,
  payer: string,
  id: string,
  units: bigint,
  released: bigint,
  atMs: number,
): OnchainTransaction[] {
  spendCoinbaseHold(ctx.store, payer, s.asset, units);
  if (released > 0n) releaseCoinbaseHold(ctx.store, payer, s.asset, released);
  if ("accountId" in s.target) {
    creditAccount(ctx.store, s.target.accountId, s.asset, units);
    return [];
  }
  const hash = actionHash(id, 0);
  payFromCustody(ctx.store, ctx.clock, { network: s.network!, token: s.token!, to: s.target.address, units, hash, atMs });
  return [onchainTx(s, hash)];
}

function landRefund(ctx: EmitContext, s: PaymentSessionRecord, id: string, atMs: number): PaymentSessionRecord {
  const r = s.refunds.find((x) => x.id === id)!;
  const iso = new Date(atMs).toISOString();
  const units = BigInt(r.units);
  const payer = coinbasePayerOf(s);
  const hash = actionHash(id, 0);
  if (atMs > Date.parse(s.expiries.refundExpiresAt)) return refundTooLate(ctx, s, r, iso);
  let onchain = true;
  if ("accountId" in r.source) {
    debitAccount(ctx.store, r.source.accountId, r.source.asset, units, r.held === true);
    // A Coinbase payer is paid back inside Coinbase; a wallet from the platform's hot wallet.
    if (payer) onchain = false;
    else payFromCustody(ctx.store, ctx.clock, { network: s.network!, token: s.token!, to: payerAddressOf(s), units, hash, atMs });
  } else {
    const problem = walletRefundProblem(ctx.store, s.network!, s.token!, r.source.address, units);
    if (problem) {
      return withAction({ ...s, status: "refund_failed" }, "refunds", id, (x) => ({
        ...x,
        status: "failed",
        error: { ...problem, occurredAt: iso },
        updatedAt: iso,
      }));
    }
    // To a Coinbase payer the escrow draws the refund into Coinbase's hot wallet, which credits the payer's account.
    const to = payer ? HOT_WALLET.evm : payerAddressOf(s);
    refundFromWallet(ctx.store, ctx.clock, { network: s.network!, token: s.token!, from: r.source.address, to, units, hash, atMs });
  }
  if (payer) creditCoinbaseUser(ctx.store, payer, s.asset, units);
  return withAction({ ...s, refunded: (BigInt(s.refunded) + units).toString(), status: "refund_succeeded" }, "refunds", id, (x) => ({
    ...x,
    status: "succeeded",
    held: false,
    ...(onchain ? { onchainTransactions: [onchainTx(s, hash)] } : {}),
    updatedAt: iso,
  }));
}

/**
 * A refund accepted before refundExpiresAt whose transaction lands after it: the escrow refuses a refund past the
 * deadline when it executes, as the request is refused, so the payer is not paid, a custodial source's hold is
 * released and the amount stays refundable (until the deadline, which has passed: nothing more can be refunded).
 */
function refundTooLate(ctx: EmitContext, s: PaymentSessionRecord, r: PaymentSessionRecord["refunds"][number], iso: string): PaymentSessionRecord {
  if ("accountId" in r.source && r.held === true) releaseHold(ctx.store, r.source.accountId, r.source.asset, BigInt(r.units));
  const error = {
    code: "refund_expired",
    message: `The refund landed at ${iso}, after the session's refundExpiresAt ${s.expiries.refundExpiresAt}; nothing was paid.`,
    occurredAt: iso,
  };
  return withAction({ ...s, status: "refund_failed" }, "refunds", r.id, (x) => ({ ...x, status: "failed", held: false, error, updatedAt: iso }));
}

const targetAddress = (s: PaymentSessionRecord) => ("address" in s.target ? s.target.address : "");

/** autoCapture: a capture of everything, final, started the moment the authorization lands. */
function startAutoCapture(ctx: EmitContext, s: PaymentSessionRecord, atMs: number): PaymentSessionRecord {
  const iso = new Date(atMs).toISOString();
  // It carries the authorization's own labels (its externalReferenceId only if it had one).
  const authorization = s.authorizations.at(-1)!;
  const capture: CaptureRecord = {
    id: `capture_${ctx.random.uuid()}`,
    status: "pending",
    units: s.capturable,
    finalCapture: true,
    ...(authorization.externalReferenceId !== undefined ? { externalReferenceId: authorization.externalReferenceId } : {}),
    ...(authorization.customerDisplay ? { customerDisplay: authorization.customerDisplay } : {}),
    createdAt: iso,
    updatedAt: iso,
    landsAtMs: atMs + ACTION_DELAY_MS,
  };
  const next: PaymentSessionRecord = {
    ...s,
    status: "capture_pending",
    captures: [...s.captures, capture],
    pending: queueAction(ctx.store, "capture", capture.id, capture.landsAtMs),
    updatedAt: iso,
  };
  emitSessionEvent(ctx, next, atMs, { kind: "capture", id: capture.id });
  return next;
}
