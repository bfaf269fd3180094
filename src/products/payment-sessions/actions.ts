/**
 * The merchant's actions on an authorized session — capture, void, refund —
 * and the reads of every action. The rules, checked in this order before
 * anything is written:
 *
 * | action  | refused when                                                                 |
 * |---------|------------------------------------------------------------------------------|
 * | any     | the session is canceled; another action is pending                           |
 * | capture | nothing is capturable; captureExpiresAt passed; amount > capturable          |
 * | void    | nothing is capturable (so nothing to release)                                |
 * | refund  | nothing is refundable; refundExpiresAt passed; amount > refundable; the source cannot pay |
 *
 * A refund from a custodial account holds its amount until it lands; one
 * from an address needs the address to hold the amount and to have approved
 * the payment escrow for it (checked now, and again when it lands).
 */
import { isAddress } from "viem";
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { accounts, availableUnits, holdFunds } from "../accounts/model.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { toUnits } from "../shared/decimal.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import { paginate } from "../../wallet/shared/pagination.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { walletRefundProblem } from "./escrow.js";
import { emitSessionEvent } from "./events.js";
import {
  ACTION_DELAY_MS,
  actionLabels,
  amountText,
  authorizationView,
  captureView,
  findPaymentSession,
  paymentSessions,
  queueAction,
  refundView,
  requireIdle,
  voidView,
  type ActionKind,
  type CaptureRecord,
  type PaymentSessionRecord,
  type RefundRecord,
  type VoidRecord,
} from "./model.js";

/** The amount asked for, in units, at most `limit` (all of it when left out). */
function amountOf(s: PaymentSessionRecord, text: string | undefined, limit: bigint, what: string): bigint {
  if (text === undefined) return limit;
  const units = toUnits(text, custodialAsset(s.asset)!.decimals);
  if (units === undefined || units <= 0n) throw apiError("invalid_request", `amount ${text} must be a positive decimal of ${s.asset} with at most 6 decimals.`);
  if (units > limit) throw apiError("invalid_request", `amount ${text} is more than the ${amountText(limit, s.asset)} ${s.asset} ${what}.`);
  return units;
}

/** Records a new pending action of the session and answers its view. */
function start<T extends { id: string; landsAtMs: number }>(
  ctx: HandlerContext,
  s: PaymentSessionRecord,
  kind: Exclude<ActionKind, "authorization">,
  action: T,
): PaymentSessionRecord {
  const list = ({ capture: "captures", void: "voids", refund: "refunds" } as const)[kind];
  const next: PaymentSessionRecord = {
    ...s,
    status: `${kind}_pending`,
    [list]: [...(s[list] as unknown as T[]), action],
    pending: queueAction(ctx.store, kind, action.id, action.landsAtMs),
    updatedAt: ctx.clock.iso(),
  };
  paymentSessions(ctx.store).put(s.paymentSessionId, next);
  emitSessionEvent(ctx, next, ctx.clock.now(), { kind, id: action.id });
  return next;
}

type ActionRequest = { metadata?: Record<string, string>; externalReferenceId?: string; customerDisplay?: { referenceCode?: string } } | undefined;

function newAction(ctx: HandlerContext, s: PaymentSessionRecord, prefix: string, units: bigint, body: ActionRequest) {
  const nowMs = ctx.clock.now();
  const iso = new Date(nowMs).toISOString();
  return {
    id: `${prefix}_${ctx.random.uuid()}`,
    status: "pending" as const,
    units: units.toString(),
    ...(body?.metadata ? { metadata: body.metadata } : {}),
    ...actionLabels(s, body),
    createdAt: iso,
    updatedAt: iso,
    landsAtMs: nowMs + ACTION_DELAY_MS,
  };
}

export const capturePaymentSession: Handler<"capturePaymentSession"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  checkMetadata(req.body.metadata);
  requireIdle(s, "be captured");
  const capturable = BigInt(s.capturable);
  if (capturable === 0n) throw apiError("no_capturable_balance", `Payment session ${s.paymentSessionId} (${s.status}) holds nothing to capture.`);
  if (ctx.clock.now() > Date.parse(s.expiries.captureExpiresAt)) {
    throw apiError(
      "capture_expired",
      `Payment session ${s.paymentSessionId} could be captured until ${s.expiries.captureExpiresAt}; void it to release the funds.`,
    );
  }
  const units = amountOf(s, req.body.amount, capturable, "still capturable");
  const capture: CaptureRecord = { ...newAction(ctx, s, "capture", units, req.body), finalCapture: req.body.finalCapture };
  const next = start(ctx, s, "capture", capture);
  return { status: 200, body: captureView(next, capture) };
};

export const voidPaymentSession: Handler<"voidPaymentSession"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  checkMetadata(req.body?.metadata);
  requireIdle(s, "be voided");
  const capturable = BigInt(s.capturable);
  if (capturable === 0n) throw apiError("no_voidable_balance", `Payment session ${s.paymentSessionId} (${s.status}) holds nothing to void.`);
  const voided: VoidRecord = newAction(ctx, s, "void", capturable, req.body);
  const next = start(ctx, s, "void", voided);
  return { status: 200, body: voidView(next, voided) };
};

/** Checks the refund's source can pay `units` now; a custodial account's amount is held. */
function fundRefund(ctx: HandlerContext, s: PaymentSessionRecord, source: RequestBody<"refundPaymentSession">["source"], units: bigint): { held?: boolean } {
  if ("accountId" in source) {
    if (!accounts(ctx.store).get(source.accountId)) {
      throw apiError("invalid_request", `source.accountId ${source.accountId} is not an account of this project; GET /v2/accounts lists them.`);
    }
    if (source.asset.toLowerCase() !== s.asset) throw apiError("asset_mismatch", `source.asset ${source.asset} is not the session's asset ${s.asset}.`);
    if (!holdFunds(ctx.store, source.accountId, s.asset, units)) {
      const available = availableUnits(ctx.store, source.accountId, s.asset);
      throw apiError(
        "insufficient_balance",
        `Account ${source.accountId} has ${amountText(available, s.asset)} ${s.asset} available; the refund needs ${amountText(units, s.asset)}.`,
      );
    }
    return { held: true };
  }
  if (!isAddress(source.address, { strict: false })) throw apiError("invalid_request", `source.address ${source.address} is not an EVM address.`);
  if (!s.network || !s.token) {
    throw apiError(
      "invalid_request",
      `Payment session ${s.paymentSessionId} was paid to a custodial account, on no network; refund it from a custodial account (source.accountId).`,
    );
  }
  const problem = walletRefundProblem(ctx.store, s.network, s.token, source.address, units);
  if (problem) throw apiError(problem.code as "insufficient_balance" | "insufficient_allowance", problem.message);
  return {};
}

export const refundPaymentSession: Handler<"refundPaymentSession"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const body = req.body;
  checkMetadata(body.metadata);
  requireIdle(s, "be refunded");
  const refundable = BigInt(s.captured) - BigInt(s.refunded);
  if (refundable === 0n) throw apiError("no_refundable_balance", `Payment session ${s.paymentSessionId} (${s.status}) has nothing captured left to refund.`);
  if (ctx.clock.now() > Date.parse(s.expiries.refundExpiresAt)) {
    throw apiError("refund_expired", `Payment session ${s.paymentSessionId} could be refunded until ${s.expiries.refundExpiresAt}.`);
  }
  const units = amountOf(s, body.amount, refundable, "still refundable");
  const refund: RefundRecord = {
    ...newAction(ctx, s, "refund", units, body),
    source: body.source,
    ...(body.reason !== undefined ? { reason: body.reason } : {}),
    ...fundRefund(ctx, s, body.source, units),
  };
  const next = start(ctx, s, "refund", refund);
  return { status: 200, body: refundView(next, refund) };
};

const notFound = (what: string, id: string, s: PaymentSessionRecord) =>
  apiError("not_found", `${what} ${id} was not found in payment session ${s.paymentSessionId}.`);

export const listPaymentSessionAuthorizations: Handler<"listPaymentSessionAuthorizations"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const page = paginate(s.authorizations, req.query, `authorizations/${s.paymentSessionId}`);
  return {
    status: 200,
    body: { authorizations: page.items.map((a) => authorizationView(s, a)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) },
  };
};

export const getPaymentSessionAuthorization: Handler<"getPaymentSessionAuthorization"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const a = s.authorizations.find((x) => x.id === req.pathParams.authorizationId);
  if (!a) throw notFound("Authorization", req.pathParams.authorizationId, s);
  return { status: 200, body: authorizationView(s, a) };
};

export const listPaymentSessionCaptures: Handler<"listPaymentSessionCaptures"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const page = paginate(s.captures, req.query, `captures/${s.paymentSessionId}`);
  return { status: 200, body: { captures: page.items.map((c) => captureView(s, c)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const getPaymentSessionCapture: Handler<"getPaymentSessionCapture"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const c = s.captures.find((x) => x.id === req.pathParams.captureId);
  if (!c) throw notFound("Capture", req.pathParams.captureId, s);
  return { status: 200, body: captureView(s, c) };
};

export const listPaymentSessionVoids: Handler<"listPaymentSessionVoids"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const page = paginate(s.voids, req.query, `voids/${s.paymentSessionId}`);
  return { status: 200, body: { voids: page.items.map((v) => voidView(s, v)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const getPaymentSessionVoid: Handler<"getPaymentSessionVoid"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const v = s.voids.find((x) => x.id === req.pathParams.voidId);
  if (!v) throw notFound("Void", req.pathParams.voidId, s);
  return { status: 200, body: voidView(s, v) };
};

export const listPaymentSessionRefunds: Handler<"listPaymentSessionRefunds"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const page = paginate(s.refunds, req.query, `refunds/${s.paymentSessionId}`);
  return { status: 200, body: { refunds: page.items.map((r) => refundView(s, r)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const getPaymentSessionRefund: Handler<"getPaymentSessionRefund"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const r = s.refunds.find((x) => x.id === req.pathParams.refundId);
  if (!r) throw notFound("Refund", req.pathParams.refundId, s);
  return { status: 200, body: refundView(s, r) };
};
