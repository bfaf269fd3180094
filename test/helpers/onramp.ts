/** Guest-checkout requests for the Onramp tests: a fresh buyer per call, so limits never leak between tests. */
import request from "supertest";
import type { Sandbox } from "cdp-sandbox";
import { call, type Credentials } from "./sandbox.js";

const ORDERS = "/platform/v2/onramp/orders";
export const EVM_DESTINATION = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
export const SOLANA_DESTINATION = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

let next = 0;
/** A US phone number (San Francisco area code) no other test uses. */
export function freshPhone(areaCode = "415"): string {
  next += 1;
  return `+1${areaCode}555${String(next % 10_000).padStart(4, "0")}`;
}

/** A headless order body: a verified US buyer paying $20 with Apple Pay for USDC on base. */
export function orderBody(sandbox: Sandbox, overrides: Record<string, unknown> = {}) {
  const now = new Date(sandbox.clock.now()).toISOString();
  return {
    paymentCurrency: "USD",
    paymentAmount: "20.00",
    purchaseCurrency: "USDC",
    paymentMethod: "GUEST_CHECKOUT_APPLE_PAY",
    destinationAddress: EVM_DESTINATION,
    destinationNetwork: "base",
    partnerUserRef: "user-42",
    phoneNumber: freshPhone(),
    email: "buyer@example.com",
    phoneNumberVerifiedAt: now,
    agreementAcceptedAt: now,
    ...overrides,
  };
}

export const createOrder = (sandbox: Sandbox, body: Record<string, unknown>, credentials?: Credentials, headers?: Record<string, string>) =>
  call(sandbox, "POST", ORDERS, { body, credentials, headers });

export const getOrder = (sandbox: Sandbox, orderId: string, credentials?: Credentials) => call(sandbox, "GET", `${ORDERS}/${orderId}`, { credentials });

/** Opens a hosted page the way a browser or webview would (no credentials). */
export const openPage = (url: string, accept = "application/json") => {
  const u = new URL(url);
  return request(u.origin)
    .get(u.pathname + u.search)
    .set("Accept", accept);
};

/** The one-time code the sandbox "sent" for a verification. */
export async function sentCode(sandbox: Sandbox, verificationId: string): Promise<string> {
  const res = await request(sandbox.url).get(`/_sandbox/onramp/verifications/${verificationId}`);
  if (res.status !== 200) throw new Error(`no code for ${verificationId}: ${res.status} ${res.text}`);
  return res.body.otpCode as string;
}
