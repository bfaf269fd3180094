/**
 * createPaymentSession, getPaymentSession, listPaymentSessions and
 * cancelPaymentSession. A session is paid to an EVM address on Base or Base
 * Sepolia in a token that takes EIP-3009 authorizations there (USDC, EURC),
 * or to a custodial account of the project. Every refusal happens before
 * anything is written.
 */
import { isAddress } from "viem";
import { evmTokenBySymbol } from "../../chain/evm/index.js";
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { accounts, entityIdOf } from "../accounts/model.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { toUnits } from "../shared/decimal.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import { paginatePages } from "../../wallet/shared/pagination.js";
import type { Handler, HandlerContext, RequestFacts } from "../../wallet/types.js";
import { emitSessionEvent } from "./events.js";
import { findPaymentSession, paymentSessions, paymentSessionView, requireIdle, type PaymentSessionRecord } from "./model.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_EXPIRY_DAYS = { authorizationExpiresAt: 1, captureExpiresAt: 7, refundExpiresAt: 30 } as const;
type ExpiryName = keyof typeof DEFAULT_EXPIRY_DAYS;

/** The sandbox's own base URL, as the caller reached it. */
function baseUrl(req: RequestFacts): string {
  const proto = req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  return `${proto}://${req.headers.host || "127.0.0.1"}`;
}

/** The deadlines, defaulted and checked: each in the future, authorization ≤ capture ≤ refund. */
function expiriesOf(given: RequestBody<"createPaymentSession">["expiries"], nowMs: number): PaymentSessionRecord["expiries"] {
  const names = Object.keys(DEFAULT_EXPIRY_DAYS) as ExpiryName[];
  const ms = {} as Record<ExpiryName, number>;
  for (const name of names) {
    const text = given?.[name];
    ms[name] = text === undefined ? nowMs + DEFAULT_EXPIRY_DAYS[name] * DAY_MS : Date.parse(text);
    if (text !== undefined && !(ms[name] > nowMs)) {
      throw apiError("invalid_request", `expiries.${name} ${text} is not in the future (the sandbox's now is ${new Date(nowMs).toISOString()}).`);
    }
  }
  const [auth, capture, refund] = names.map((n) => ms[n]);
  if (auth! > capture! || capture! > refund!) {
    throw apiError(
      "invalid_request",
      `expiries must be in order authorizationExpiresAt ≤ captureExpiresAt ≤ refundExpiresAt; with defaults (1, 7 and 30 days) filled in they are ${names.map((n) => new Date(ms[n]).toISOString()).join(", ")}.`,
    );
  }
  return Object.fromEntries(names.map((n) => [n, new Date(ms[n]).toISOString()])) as PaymentSessionRecord["expiries"];
}

/** Where the session pays: a wallet target's network and token, or a custodial account of the project. */
function resolveTarget(ctx: HandlerContext, body: RequestBody<"createPaymentSession">, asset: string): { network?: string; token?: `0x${string}` } {
  const target = body.target;
  if ("accountId" in target) {
    if (!accounts(ctx.store).get(target.accountId)) {
      throw apiError("invalid_request", `target.accountId ${target.accountId} is not an account of this project; GET /v2/accounts lists them.`);
    }
    if (!custodialAsset(target.asset)) throw apiError("invalid_request", `target.asset ${target.asset} is not an asset custodial accounts hold.`);
    return {};
  }
  if (!isAddress(target.address, { strict: false })) throw apiError("invalid_request", `target.address ${target.address} is not an EVM address.`);
  const network = target.network ?? "base";
  const token = evmTokenBySymbol(network, asset);
  if (!token?.eip712) {
    throw apiError(
      "invalid_request",
      `${asset} cannot be paid on ${network}: wallet payments use a token that takes EIP-3009 authorizations there (usdc, eurc).`,
    );
  }
  return { network, token: token.address };
}

/** A made-up order code, e.g. ORD-5F3A9C2E1B. */
const orderCode = (ctx: HandlerContext) => `ORD-${Buffer.from(ctx.random.bytes(5)).toString("hex").toUpperCase()}`;

export const createPaymentSession: Handler<"createPaymentSession"> = (req, ctx) => {
  const body = req.body;
  checkMetadata(body.metadata);
  const asset = custodialAsset(body.asset);
  if (asset?.class !== "stablecoin") throw apiError("invalid_request", `asset ${body.asset} cannot be asked for; payment sessions take usdc or eurc.`);
  const units = toUnits(body.amount, asset.decimals);
  if (units === undefined || units <= 0n) {
    throw apiError("invalid_request", `amount ${body.amount} must be a positive decimal with at most ${asset.decimals} decimals of ${asset.symbol}.`);
  }
  const where = resolveTarget(ctx, body, asset.symbol);
  const nowMs = ctx.clock.now();
  const expiries = expiriesOf(body.expiries, nowMs);
  const iso = new Date(nowMs).toISOString();
  const id = `paymentSession_${ctx.random.uuid()}`;
  const base = baseUrl(req);
  const session: PaymentSessionRecord = {
    paymentSessionId: id,
    entityId: entityIdOf(ctx.project.id),
    asset: asset.symbol,
    units: units.toString(),
    target: body.target,
    ...where,
    autoCapture: body.autoCapture ?? false,
    expiries,
    status: "created",
    capturable: "0",
    captured: "0",
    refunded: "0",
    authorizations: [],
    captures: [],
    voids: [],
    refunds: [],
    url: `${base}/_sandbox/payment-sessions/${id}`,
    // Only a wallet target can be paid from a wallet, so only it has an x402 endpoint.
    ...(where.network ? { x402Url: `${base}/platform/v2/payment-sessions/${id}/authorizations/x402` } : {}),
    ...(body.redirect ? { redirect: body.redirect } : {}),
    // Every session has an order code the payer sees; the platform makes one up when the merchant gives none.
    customerDisplay: { ...body.customerDisplay, orderCode: body.customerDisplay?.orderCode ?? orderCode(ctx) },
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.externalReferenceId !== undefined ? { externalReferenceId: body.externalReferenceId } : {}),
    createdAt: iso,
    updatedAt: iso,
  };
  // body.compliance is taken and never stored: the platform never returns it either.
  paymentSessions(ctx.store).insert(id, session);
  emitSessionEvent(ctx, session, nowMs);
  return { status: 200, body: paymentSessionView(session) };
};

export const getPaymentSession: Handler<"getPaymentSession"> = (req, ctx) => ({
  status: 200,
  body: paymentSessionView(findPaymentSession(ctx.store, req.pathParams.paymentSessionId)),
});

export const listPaymentSessions: Handler<"listPaymentSessions"> = (req, ctx) => {
  const page = paginatePages((offset, size) => paymentSessions(ctx.store).page(offset, size), req.query, "payment-sessions");
  return { status: 200, body: { paymentSessions: page.items.map(paymentSessionView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const cancelPaymentSession: Handler<"cancelPaymentSession"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  requireIdle(s, "be canceled");
  // Only a session nobody has tried to pay is canceled: once authorized, a void releases the funds, and a failed
  // authorization already ends the session (it cannot be authorized again).
  if (s.status !== "created") {
    const after = s.status === "authorization_failed" ? "its authorization failed, which already ended it" : "void it to release what is held";
    throw apiError("invalid_request", `Payment session ${s.paymentSessionId} is ${s.status} and cannot be canceled in that state; ${after}.`);
  }
  const iso = ctx.clock.iso();
  const reason = req.body?.cancellationReason;
  const next: PaymentSessionRecord = { ...s, status: "canceled", ...(reason !== undefined ? { cancellationReason: reason } : {}), updatedAt: iso };
  paymentSessions(ctx.store).put(s.paymentSessionId, next);
  emitSessionEvent(ctx, next, ctx.clock.now());
  return { status: 200, body: paymentSessionView(next) };
};
