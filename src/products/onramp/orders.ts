/**
 * Guest-checkout orders (Apple Pay / Google Pay): priced from the market
 * table, checked against the buyer's verification, region and limits, and
 * answered with a payment link served by the sandbox. The order then runs on
 * the sandbox clock (model.ts) and delivers the asset to the destination
 * address on the project's ledger when it completes.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { scheduleDelivery } from "../../chain/index.js";
import type { RequestBody, ResponseBody } from "../../contract/types.js";
import { toBase58 } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { announceCreatedOrder } from "./events.js";
import { hostedUrl, pageToken } from "./links.js";
import { checkGuestLimits } from "./limits.js";
import { checkDestinationAddress, ledgerAssetOf, offering, quote, quoteView, usdCentsOf } from "./market.js";
import { completionAtMs, onrampOrders, orderView, type OnrampOrderRecord } from "./model.js";
import { checkGuestBuyer, checkPhoneNumber, checkTradable, TEST_PHONE_NUMBERS } from "./regions.js";
import { VERIFICATION_LIFETIME_MS, verifiedFor } from "./verifications.js";

/** The wallets the sandbox's onramp pays from. */
const ONRAMP_HOT_WALLET = {
  evm: "0x5e2d6b9c0a0b8a1f4e3c7d9a2b1c0e8f7d6a5b4c",
  solana: toBase58(sha256(new TextEncoder().encode("cdp-sandbox onramp hot wallet"))),
} as const;

/** Client clocks run a little ahead of the sandbox's at times: timestamps up to this far in the future are accepted. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

type OrderBody = RequestBody<"createOnrampOrder">;

const PAYMENT_LINKS = {
  GUEST_CHECKOUT_APPLE_PAY: { page: "apple-pay", type: "PAYMENT_LINK_TYPE_APPLE_PAY_BUTTON" },
  GUEST_CHECKOUT_GOOGLE_PAY: { page: "google-pay", type: "PAYMENT_LINK_TYPE_GOOGLE_PAY_BUTTON" },
} as const;

function timestamp(ctx: HandlerContext, value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw apiError("invalid_request", `${field} must be an ISO-8601 timestamp such as 2026-01-31T12:00:00Z, got ${JSON.stringify(value)}.`);
  if (ms > ctx.clock.now() + CLOCK_SKEW_MS) throw apiError("invalid_request", `${field} ${value} is in the future (sandbox time is ${ctx.clock.iso()}).`);
  return ms;
}

/**
 * Headless mode: the app verified the buyer. Phone, email and the agreement
 * are required; the phone's verification is either the app's own
 * (phoneNumberVerifiedAt, at most 60 days old) or an Onramp verification.
 */
function checkVerifiedBuyer(ctx: HandlerContext, body: OrderBody): string {
  const { phoneNumber, email } = body;
  if (phoneNumber === undefined || email === undefined || body.agreementAcceptedAt === undefined) {
    const missing = [
      ["phoneNumber", phoneNumber],
      ["email", email],
      ["agreementAcceptedAt", body.agreementAcceptedAt],
    ]
      .filter(([, v]) => v === undefined)
      .map(([k]) => k);
    throw apiError(
      "invalid_request",
      `Headless orders need phoneNumber, email and agreementAcceptedAt; missing ${missing.join(", ")}. (Leave out both phoneNumber and email for embedded mode.)`,
    );
  }
  checkPhoneNumber(phoneNumber, "phoneNumber");
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw apiError("invalid_request", `email must be an email address, got ${JSON.stringify(email)}.`);
  timestamp(ctx, body.agreementAcceptedAt, "agreementAcceptedAt");
  if (ctx.project.settings.onrampVerificationRequired === true && (body.smsVerificationId === undefined || body.emailVerificationId === undefined)) {
    throw apiError(
      "otp_verification_required",
      "This project requires Onramp-managed verification: verify the buyer's phone number and email with the verification API and pass smsVerificationId and emailVerificationId.",
    );
  }
  if (body.smsVerificationId !== undefined) verifiedFor(ctx, body.smsVerificationId, "sms", phoneNumber, "smsVerificationId");
  else {
    const verifiedAt = timestamp(ctx, body.phoneNumberVerifiedAt, "phoneNumberVerifiedAt");
    if (verifiedAt === undefined)
      throw apiError(
        "invalid_request",
        "phoneNumberVerifiedAt (when your app last verified the phone number by one-time code) or smsVerificationId is required.",
      );
    if (ctx.clock.now() - verifiedAt > VERIFICATION_LIFETIME_MS) {
      throw apiError(
        "phone_number_verification_expired",
        `The phone number was verified at ${body.phoneNumberVerifiedAt}, more than 60 days ago (sandbox time ${ctx.clock.iso()}); verify it again by one-time code and retry with the new phoneNumberVerifiedAt.`,
      );
    }
  }
  if (body.emailVerificationId !== undefined) verifiedFor(ctx, body.emailVerificationId, "email", email, "emailVerificationId");
  return phoneNumber;
}

export const createOnrampOrder: Handler<"createOnrampOrder"> = (req, ctx) => {
  const body = req.body;
  const { asset, network } = offering(body.purchaseCurrency, body.destinationNetwork);
  checkDestinationAddress(body.destinationAddress, network);
  if (body.paymentCurrency.toUpperCase() !== "USD") throw apiError("invalid_request", `Guest checkout is paid in USD, not ${body.paymentCurrency}.`);
  const headless = body.phoneNumber !== undefined || body.email !== undefined;
  if (!headless && ctx.project.settings.onrampEmbeddedEnabled !== true) {
    throw apiError(
      "invalid_request",
      "Without phoneNumber and email the order is in embedded mode, which is not enabled for this project; give phoneNumber, email, phoneNumberVerifiedAt and agreementAcceptedAt (headless mode).",
    );
  }
  const priced = quote({
    asset,
    network,
    paymentCurrency: body.paymentCurrency,
    paymentMethod: body.paymentMethod,
    paymentAmount: body.paymentAmount,
    purchaseAmount: body.purchaseAmount,
  });
  const usdTotalCents = usdCentsOf(priced.total, priced.paymentCurrency);

  let timeline: OnrampOrderRecord["timeline"] = "embedded";
  if (headless) {
    const phoneNumber = checkVerifiedBuyer(ctx, body);
    checkTradable(checkGuestBuyer(phoneNumber), asset.symbol, network);
    checkGuestLimits(ctx, phoneNumber, usdTotalCents);
    timeline = phoneNumber === TEST_PHONE_NUMBERS.declined ? "declined" : "headless";
  }

  const solana = network === "solana";
  const order: OnrampOrderRecord = {
    orderId: ctx.random.uuid(),
    createdAtMs: ctx.clock.now(),
    timeline,
    priced: { ...quoteView(priced), paymentMethod: body.paymentMethod, destinationAddress: body.destinationAddress },
    usdTotalCents: usdTotalCents.toString(),
    ...(headless ? { phoneNumber: body.phoneNumber, email: body.email } : {}),
    partnerUserRef: body.partnerUserRef,
    ...(body.partnerOrderRef !== undefined ? { partnerOrderRef: body.partnerOrderRef } : {}),
    txHash: solana ? toBase58(ctx.random.bytes(64)) : `0x${ctx.random.hex(32)}`,
    paymentLinkToken: pageToken(ctx),
    ...(body.locale !== undefined ? { locale: body.locale } : {}),
  };
  if (body.isQuote === true) {
    // A quote creates nothing: no order to look up, no link, no delivery.
    return { status: 201, body: { order: orderView(order, order.createdAtMs) } satisfies ResponseBody<"createOnrampOrder", 201> };
  }

  onrampOrders(ctx.store).insert(order.orderId, announceCreatedOrder(ctx, order));
  const landsAt = completionAtMs(order);
  if (landsAt !== undefined) {
    const target = ledgerAssetOf(asset, network);
    scheduleDelivery(ctx.store, {
      id: order.txHash,
      network,
      asset: target.asset,
      holder: solana ? body.destinationAddress : body.destinationAddress.toLowerCase(),
      amount: (priced.purchase * 10n ** BigInt(target.decimals - asset.precision)).toString(),
      atMs: landsAt,
      from: solana ? ONRAMP_HOT_WALLET.solana : ONRAMP_HOT_WALLET.evm,
    });
  }
  const link = headless ? PAYMENT_LINKS[body.paymentMethod] : { page: "embedded", type: "PAYMENT_LINK_TYPE_EMBEDDED_ORDER" as const };
  const response: ResponseBody<"createOnrampOrder", 201> = {
    order: orderView(order, order.createdAtMs),
    paymentLink: { url: hostedUrl(req, link.page, { sessionToken: order.paymentLinkToken, locale: body.locale }), paymentLinkType: link.type },
  };
  return { status: 201, body: response };
};

export const getOnrampOrderById: Handler<"getOnrampOrderById"> = (req, ctx) => {
  const { orderId } = req.pathParams;
  const order = onrampOrders(ctx.store).get(orderId);
  if (!order) throw apiError("not_found", `Onramp order ${orderId} does not exist in this project.`);
  const body: ResponseBody<"getOnrampOrderById", 200> = { order: orderView(order, ctx.clock.now()) };
  return { status: 200, body };
};
