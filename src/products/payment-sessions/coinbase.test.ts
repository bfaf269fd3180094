/**
 * Paying from a Coinbase account over HTTP: a simulated Coinbase user (made
 * through the admin API, with an OAuth access token and a passed MFA
 * challenge) reads its balances and authorizes a session; the amount is held
 * in its balance, then captured, voided or refunded as the session's state
 * machine moves. Every refusal answers the platform's error and changes
 * nothing (balances, session, challenge); tokens and challenges expire on the
 * sandbox clock. Disbursements to the user credit its balance.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { tokenBalance } from "#test/helpers/afterCommit.js";
import { balanceOf, fundAccount, openAccount } from "#test/helpers/money.js";
import { createSession, getSession, LANDS_MS, PS } from "#test/helpers/paymentSessions.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-sessions-coinbase" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const BALANCES = "/platform/v2/coinbase-accounts/balances";
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const usdcOf = async (address: string) => String(Number(await tokenBalance(sandbox, "evm", "base-sepolia", address, "USDC")) / 1e6);

interface Payer {
  coinbaseUserId: string;
  accessToken: string;
}

async function newPayer(body: Record<string, unknown> = { balances: { usdc: "25" } }): Promise<Payer> {
  const res = await call(sandbox, "POST", "/_sandbox/coinbase-users", { body, anonymous: true });
  if (res.status !== 201) throw new Error(`Coinbase user creation failed: ${res.status} ${res.text}`);
  return res.body;
}

async function challenge(payer: Payer): Promise<string> {
  const res = await call(sandbox, "POST", `/_sandbox/coinbase-users/${payer.coinbaseUserId}/authorization-challenges`, { anonymous: true });
  if (res.status !== 201) throw new Error(`challenge failed: ${res.status} ${res.text}`);
  return res.body.authorizationId;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const balancesOf = (token: string) => call(sandbox, "GET", BALANCES, { anonymous: true, headers: bearer(token) });

/** The payer's { available, total } of USDC, as the balances endpoint shows them. */
async function usdcHeld(payer: Payer): Promise<{ available: string; total: string }> {
  const res = await balancesOf(payer.accessToken);
  if (res.status !== 200) throw new Error(`balances failed: ${res.status} ${res.text}`);
  return res.body.balances[0].amount.usdc;
}

const authorize = (sessionId: string, payer: Payer, authorizationId: string, body: Record<string, unknown> = {}) =>
  call(sandbox, "POST", `${PS}/${sessionId}/authorizations/coinbase`, {
    body,
    anonymous: true,
    headers: { ...bearer(payer.accessToken), "cb-authz-id": authorizationId },
  });

describe("listCoinbaseAccountBalances", () => {
  it("answers the signed-in user's balances: USDC first (even at zero), available and total with two decimals", async () => {
    const rich = await newPayer({ email: "ada@example.com", balances: { usdc: "50.5", eurc: "3" } });
    expect(rich.coinbaseUserId).toMatch(/^coinbase_user_[a-f0-9]{24}$/);
    const res = await balancesOf(rich.accessToken);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      balances: [
        { asset: { symbol: "usdc", type: "crypto", name: "USD Coin", decimals: 6 }, amount: { usdc: { available: "50.50", total: "50.50" } } },
        { asset: { symbol: "eurc", type: "crypto", name: "Euro Coin", decimals: 6 }, amount: { eurc: { available: "3.00", total: "3.00" } } },
      ],
    });
    const empty = await newPayer({});
    expect((await balancesOf(empty.accessToken)).body.balances).toEqual([
      { asset: { symbol: "usdc", type: "crypto", name: "USD Coin", decimals: 6 }, amount: { usdc: { available: "0.00", total: "0.00" } } },
    ]);
  });

  it("refuses a CDP API key (403), no token or one the sandbox never issued (401), and a token without the balance scope (403)", async () => {
    const withKey = await call(sandbox, "GET", BALANCES);
    expect(withKey.status).toBe(403);
    expect(withKey.body.errorType).toBe("forbidden");
    const none = await call(sandbox, "GET", BALANCES, { anonymous: true });
    expect([none.status, none.body.errorType]).toEqual([401, "unauthorized"]);
    const unknown = await balancesOf("cbsbx_000000000000000000000000000000000000000000000000");
    expect([unknown.status, unknown.body.errorType]).toEqual([401, "unauthorized"]);
    expect(unknown.body.correlationId).toBeTruthy();
    const payer = await newPayer();
    const narrow = await call(sandbox, "POST", `/_sandbox/coinbase-users/${payer.coinbaseUserId}/access-tokens`, {
      body: { scopes: ["coinbase:stablecoins:payment-create"] },
      anonymous: true,
    });
    expect(narrow.status, narrow.text).toBe(201);
    const refused = await balancesOf(narrow.body.accessToken);
    expect([refused.status, refused.body.errorType]).toEqual([403, "forbidden"]);
  });

  it("refuses an access token once its hour has passed on the sandbox clock; a new token works", async () => {
    const payer = await newPayer();
    sandbox.clock.advance(60 * 60 * 1000 - 1);
    expect((await balancesOf(payer.accessToken)).status).toBe(200);
    sandbox.clock.advance(1);
    const expired = await balancesOf(payer.accessToken);
    expect([expired.status, expired.body.errorType]).toEqual([401, "unauthorized"]);
    expect(expired.body.errorMessage).toMatch(/expired/);
    const fresh = await call(sandbox, "POST", `/_sandbox/coinbase-users/${payer.coinbaseUserId}/access-tokens`, { body: {}, anonymous: true });
    expect(fresh.body.scopes).toEqual(["coinbase:stablecoins:balance-read", "coinbase:stablecoins:payment-create"]);
    expect((await balancesOf(fresh.body.accessToken)).status).toBe(200);
  });
});

describe("authorizeCoinbasePaymentSession", () => {
  it("holds the amount in the payer's Coinbase balance; the capture pays the merchant onchain and releases the rest; a refund credits the payer", async () => {
    const payer = await newPayer();
    const merchant = newAddress();
    const s = await createSession(sandbox, merchant, "10.00");
    const res = await authorize(s.paymentSessionId, payer, await challenge(payer), { metadata: { order: "C-1" }, externalReferenceId: "auth-1" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      paymentSessionId: s.paymentSessionId,
      status: "pending",
      amount: "10.00",
      source: { coinbaseUserId: payer.coinbaseUserId },
      metadata: { order: "C-1" },
      externalReferenceId: "auth-1",
    });
    expect(await usdcHeld(payer)).toEqual({ available: "15.00", total: "25.00" });
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("authorization_pending");

    sandbox.clock.advance(LANDS_MS);
    const authorized = await getSession(sandbox, s.paymentSessionId);
    expect(authorized).toMatchObject({ status: "authorization_succeeded", source: { coinbaseUserId: payer.coinbaseUserId } });
    expect(authorized.balances.capturable).toBe("10.00");
    expect(authorized.authorizations[0].status).toBe("succeeded");

    const capture = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/captures`, { body: { amount: "6", finalCapture: true } });
    expect(capture.status, capture.text).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    const captured = await getSession(sandbox, s.paymentSessionId);
    expect(captured.status).toBe("capture_succeeded");
    expect(captured.captures[0].onchainTransactions).toHaveLength(1);
    expect(await usdcOf(merchant)).toBe("6");
    // 25 − 6 captured; the 4 a final capture leaves are released.
    expect(await usdcHeld(payer)).toEqual({ available: "19.00", total: "19.00" });

    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "5");
    const refund = await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/refunds`, { body: { source: { accountId, asset: "usdc" }, amount: "2" } });
    expect(refund.status, refund.text).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    expect((await getSession(sandbox, s.paymentSessionId)).refunds[0]).toMatchObject({ status: "succeeded", amount: "2.00" });
    expect(await usdcHeld(payer)).toEqual({ available: "21.00", total: "21.00" });
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "3.00", total: "3.00" });
    const admin = await call(sandbox, "GET", `/_sandbox/coinbase-users/${payer.coinbaseUserId}`, { anonymous: true });
    expect(admin.body.balances[0].amount.usdc).toEqual({ available: "21.00", total: "21.00" });
  });

  it("pays a session whose target is a custodial account, which no wallet can pay; a void gives the hold back", async () => {
    const payer = await newPayer({ balances: { usdc: "30" } });
    const accountId = await openAccount(sandbox);
    const toAccount = { amount: "12", asset: "usdc", target: { accountId, asset: "usdc" } };
    const paid = (await call(sandbox, "POST", PS, { body: toAccount })).body;
    expect((await authorize(paid.paymentSessionId, payer, await challenge(payer))).status).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    expect((await call(sandbox, "POST", `${PS}/${paid.paymentSessionId}/captures`, { body: { finalCapture: true } })).status).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "12.00", total: "12.00" });
    expect(await usdcHeld(payer)).toEqual({ available: "18.00", total: "18.00" });
    // Paid on no network, it is refunded from a custodial account only; the refund lands in the payer's Coinbase balance.
    const fromAddress = await call(sandbox, "POST", `${PS}/${paid.paymentSessionId}/refunds`, { body: { source: { address: newAddress() }, amount: "1" } });
    expect([fromAddress.status, fromAddress.body.errorType]).toEqual([400, "invalid_request"]);
    expect(
      (await call(sandbox, "POST", `${PS}/${paid.paymentSessionId}/refunds`, { body: { source: { accountId, asset: "usdc" }, amount: "1" } })).status,
    ).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "11.00", total: "11.00" });
    expect(await usdcHeld(payer)).toEqual({ available: "19.00", total: "19.00" });

    const voided = (await call(sandbox, "POST", PS, { body: toAccount })).body;
    expect((await authorize(voided.paymentSessionId, payer, await challenge(payer))).status).toBe(200);
    expect(await usdcHeld(payer)).toEqual({ available: "7.00", total: "19.00" });
    sandbox.clock.advance(LANDS_MS);
    expect((await call(sandbox, "POST", `${PS}/${voided.paymentSessionId}/voids`, { body: {} })).status).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    expect((await getSession(sandbox, voided.paymentSessionId)).status).toBe("void_succeeded");
    expect(await usdcHeld(payer)).toEqual({ available: "19.00", total: "19.00" });
  });

  it("captures at once with autoCapture", async () => {
    const payer = await newPayer({ balances: { usdc: "4" } });
    const merchant = newAddress();
    const s = await createSession(sandbox, merchant, "4", { autoCapture: true });
    expect((await authorize(s.paymentSessionId, payer, await challenge(payer))).status).toBe(200);
    sandbox.clock.advance(2 * LANDS_MS);
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("capture_succeeded");
    expect(await usdcOf(merchant)).toBe("4");
    expect(await usdcHeld(payer)).toEqual({ available: "0.00", total: "0.00" });
  });

  it("refuses every bad request with the platform's error and changes nothing: balance, session and challenge stay as they were", async () => {
    const payer = await newPayer({ balances: { usdc: "5" } });
    const other = await newPayer();
    const s = await createSession(sandbox, newAddress(), "5.00");
    const big = await createSession(sandbox, newAddress(), "5.01");
    const passed = await challenge(payer);
    const unchanged = async () => {
      expect(await usdcHeld(payer)).toEqual({ available: "5.00", total: "5.00" });
      expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("created");
      expect((await getSession(sandbox, big.paymentSessionId)).status).toBe("created");
    };
    const refusals: Array<[string, () => Promise<{ status: number; body: any; text: string }>, number, string]> = [
      ["a challenge nobody passed", () => authorize(s.paymentSessionId, payer, "0b0c53a4-3f1e-4c2a-9d7e-2f6a1b8c9d0e"), 404, "mfa_challenge_not_found"],
      ["another payer's challenge", async () => authorize(s.paymentSessionId, payer, await challenge(other)), 404, "mfa_challenge_not_found"],
      ["a balance short of the amount", () => authorize(big.paymentSessionId, payer, passed), 400, "insufficient_balance"],
      ["a session that does not exist", () => authorize("paymentSession_00000000-0000-4000-8000-000000000000", payer, passed), 404, "not_found"],
      [
        "a CDP API key",
        () => call(sandbox, "POST", `${PS}/${s.paymentSessionId}/authorizations/coinbase`, { body: {}, headers: { "cb-authz-id": passed } }),
        403,
        "forbidden",
      ],
      [
        "no token",
        () => call(sandbox, "POST", `${PS}/${s.paymentSessionId}/authorizations/coinbase`, { body: {}, anonymous: true, headers: { "cb-authz-id": passed } }),
        401,
        "unauthorized",
      ],
      ["a token the sandbox never issued", () => authorize(s.paymentSessionId, { ...payer, accessToken: "not-a-token" }, passed), 401, "unauthorized"],
    ];
    for (const [what, send, status, errorType] of refusals) {
      const res = await send();
      expect([what, res.status, res.body.errorType], res.text).toEqual([what, status, errorType]);
      await unchanged();
    }
    const readOnly = await call(sandbox, "POST", `/_sandbox/coinbase-users/${payer.coinbaseUserId}/access-tokens`, {
      body: { scopes: ["coinbase:stablecoins:balance-read"] },
      anonymous: true,
    });
    const noScope = await authorize(s.paymentSessionId, { ...payer, accessToken: readOnly.body.accessToken }, passed);
    expect([noScope.status, noScope.body.errorType]).toEqual([403, "forbidden"]);
    await unchanged();

    // The challenge survived every refusal: it still pays, once.
    expect((await authorize(s.paymentSessionId, payer, passed)).status).toBe(200);
    const reused = await authorize(big.paymentSessionId, payer, passed);
    expect([reused.status, reused.body.errorType]).toEqual([404, "mfa_challenge_not_found"]);
    const again = await authorize(s.paymentSessionId, payer, await challenge(payer));
    expect([again.status, again.body.errorType]).toEqual([400, "payment_session_action_pending"]);
    expect(await usdcHeld(payer)).toEqual({ available: "0.00", total: "5.00" });
    expect((await getSession(sandbox, s.paymentSessionId)).authorizations).toHaveLength(1);
  });

  it("refuses a challenge five minutes after it was passed, on the sandbox clock", async () => {
    const payer = await newPayer();
    const s = await createSession(sandbox, newAddress(), "1");
    const passed = await challenge(payer);
    sandbox.clock.advance(5 * 60 * 1000);
    const late = await authorize(s.paymentSessionId, payer, passed);
    expect([late.status, late.body.errorType]).toEqual([404, "mfa_challenge_not_found"]);
    expect(late.body.errorMessage).toMatch(/expired/);
    expect(await usdcHeld(payer)).toEqual({ available: "25.00", total: "25.00" });
    expect((await getSession(sandbox, s.paymentSessionId)).status).toBe("created");

    const fresh = await challenge(payer);
    sandbox.clock.advance(5 * 60 * 1000 - 1);
    expect((await authorize(s.paymentSessionId, payer, fresh)).status).toBe(200);
  });
});

describe("Coinbase users of another project", () => {
  it("pay their own project's sessions (the token names the project) and cannot find another project's", async () => {
    const other = (await call(sandbox, "POST", "/_sandbox/projects", { body: {}, anonymous: true })).body;
    const made = await call(sandbox, "POST", "/_sandbox/coinbase-users", { body: { balances: { usdc: "3" } }, credentials: other });
    const payer: Payer = made.body;
    expect((await balancesOf(payer.accessToken)).body.balances[0].amount.usdc).toEqual({ available: "3.00", total: "3.00" });
    const theirs = await call(sandbox, "POST", PS, {
      body: { amount: "1", asset: "usdc", target: { address: newAddress(), network: "base-sepolia" } },
      credentials: other,
    });
    const ours = await createSession(sandbox, newAddress(), "1");
    const passed = (await call(sandbox, "POST", `/_sandbox/coinbase-users/${payer.coinbaseUserId}/authorization-challenges`, { credentials: other })).body
      .authorizationId;
    const elsewhere = await authorize(ours.paymentSessionId, payer, passed);
    expect([elsewhere.status, elsewhere.body.errorType]).toEqual([404, "not_found"]);
    expect((await authorize(theirs.body.paymentSessionId, payer, passed)).status).toBe(200);
    expect(await usdcHeld(payer)).toEqual({ available: "2.00", total: "3.00" });
  });
});

describe("disbursements to a Coinbase user", () => {
  it("credit a simulated user's balance when they land; an unknown coinbaseUserId is still paid", async () => {
    const payer = await newPayer({});
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "10");
    const pay = (coinbaseUserId: string) =>
      call(sandbox, "POST", "/platform/v2/disbursements", {
        body: { source: { accountId, asset: "usdc" }, target: { coinbaseUserId }, amount: "3", asset: "usdc" },
      });
    const known = await pay(payer.coinbaseUserId);
    const unknown = await pay("coinbase_user_somebody");
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(await usdcHeld(payer)).toEqual({ available: "0.00", total: "0.00" });
    sandbox.clock.advance(10 * 60 * 1000);
    expect((await call(sandbox, "GET", `/platform/v2/disbursements/${known.body.disbursementId}`)).body.status).toBe("succeeded");
    expect((await call(sandbox, "GET", `/platform/v2/disbursements/${unknown.body.disbursementId}`)).body.status).toBe("succeeded");
    expect(await usdcHeld(payer)).toEqual({ available: "3.00", total: "3.00" });
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "4.00", total: "4.00" });
  });
});

describe("Coinbase users through the admin API", () => {
  it("refuses a taken email (409), an asset a Coinbase user does not hold here (400) and an unknown user (404)", async () => {
    await newPayer({ email: "taken@example.com" });
    const taken = await call(sandbox, "POST", "/_sandbox/coinbase-users", { body: { email: "TAKEN@example.com" }, anonymous: true });
    expect([taken.status, taken.body.errorType]).toEqual([409, "already_exists"]);
    const eth = await call(sandbox, "POST", "/_sandbox/coinbase-users", { body: { balances: { eth: "1" } }, anonymous: true });
    expect(eth.status).toBe(400);
    const missing = "/_sandbox/coinbase-users/coinbase_user_000000000000000000000000";
    expect((await call(sandbox, "GET", missing, { anonymous: true })).status).toBe(404);
    expect((await call(sandbox, "POST", `${missing}/authorization-challenges`, { anonymous: true })).status).toBe(404);
    expect((await call(sandbox, "POST", `${missing}/access-tokens`, { body: {}, anonymous: true })).status).toBe(404);
  });
});
