/**
 * Every guest-onramp error of the platform's table, arising from documented
 * inputs and counters (not from scenarios): a blocked buyer, a buyer outside
 * the US, the weekly $500 limit, the lifetime count of 15, a phone
 * verification older than 60 days by the sandbox clock, and a network a state
 * does not allow for an asset. The shipped scenarios still force each of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { createOrder, freshPhone, orderBody } from "#test/helpers/onramp.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-guest", validateResponses: true });
});
afterAll(() => sandbox.close());

const DAY = 24 * 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

function expectError(res: { status: number; body: Record<string, unknown> }, errorType: string, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.errorType).toBe(errorType);
  expect(res.body.errorMessage).toMatch(message);
  expect(res.body.errorLink).toBe(`https://docs.cdp.coinbase.com/api-reference/v2/errors#${errorType.replace(/_/g, "-")}`);
}

const limitsOf = async (phoneNumber: string) =>
  (
    await call(sandbox, "POST", "/platform/v2/onramp/limits", {
      body: { paymentMethodType: "GUEST_CHECKOUT_APPLE_PAY", userId: phoneNumber, userIdType: "phone_number" },
    })
  ).body.limits;

describe("guest onramp errors from the buyer", () => {
  it("answers guest_permission_denied for the blocked test buyer +15005550001", async () => {
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumber: "+15005550001" })),
      "guest_permission_denied",
      /not allowed to complete onramp transactions as a guest/,
    );
  });

  it("answers guest_region_forbidden for a buyer whose phone number is not a +1 US number", async () => {
    expectError(await createOrder(sandbox, orderBody(sandbox, { phoneNumber: "+447700900123" })), "guest_region_forbidden", /only offered to US buyers/);
  });

  it("answers network_not_tradable for USDC on base bought from New York, and takes USDC on ethereum there", async () => {
    const phoneNumber = freshPhone("212");
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumber })),
      "network_not_tradable",
      /USDC cannot be bought on base by buyers in US-NY; there it can only be sent on ethereum/,
    );
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, destinationNetwork: "ethereum" }))).status).toBe(201);
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, purchaseCurrency: "ETH" }))).status).toBe(201);
  });
});

describe("guest onramp errors from the phone verification", () => {
  it("answers phone_number_verification_expired when phoneNumberVerifiedAt is more than 60 days old", async () => {
    const now = sandbox.clock.now();
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumberVerifiedAt: iso(now - 61 * DAY) })),
      "phone_number_verification_expired",
      /more than 60 days ago .* verify it again by one-time code/,
    );
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumberVerifiedAt: iso(now - 59 * DAY) }))).status).toBe(201);
  });

  it("lets a verification expire as the sandbox clock passes 60 days", async () => {
    const body = orderBody(sandbox);
    expect((await createOrder(sandbox, body)).status).toBe(201);
    sandbox.clock.advance(60 * DAY + 1000);
    expectError(await createOrder(sandbox, body), "phone_number_verification_expired", /verified at/);
    expect((await createOrder(sandbox, { ...body, phoneNumberVerifiedAt: iso(sandbox.clock.now()) })).status).toBe(201);
  });
});

describe("guest onramp errors from the buyer's counters", () => {
  it("answers guest_transaction_limit past $500 of payment totals in 168 hours, and takes the order once the window has moved on", async () => {
    const phoneNumber = freshPhone();
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "300.00" }))).status).toBe(201);
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "200.00" }))).status).toBe(201);
    expect(await limitsOf(phoneNumber)).toContainEqual({ limitType: "weekly_spending", currency: "USD", limit: "500", remaining: "0" });
    const over = await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "1.00" }));
    expectError(over, "guest_transaction_limit", /order of \$1 would exceed the buyer's weekly guest onramp limit: \$500 of \$500 used in the last 168 hours/);
    sandbox.clock.advance(168 * 3600_000);
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "1.00" }))).status).toBe(201);
  });

  it("counts purchaseAmount orders by their fee-inclusive total", async () => {
    const phoneNumber = freshPhone();
    // 490 USDC cost 490.00 + 12.25 exchange + 0.10 network = 502.35 > 500
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: undefined, purchaseAmount: "490" })),
      "guest_transaction_limit",
      /order of \$502\.35/,
    );
  });

  it("answers guest_transaction_count on the 16th order of a buyer, a lifetime count that time does not reset", async () => {
    const phoneNumber = freshPhone();
    for (let i = 0; i < 15; i++) expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "2.00" }))).status).toBe(201);
    expect(await limitsOf(phoneNumber)).toContainEqual({ limitType: "lifetime_transactions", limit: "15", remaining: "0" });
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "2.00" })),
      "guest_transaction_count",
      /lifetime guest onramp transaction count limit \(15\)/,
    );
    sandbox.clock.advance(365 * DAY);
    expectError(
      await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "2.00", phoneNumberVerifiedAt: iso(sandbox.clock.now()) })),
      "guest_transaction_count",
      /\(15\)/,
    );
  });

  it("does not count failed orders against the limits", async () => {
    const declined = "+15005550002";
    for (let i = 0; i < 16; i++) expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber: declined, paymentAmount: "100.00" }))).status).toBe(201);
  });

  it("keeps a refused order out of the store: it changes no counter", async () => {
    const phoneNumber = freshPhone();
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "450.00" }))).status).toBe(201);
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber, paymentAmount: "60.00" }))).status).toBe(400);
    expect(await limitsOf(phoneNumber)).toEqual([
      { limitType: "weekly_spending", currency: "USD", limit: "500", remaining: "50" },
      { limitType: "lifetime_transactions", limit: "15", remaining: "14" },
    ]);
  });
});

describe("the shipped guest scenarios", () => {
  it.each([
    ["guest-permission-denied", "guest_permission_denied"],
    ["guest-region-forbidden", "guest_region_forbidden"],
    ["guest-transaction-limit", "guest_transaction_limit"],
    ["guest-transaction-count", "guest_transaction_count"],
    ["phone-number-verification-expired", "phone_number_verification_expired"],
    ["network-not-tradable", "network_not_tradable"],
  ])("%s forces %s on an order that would otherwise go through", async (scenario, errorType) => {
    const res = await createOrder(sandbox, orderBody(sandbox), undefined, { "X-Sandbox-Scenario": scenario });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe(errorType);
  });
});
