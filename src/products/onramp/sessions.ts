/**
 * Hosted-page sessions: a single-use onramp URL (served by the sandbox at
 * /_sandbox/onramp/buy?sessionToken=…) that works once, within 5 minutes of
 * sandbox time; a second visit is refused. With an amount and a payment
 * currency it is a one-click URL; adding paymentMethod and country (and
 * subdivision in the US) also returns a quote.
 */
import type { RequestBody, ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import type { Handler } from "../../wallet/types.js";
import { hostedUrl, pageToken } from "./links.js";
import { checkDestinationAddress, checkFiat, offering, quote, quoteView } from "./market.js";
import { checkTradable, type Region } from "./regions.js";
import { declareCollection } from "../../store/collections.js";

const SESSION_LIFETIME_MS = 5 * 60 * 1000;

type SessionBody = RequestBody<"createOnrampSession">;

export interface OnrampSessionRecord {
  token: string;
  createdAtMs: number;
  expiresAtMs: number;
  openedAtMs?: number;
  request: SessionBody;
  quote?: Schema<"OnrampQuote">;
}

const ONRAMP_SESSIONS = declareCollection<OnrampSessionRecord>("onrampSessions");

export const onrampSessions = (store: ProjectTx) => store.collection(ONRAMP_SESSIONS);

function regionOf(body: SessionBody): Region | undefined {
  if (body.country === undefined) {
    if (body.subdivision !== undefined) throw apiError("invalid_request", "subdivision needs country (e.g. country US, subdivision NY).");
    return undefined;
  }
  if (!/^[A-Za-z]{2}$/.test(body.country))
    throw apiError("invalid_request", `country must be an ISO 3166-1 two-letter code such as US, got ${JSON.stringify(body.country)}.`);
  if (body.subdivision !== undefined && !/^[A-Za-z0-9]{1,3}$/.test(body.subdivision)) {
    throw apiError("invalid_request", `subdivision must be an ISO 3166-2 subdivision code such as NY, got ${JSON.stringify(body.subdivision)}.`);
  }
  return { country: body.country.toUpperCase(), subdivision: body.subdivision?.toUpperCase() };
}

export const createOnrampSession: Handler<"createOnrampSession"> = (req, ctx) => {
  const body = req.body;
  const { asset, network } = offering(body.purchaseCurrency, body.destinationNetwork);
  checkDestinationAddress(body.destinationAddress, network);
  if (body.paymentAmount !== undefined && body.purchaseAmount !== undefined)
    throw apiError("invalid_request", "Give either paymentAmount or purchaseAmount, not both.");
  const amount = body.paymentAmount ?? body.purchaseAmount;
  if (amount !== undefined && body.paymentCurrency === undefined)
    throw apiError("invalid_request", "A one-click session with an amount needs paymentCurrency too.");
  if (body.paymentCurrency !== undefined) checkFiat(body.paymentCurrency);
  const region = regionOf(body);
  if (region) checkTradable(region, asset.symbol, network);

  // An amount is always priced (which checks it); the quote is returned only with paymentMethod and the buyer's region.
  const priced =
    amount !== undefined
      ? quoteView(
          quote({
            asset,
            network,
            paymentCurrency: body.paymentCurrency!,
            paymentMethod: body.paymentMethod ?? "CARD",
            paymentAmount: body.paymentAmount,
            purchaseAmount: body.purchaseAmount,
          }),
        )
      : undefined;
  const quoted = body.paymentMethod !== undefined && region !== undefined && (region.country !== "US" || region.subdivision !== undefined) ? priced : undefined;
  const now = ctx.clock.now();
  const session: OnrampSessionRecord = {
    token: pageToken(ctx),
    createdAtMs: now,
    expiresAtMs: now + SESSION_LIFETIME_MS,
    request: body,
    ...(quoted ? { quote: quoted } : {}),
  };
  onrampSessions(ctx.store).put(session.token, session);
  const response: ResponseBody<"createOnrampSession", 201> = {
    session: { onrampUrl: hostedUrl(req, "buy", { sessionToken: session.token }) },
    ...(quoted ? { quote: quoted } : {}),
  };
  return { status: 201, body: response };
};
