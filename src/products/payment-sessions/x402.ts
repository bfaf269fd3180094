/**
 * authorizeX402PaymentSession: the session's x402Url speaks the x402 protocol
 * (version 2, the `exact` scheme on EVM). Without a PAYMENT-SIGNATURE header
 * it answers 402 with a PAYMENT-REQUIRED header naming the one payment it
 * takes: the session's amount of its token on its network, paid to the
 * sandbox's payment escrow. With one, the payment is checked exactly as the
 * sandbox's facilitator checks it (src/products/x402: the EIP-3009 signature
 * recovered over the token's domain, recipient, amount, validity window on
 * the sandbox clock, unused nonce, the payer's balance); a refused payment is
 * a 402 again, with the reason. An accepted one becomes the session's pending
 * authorization, and the PAYMENT-RESPONSE header names its transaction.
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { evmTokenByAddress } from "../../chain/evm/index.js";
import { verifyExactEvm } from "../x402/eip3009.js";
import { X402_NETWORKS } from "../x402/networks.js";
import { readPayment } from "../x402/payment.js";
import type { Handler } from "../../wallet/types.js";
import { PAYMENT_ESCROW } from "./escrow.js";
import { actionLabels, findPaymentSession, type PaymentSessionRecord } from "./model.js";
import { newAuthorization, requireAuthorizable, startAuthorization } from "./wallet.js";

/** How long a signed x402 payment may take to reach the sandbox. */
const MAX_TIMEOUT_SECONDS = 300;

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

function requirementsOf(s: PaymentSessionRecord) {
  const network = X402_NETWORKS.find((n) => n.ledger === s.network)!;
  const token = evmTokenByAddress(s.network!, s.token!)!;
  return {
    network,
    requirements: {
      scheme: "exact",
      network: network.caip2,
      amount: s.units,
      asset: token.address,
      payTo: PAYMENT_ESCROW,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      extra: { name: token.eip712!.name, version: token.eip712!.version },
    },
  };
}

/** A 402: the payment to make, and why the one sent (if any) is not it. */
function paymentRequired(s: PaymentSessionRecord, requirements: Record<string, unknown>, error: string) {
  const header = {
    x402Version: 2,
    error,
    resource: { url: s.x402Url, description: `Payment session ${s.paymentSessionId}`, mimeType: "application/json" },
    accepts: [requirements],
  };
  return apiError("payment_required", `${error} Pay the requirements in the PAYMENT-REQUIRED header (x402 version 2, exact scheme).`, undefined, {
    "payment-required": base64Json(header),
  });
}

function decodePayload(header: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export const authorizeX402PaymentSession: Handler<"authorizeX402PaymentSession"> = async (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  requireAuthorizable(s, ctx.clock.now(), "an x402 payment");
  const { network, requirements } = requirementsOf(s);
  const header = req.headers["payment-signature"];
  if (!header) throw paymentRequired(s, requirements, "A PAYMENT-SIGNATURE header is required.");
  const paymentPayload = decodePayload(header);
  if (!paymentPayload) throw paymentRequired(s, requirements, "The PAYMENT-SIGNATURE header is not base64 JSON.");
  const read = readPayment({ x402Version: 2, paymentPayload, paymentRequirements: requirements } as never, "settle");
  if ("rejection" in read) throw paymentRequired(s, requirements, `${read.rejection.reason}: ${read.rejection.message}`);
  if (read.payment.scheme !== "exact") throw paymentRequired(s, requirements, "The session takes the exact scheme only.");
  const verified = await verifyExactEvm(ctx, read.payment);
  if ("rejection" in verified) throw paymentRequired(s, requirements, `${verified.rejection.reason}: ${verified.rejection.message}`);
  const { plan } = verified;
  const a = plan.authorization;
  const transfer = {
    token: plan.token,
    from: a.from,
    to: a.to,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
    nonce: a.nonce,
    signature: plan.signature,
  };
  const authorization = newAuthorization(ctx, "x402", s, transfer, {
    message: "Payment submitted; it is held for the merchant once its transaction lands.",
    ...actionLabels(s, undefined),
  });
  const body: Schema<"Authorization"> = startAuthorization(ctx, s, authorization);
  const settlement = { success: true, transaction: authorization.hash, network: network.caip2, payer: plan.payer };
  return { status: 200, headers: { "payment-response": base64Json(settlement) }, body };
};
