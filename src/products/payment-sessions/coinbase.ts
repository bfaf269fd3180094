/**
 * The payer's Coinbase account: authorizeCoinbasePaymentSession and
 * listCoinbaseAccountBalances. Both take a Coinbase OAuth access token of a
 * simulated Coinbase user (coinbaseUsers.ts; the pipeline recognises it and
 * finds the user's project); to pay, the payer also names an MFA challenge
 * they passed (cb-authz-id). A CDP API key token is refused with 403
 * forbidden, as is a token without the operation's scope; no token, or one
 * the sandbox never issued, is 401 unauthorized (an expired one is refused
 * before the handler runs).
 *
 * Authorizing checks, in this order and before anything is written: the
 * session (404), the challenge (mfa_challenge_not_found: unknown, another
 * payer's, used or expired), the session's state and deadline, and the
 * payer's available balance (insufficient_balance). It then holds the amount
 * in the payer's Coinbase balance, spends the challenge and starts a pending
 * authorization that lands like any other (settle.ts).
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import type { Handler, HandlerContext, RequestFacts } from "../../wallet/types.js";
import {
  availableOf,
  coinbaseBalancesView,
  findCoinbaseUser,
  holdCoinbaseFunds,
  SCOPE_BALANCE_READ,
  SCOPE_PAYMENT_CREATE,
  spendChallenge,
} from "./coinbaseUsers.js";
import { ACTION_DELAY_MS, actionLabels, amountText, findPaymentSession, type CoinbaseAuthorizationRecord } from "./model.js";
import { requireAwaitingAuthorization, startAuthorization } from "./wallet.js";

/** The Coinbase user the request's token signs in, if the token carries `scope`; every other caller is refused. */
function payerOf(req: RequestFacts, scope: string): string {
  if (req.auth.kind === "coinbaseUser" && req.auth.coinbaseUserId) {
    if (!req.auth.scopes?.includes(scope)) {
      throw apiError("forbidden", `The Coinbase access token was not granted the ${scope} scope this endpoint needs; sign the payer in asking for it.`);
    }
    return req.auth.coinbaseUserId;
  }
  if (req.auth.kind === "apiKey") {
    throw apiError("forbidden", "This endpoint takes a payer's Coinbase OAuth bearer token; a CDP API key token is not accepted here.");
  }
  if (!req.headers.authorization) {
    throw apiError("unauthorized", `This endpoint needs a Coinbase OAuth bearer token with the ${scope} scope; the request has none.`);
  }
  throw apiError(
    "unauthorized",
    "The bearer token is not a Coinbase access token the sandbox issued (POST /_sandbox/coinbase-users makes a user and a token).",
  );
}

export const authorizeCoinbasePaymentSession: Handler<"authorizeCoinbasePaymentSession"> = (req, ctx) => {
  const payer = payerOf(req, SCOPE_PAYMENT_CREATE);
  checkMetadata(req.body.metadata);
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const nowMs = ctx.clock.now();
  const id = `authorization_${ctx.random.uuid()}`;
  spendChallenge(ctx.store, payer, req.headers["cb-authz-id"] ?? "", nowMs, id);
  requireAwaitingAuthorization(s, nowMs);
  const units = BigInt(s.units);
  const available = availableOf(findCoinbaseUser(ctx.store, payer), s.asset);
  if (available < units) {
    throw apiError(
      "insufficient_balance",
      `The payer's Coinbase account has ${amountText(available, s.asset)} ${s.asset} available; the session asks for ${amountText(units, s.asset)}.`,
    );
  }
  holdCoinbaseFunds(ctx.store, payer, s.asset, units);
  const body: Schema<"Authorization"> = startAuthorization(ctx, s, newCoinbaseAuthorization(ctx, id, payer, s.units, req.body, s));
  return { status: 200, body };
};

function newCoinbaseAuthorization(
  ctx: HandlerContext,
  id: string,
  payer: string,
  units: string,
  body: { metadata?: Record<string, string>; externalReferenceId?: string; customerDisplay?: { referenceCode?: string } },
  s: Parameters<typeof actionLabels>[0],
): CoinbaseAuthorizationRecord {
  const nowMs = ctx.clock.now();
  const iso = new Date(nowMs).toISOString();
  return {
    id,
    kind: "coinbase",
    status: "pending",
    units,
    source: { coinbaseUserId: payer },
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...actionLabels(s, body),
    createdAt: iso,
    updatedAt: iso,
    landsAtMs: nowMs + ACTION_DELAY_MS,
  };
}

export const listCoinbaseAccountBalances: Handler<"listCoinbaseAccountBalances"> = (req, ctx) => {
  const payer = payerOf(req, SCOPE_BALANCE_READ);
  return { status: 200, body: coinbaseBalancesView(findCoinbaseUser(ctx.store, payer)) };
};
