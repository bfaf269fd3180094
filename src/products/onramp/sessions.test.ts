/**
 * Hosted-page sessions: the single-use onramp URL served by the sandbox (a
 * second visit fails), its 5-minute lifetime, one-click sessions and quotes,
 * and the errors of createOnrampSession.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { EVM_DESTINATION, openPage, SOLANA_DESTINATION } from "#test/helpers/onramp.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-sessions", validateResponses: true });
});
afterAll(() => sandbox.close());

const basic = { purchaseCurrency: "USDC", destinationNetwork: "base", destinationAddress: EVM_DESTINATION };
const createSession = (body: Record<string, unknown>) => call(sandbox, "POST", "/platform/v2/onramp/sessions", { body });

describe("a session's onramp URL", () => {
  it("is served by the sandbox and works the first time it is opened", async () => {
    const res = await createSession({ ...basic, redirectUrl: "https://example.com/done", partnerUserRef: "user-7" });
    expect(res.status).toBe(201);
    expect(res.body.quote).toBeUndefined();
    const url = res.body.session.onrampUrl as string;
    expect(url).toMatch(new RegExp(`^${sandbox.url}/_sandbox/onramp/buy\\?sessionToken=[A-Za-z0-9_-]{32}$`));
    const page = await openPage(url);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: "onramp", ...basic, redirectUrl: "https://example.com/done", partnerUserRef: "user-7" });
  });

  it("fails clearly the second time: it is single-use", async () => {
    const url = (await createSession(basic)).body.session.onrampUrl as string;
    expect((await openPage(url)).status).toBe(200);
    const second = await openPage(url);
    expect(second.status).toBe(403);
    expect(second.body.errorType).toBe("forbidden");
    expect(second.body.errorMessage).toMatch(/single-use and was already opened at .*create a new session/);
  });

  it("renders a small HTML page for a browser", async () => {
    const url = (await createSession(basic)).body.session.onrampUrl as string;
    const page = await openPage(url, "text/html,application/xhtml+xml");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.text).toContain("<h1>Buy crypto</h1>");
  });

  it("expires unused after 5 minutes of sandbox time", async () => {
    const url = (await createSession(basic)).body.session.onrampUrl as string;
    sandbox.clock.advance(5 * 60_000 + 1);
    const late = await openPage(url);
    expect(late.status).toBe(403);
    expect(late.body.errorMessage).toMatch(/expired unused/);
  });

  it("is not found with a token the sandbox never issued, and asks for the token when it is missing", async () => {
    expect((await openPage(`${sandbox.url}/_sandbox/onramp/buy?sessionToken=never-issued`)).status).toBe(404);
    const missing = await openPage(`${sandbox.url}/_sandbox/onramp/buy`);
    expect(missing.status).toBe(400);
    expect(missing.body.errorMessage).toMatch(/sessionToken/);
  });
});

describe("one-click sessions and quotes", () => {
  it("returns no quote for a one-click session without paymentMethod and region", async () => {
    const res = await createSession({ ...basic, paymentAmount: "100.00", paymentCurrency: "USD" });
    expect(res.status).toBe(201);
    expect(res.body.quote).toBeUndefined();
    expect((await openPage(res.body.session.onrampUrl)).body).toMatchObject({ paymentAmount: "100.00", paymentCurrency: "USD" });
  });

  it("returns a quote with paymentMethod, country and subdivision", async () => {
    const res = await createSession({ ...basic, paymentAmount: "100.00", paymentCurrency: "USD", paymentMethod: "CARD", country: "US", subdivision: "CA" });
    expect(res.status).toBe(201);
    expect(res.body.quote).toEqual({
      paymentTotal: "100.00",
      paymentSubtotal: "97.46",
      paymentCurrency: "USD",
      purchaseAmount: "97.460000",
      purchaseCurrency: "USDC",
      destinationNetwork: "base",
      fees: [
        { type: "FEE_TYPE_EXCHANGE", amount: "2.44", currency: "USD" },
        { type: "FEE_TYPE_NETWORK", amount: "0.10", currency: "USD" },
      ],
      exchangeRate: "1",
    });
    expect((await openPage(res.body.session.onrampUrl)).body.quote).toEqual(res.body.quote);
  });

  it("quotes other fiat currencies at the table's rates, outside the US without a subdivision", async () => {
    const res = await createSession({
      ...basic,
      purchaseCurrency: "ETH",
      paymentAmount: "100.00",
      paymentCurrency: "EUR",
      paymentMethod: "CARD",
      country: "FR",
    });
    expect(res.body.quote).toMatchObject({
      paymentCurrency: "EUR",
      paymentSubtotal: "97.47",
      purchaseAmount: "0.03508920",
      exchangeRate: "0.00036",
      fees: [{ amount: "2.44" }, { amount: "0.09", currency: "EUR" }],
    });
  });

  it("quotes a purchaseAmount fee-exclusive, with the lower ACH fee", async () => {
    const res = await createSession({
      ...basic,
      destinationNetwork: "solana",
      destinationAddress: SOLANA_DESTINATION,
      purchaseAmount: "10",
      paymentCurrency: "USD",
      paymentMethod: "ACH",
      country: "US",
      subdivision: "TX",
    });
    expect(res.body.quote).toMatchObject({
      purchaseAmount: "10.000000",
      paymentSubtotal: "10.00",
      paymentTotal: "10.20",
      fees: [{ amount: "0.15" }, { amount: "0.05" }],
    });
  });
});

describe("session errors", () => {
  it("answers network_not_tradable for USDC on base in New York", async () => {
    const res = await createSession({ ...basic, country: "US", subdivision: "NY" });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("network_not_tradable");
    expect((await createSession({ ...basic, destinationNetwork: "ethereum", country: "US", subdivision: "NY" })).status).toBe(201);
  });

  it.each([
    ["both amounts", { paymentAmount: "10", purchaseAmount: "10", paymentCurrency: "USD" }, /not both/],
    ["an amount without paymentCurrency", { paymentAmount: "10" }, /needs paymentCurrency/],
    ["a malformed amount", { paymentAmount: "ten", paymentCurrency: "USD" }, /paymentAmount must be a decimal/],
    ["an unsupported fiat currency", { paymentAmount: "10", paymentCurrency: "JPY" }, /paymentCurrency JPY is not supported/],
    ["an address invalid for the network", { destinationAddress: SOLANA_DESTINATION }, /not valid for base/],
    [
      "an asset not sold on the network",
      { purchaseCurrency: "cbBTC", destinationNetwork: "solana", destinationAddress: SOLANA_DESTINATION },
      /cbBTC cannot be bought on solana/,
    ],
    ["a country that is not a two-letter code", { country: "USA" }, /ISO 3166-1 two-letter/],
    ["a subdivision without a country", { subdivision: "NY" }, /needs country/],
  ])("refuses %s with 400 invalid_request", async (_case, overrides, message) => {
    const res = await createSession({ ...basic, ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(message);
  });
});
