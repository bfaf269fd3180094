/**
 * Faults after the commit on the payment paths: payment-session captures and
 * refunds, and disbursements. Each attempt happens and is kept, then the
 * client gets an error or a broken connection instead of the answer; the
 * session, the account and the ledger show the effect once it lands, a retry
 * with the same X-Idempotency-Key replays the real answer without a second
 * effect, and one without it performs the effect again, marked
 * X-Sandbox-Duplicate-Of.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { faultAfter, outcome, repeated, replayed, switchOnAfterCommitFaults, tokenBalance } from "#test/helpers/afterCommit.js";
import { balanceOf, fundAccount, openAccount } from "#test/helpers/money.js";
import { createSession, fundUsdc, getSession, LANDS_MS, payFromWallet, PS } from "#test/helpers/paymentSessions.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "after-commit-payments" });
  sandbox.clock.freeze(true);
  await switchOnAfterCommitFaults(sandbox);
});
afterAll(() => sandbox.close());

const key = (k: string) => ({ "X-Idempotency-Key": k });
const land = () => sandbox.clock.advance(LANDS_MS);
const usdcUnits = (address: string) => tokenBalance(sandbox, "evm", "base-sepolia", address, "USDC");

/** A session of 10 USDC paid to a fresh merchant address, authorized (and landed). */
async function authorized() {
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  const payer = privateKeyToAccount(generatePrivateKey());
  await fundUsdc(sandbox, payer.address, "10000000");
  const s = await createSession(sandbox, merchant, "10");
  expect((await payFromWallet(sandbox, s.paymentSessionId, payer)).res.status).toBe(200);
  land();
  return { merchant, payer, id: s.paymentSessionId as string };
}

describe("payment-session captures", () => {
  it("a 502 after the capture, yet it was made and pays the merchant; a keyless retry captures again", async () => {
    const { merchant, id } = await authorized();
    const capture = (headers: Record<string, string>) => call(sandbox, "POST", `${PS}/${id}/captures`, { body: { amount: "3", finalCapture: false }, headers });

    const lost = await outcome(capture({ ...key("capture-1"), "X-Sandbox-Error": "bad_gateway;phase=after" }));
    expect(lost.status).toBe(502);
    expect(lost.answer?.body.errorType).toBe("bad_gateway");
    const session = await getSession(sandbox, id);
    expect(session.captures).toHaveLength(1);
    expect(session.status).toBe("capture_pending");
    land();
    expect(await usdcUnits(merchant)).toBe("3000000");

    const replay = await replayed(capture(key("capture-1")));
    expect(replay.body.captureId).toBe(session.captures[0].captureId);
    land();
    expect(await usdcUnits(merchant)).toBe("3000000");

    const again = await repeated(sandbox, capture({}), lost);
    expect(again.body.captureId).not.toBe(replay.body.captureId);
    land();
    expect(await usdcUnits(merchant)).toBe("6000000");
    expect((await getSession(sandbox, id)).balances).toMatchObject({ capturable: "4.00", captured: "6.00" });
  });
});

describe("payment-session refunds", () => {
  it("the connection resets after the refund, yet the account's funds are held and the payer is paid back", async () => {
    const { payer, id } = await authorized();
    await call(sandbox, "POST", `${PS}/${id}/captures`, { body: { finalCapture: true } });
    land();
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "20");
    const refund = (headers: Record<string, string>) =>
      call(sandbox, "POST", `${PS}/${id}/refunds`, { body: { source: { accountId, asset: "usdc" }, amount: "2" }, headers });

    const lost = await outcome(refund({ ...key("refund-1"), ...faultAfter("reset") }));
    expect(lost.error).toBe("ECONNRESET");
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "18.00" });
    land();
    expect(await usdcUnits(payer.address)).toBe("2000000");
    const replay = await replayed(refund(key("refund-1")));
    expect(replay.body.refundId).toBe((await getSession(sandbox, id)).refunds[0].refundId);

    await repeated(sandbox, refund({}), lost);
    land();
    expect(await usdcUnits(payer.address)).toBe("4000000");
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "16.00", total: "16.00" });
  });
});

describe("disbursements", () => {
  it("a 500 after the disbursement, yet it was made and lands; a retry with the key makes no second one", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "10");
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const create = (headers: Record<string, string>) =>
      call(sandbox, "POST", "/platform/v2/disbursements", {
        body: { source: { accountId, asset: "usdc" }, target: { address: to, network: "base" }, amount: "4", asset: "usdc" },
        headers,
      });

    const lost = await outcome(create({ ...key("payout-1"), "X-Sandbox-Error": "internal_server_error;phase=after" }));
    expect(lost.status).toBe(500);
    const listed = (await call(sandbox, "GET", `/platform/v2/disbursements?sourceAccountId=${accountId}`)).body.disbursements;
    expect(listed).toHaveLength(1);
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "6.00" });

    const replay = await replayed(create(key("payout-1")));
    expect(replay.body.disbursementId).toBe(listed[0].disbursementId);
    await repeated(sandbox, create({}), lost);
    sandbox.clock.advance(10 * 60 * 1000);
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "2.00", total: "2.00" });
    expect(await tokenBalance(sandbox, "evm", "base", to, "USDC")).toBe("8000000");
  });
});
