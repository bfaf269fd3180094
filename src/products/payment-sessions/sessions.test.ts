/**
 * The merchant's session over HTTP: created with its deadlines (defaults and
 * checks), listed and read, canceled before anyone pays; every refused
 * request answers the platform's error and leaves nothing behind. The Coinbase
 * account operations refuse callers without a Coinbase sign-in here; paying
 * from a Coinbase account is coinbase.test.ts.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { fundAccount, openAccount } from "#test/helpers/money.js";
import { createSession, fundUsdc, getSession, payFromWallet, PS, walletOptions } from "#test/helpers/paymentSessions.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-sessions" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const DAY = 24 * 60 * 60 * 1000;
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const create = (body: Record<string, unknown>) => call(sandbox, "POST", PS, { body });
const count = async () => (await call(sandbox, "GET", `${PS}?pageSize=100`)).body.paymentSessions.length as number;

describe("createPaymentSession", () => {
  it("creates a session to an address, with 1, 7 and 30 day deadlines by default, and reads it back", async () => {
    const merchant = newAddress();
    const now = sandbox.clock.now();
    const res = await create({
      amount: "12.5",
      asset: "USDC",
      target: { address: merchant, network: "base-sepolia" },
      metadata: { order: "A-1" },
      externalReferenceId: "order-A-1",
      customerDisplay: { name: "Ada" },
    });
    expect(res.status, res.text).toBe(200);
    const s = res.body;
    expect(s).toMatchObject({
      paymentSessionId: expect.stringMatching(/^paymentSession_[0-9a-f-]{36}$/),
      amount: "12.50",
      asset: "usdc",
      target: { address: merchant, network: "base-sepolia" },
      autoCapture: false,
      status: "created",
      balances: { capturable: "0", captured: "0", refundable: "0", refunded: "0" },
      metadata: { order: "A-1" },
      externalReferenceId: "order-A-1",
      expiries: {
        authorizationExpiresAt: new Date(now + DAY).toISOString(),
        captureExpiresAt: new Date(now + 7 * DAY).toISOString(),
        refundExpiresAt: new Date(now + 30 * DAY).toISOString(),
      },
    });
    // The merchant gave no order code: the session gets one, which its actions show the payer unless they have their own.
    expect(s.customerDisplay).toEqual({ name: "Ada", orderCode: expect.stringMatching(/^ORD-[0-9A-F]{10}$/) });
    expect(s.x402Url).toBe(`${sandbox.url}/platform/v2/payment-sessions/${s.paymentSessionId}/authorizations/x402`);
    expect(await getSession(sandbox, s.paymentSessionId)).toEqual(s);
  });

  it("refuses a non-stablecoin, a bad amount, deadlines out of order or past, an unknown account and an unpayable network, creating nothing", async () => {
    const before = await count();
    const now = sandbox.clock.now();
    const target = { address: newAddress(), network: "base-sepolia" };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: "1", asset: "eth", target }, /asset eth/],
      [{ amount: "0", asset: "usdc", target }, /amount 0/],
      [{ amount: "1.0000001", asset: "usdc", target }, /at most 6 decimals/],
      [{ amount: "1", asset: "usdc", target, expiries: { authorizationExpiresAt: new Date(now - 1000).toISOString() } }, /not in the future/],
      [
        {
          amount: "1",
          asset: "usdc",
          target,
          expiries: { authorizationExpiresAt: new Date(now + 2 * DAY).toISOString(), captureExpiresAt: new Date(now + DAY).toISOString() },
        },
        /in order/,
      ],
      [{ amount: "1", asset: "usdc", target: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usdc" } }, /not an account/],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
      expect(res.body.errorMessage).toMatch(message);
    }
    expect(await count()).toBe(before);
  });

  it("lists sessions in pages, oldest first", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createSession(sandbox, newAddress(), `${i + 1}`)).paymentSessionId);
    const all: string[] = [];
    let token: string | undefined;
    do {
      const res = await call(sandbox, "GET", `${PS}?pageSize=2${token ? `&pageToken=${token}` : ""}`);
      expect(res.status).toBe(200);
      all.push(...res.body.paymentSessions.map((s: { paymentSessionId: string }) => s.paymentSessionId));
      token = res.body.nextPageToken;
    } while (token);
    expect(all.slice(-3)).toEqual(ids);
  });

  it("takes a custodial account as the payee; only a Coinbase account could pay it, so wallet options are refused", async () => {
    const accountId = await openAccount(sandbox);
    const res = await create({ amount: "5", asset: "usdc", target: { accountId, asset: "usdc" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.x402Url).toBeUndefined();
    const options = await walletOptions(sandbox, res.body.paymentSessionId, [newAddress()]);
    expect(options.status).toBe(400);
    expect(options.body.errorMessage).toMatch(/Coinbase account/);
  });
});

describe("cancelPaymentSession", () => {
  it("cancels a created session with its reason; afterwards every action is refused with payment_session_already_canceled", async () => {
    const s = await createSession(sandbox, newAddress());
    const res = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/cancel`, { body: { cancellationReason: "customer left" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "canceled", cancellationReason: "customer left" });
    const again = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/cancel`, { body: {} });
    expect(again.body.errorType).toBe("payment_session_already_canceled");
    expect((await walletOptions(sandbox, s.paymentSessionId, [newAddress()])).body.errorType).toBe("payment_session_already_canceled");
    const capture = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/captures`, { body: { finalCapture: true } });
    expect(capture.body.errorType).toBe("payment_session_already_canceled");
    expect((await getSession(sandbox, s.paymentSessionId)).cancellationReason).toBe("customer left");
  });

  it("refuses to cancel while an authorization is pending, and once authorized", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "10000000");
    const s = await createSession(sandbox, newAddress(), "10");
    await payFromWallet(sandbox, s.paymentSessionId, payer);
    const pending = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/cancel`, { body: {} });
    expect(pending.body.errorType).toBe("payment_session_action_pending");
    sandbox.clock.advance(2000);
    const held = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/cancel`, { body: {} });
    expect(held.status).toBe(400);
    expect(held.body.errorType).toBe("invalid_request");
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("authorization_succeeded");
  });

  it("answers 404 for a session of no project, and for another project's session", async () => {
    const s = await createSession(sandbox, newAddress());
    const other = (await call(sandbox, "POST", "/_sandbox/projects", { body: {}, anonymous: true })).body;
    const res = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/cancel`, { body: {}, credentials: other });
    expect(res.status).toBe(404);
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("created");
  });
});

describe("the payer's Coinbase account", () => {
  it("refuses a CDP API key with 403 and a missing or unverifiable Coinbase token with 401", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "10");
    const s = await createSession(sandbox, newAddress());
    const path = `${PS}/${s.paymentSessionId}/authorizations/coinbase`;
    // cb-authz-id names the payer's passed MFA challenge; without it the request is malformed (400) before anything else.
    expect((await call(sandbox, "POST", path, { body: {} })).status).toBe(400);
    const mfa = { "cb-authz-id": "5b0c53a4-3f1e-4c2a-9d7e-2f6a1b8c9d0e" };
    const withKey = await call(sandbox, "POST", path, { body: {}, headers: mfa });
    expect(withKey.status, withKey.text).toBe(403);
    expect(withKey.body.errorType).toBe("forbidden");
    expect((await call(sandbox, "POST", path, { body: {}, anonymous: true, headers: mfa })).status).toBe(401);
    const balances = await call(sandbox, "GET", "/platform/v2/coinbase-accounts/balances", { anonymous: true, headers: { Authorization: "Bearer abc" } });
    expect(balances.status).toBe(401);
    expect((await call(sandbox, "GET", "/platform/v2/coinbase-accounts/balances")).status).toBe(403);
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("created");
  });
});
