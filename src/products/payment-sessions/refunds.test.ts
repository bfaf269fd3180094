/**
 * Refunds over HTTP: drawn from the merchant's custodial account (held at
 * once, paid to the payer when it lands) or from an address that approved the
 * payment escrow; at most what was captured and not yet refunded, before the
 * refund deadline. A refused refund holds and moves nothing.
 */
import { encodeFunctionData, parseAbi, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { tokenBalance } from "#test/helpers/afterCommit.js";
import { balanceOf, fundAccount, openAccount } from "#test/helpers/money.js";
import { createSession, fundUsdc, getSession, LANDS_MS, payFromWallet, PS, USDC } from "#test/helpers/paymentSessions.js";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-sessions-refunds" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const land = () => sandbox.clock.advance(LANDS_MS);
const usdc = async (address: string) => String(Number(await tokenBalance(sandbox, "evm", "base-sepolia", address, "USDC")) / 1e6);
const refund = (id: string, body: Record<string, unknown>) => call(sandbox, "POST", `${PS}/${id}/refunds`, { body });

/** A session of `amount` paid to `merchant`, authorized and fully captured. */
async function captured(merchant: string, amount = "10", extra: Record<string, unknown> = {}) {
  const payer = privateKeyToAccount(generatePrivateKey());
  await fundUsdc(sandbox, payer.address, "100000000");
  const s = await createSession(sandbox, merchant, amount, extra);
  const { option } = await payFromWallet(sandbox, s.paymentSessionId, payer);
  land();
  await call(sandbox, "POST", `${PS}/${s.paymentSessionId}/captures`, { body: { finalCapture: true } });
  land();
  return { id: s.paymentSessionId as string, payer, escrow: option.payloads[0].data.message.to as `0x${string}` };
}

describe("refunds from a custodial account", () => {
  it("holds the amount at once and pays the payer when it lands; partial refunds add up to what was captured", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "20");
    const { id, payer } = await captured(privateKeyToAccount(generatePrivateKey()).address);
    const source = { accountId, asset: "usdc" };
    const first = await refund(id, { source, amount: "4", reason: "one item returned" });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ paymentSessionId: id, status: "pending", amount: "4.00", source, reason: "one item returned" });
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "16.00", total: "20.00" });
    expect(await usdc(payer.address)).toBe("90");
    land();
    expect(await usdc(payer.address)).toBe("94");
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "16.00", total: "16.00" });
    expect(await getSession(sandbox, id)).toMatchObject({
      status: "refund_succeeded",
      balances: { capturable: "0", captured: "10.00", refundable: "6.00", refunded: "4.00" },
    });

    const tooMuch = await refund(id, { source, amount: "6.01" });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errorType).toBe("invalid_request");
    const rest = await refund(id, { source });
    expect(rest.body.amount).toBe("6.00");
    land();
    expect(await usdc(payer.address)).toBe("100");
    expect((await refund(id, { source })).body.errorType).toBe("no_refundable_balance");
    const list = await call(sandbox, "GET", `${PS}/${id}/refunds`);
    expect(list.body.refunds.map((r: { status: string }) => r.status)).toEqual(["succeeded", "succeeded"]);
    expect((await call(sandbox, "GET", `${PS}/${id}/refunds/${first.body.refundId}`)).body.onchainTransactions).toHaveLength(1);
  });

  it("refuses another asset, an account short of funds and a session with nothing captured, holding nothing", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "3");
    const { id } = await captured(privateKeyToAccount(generatePrivateKey()).address);
    const mismatch = await refund(id, { source: { accountId, asset: "eurc" } });
    expect(mismatch.body.errorType).toBe("asset_mismatch");
    const short = await refund(id, { source: { accountId, asset: "usdc" }, amount: "5" });
    expect(short.status).toBe(400);
    expect(short.body.errorType).toBe("insufficient_balance");
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "3.00", total: "3.00" });
    expect((await getSession(sandbox, id)).refunds).toBeUndefined();

    const fresh = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address);
    expect((await refund(fresh.paymentSessionId, { source: { accountId, asset: "usdc" } })).body.errorType).toBe("no_refundable_balance");
  });

  it("refuses a refund after refundExpiresAt", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "20");
    const now = sandbox.clock.now();
    const deadline = (ms: number) => new Date(now + ms).toISOString();
    const { id } = await captured(privateKeyToAccount(generatePrivateKey()).address, "10", {
      expiries: { authorizationExpiresAt: deadline(60_000), captureExpiresAt: deadline(60_000), refundExpiresAt: deadline(120_000) },
    });
    sandbox.clock.advance(121_000);
    const late = await refund(id, { source: { accountId, asset: "usdc" } });
    expect(late.status).toBe(400);
    expect(late.body.errorType).toBe("refund_expired");
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "20.00" });
  });
  it("fails a refund made before refundExpiresAt that lands after it: the payer is not paid and the hold is released", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "20");
    const now = sandbox.clock.now();
    const deadline = (ms: number) => new Date(now + ms).toISOString();
    const { id, payer } = await captured(privateKeyToAccount(generatePrivateKey()).address, "10", {
      expiries: { authorizationExpiresAt: deadline(60_000), captureExpiresAt: deadline(60_000), refundExpiresAt: deadline(120_000) },
    });
    sandbox.clock.advance(now + 120_000 - sandbox.clock.now() - 1_000);
    const late = await refund(id, { source: { accountId, asset: "usdc" }, amount: "4" });
    expect(late.status, late.text).toBe(200);
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "16.00", total: "20.00" });
    land();
    const s = await getSession(sandbox, id);
    expect(s).toMatchObject({ status: "refund_failed", balances: { captured: "10.00", refundable: "10.00", refunded: "0" } });
    expect(s.refunds[0]).toMatchObject({ status: "failed", error: { code: "refund_expired" } });
    expect(s.refunds[0].onchainTransactions).toBeUndefined();
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "20.00", total: "20.00" });
    expect(await usdc(payer.address)).toBe("90");
    expect((await refund(id, { source: { accountId, asset: "usdc" } })).body.errorType).toBe("refund_expired");
  });
});

describe("refunds from an address", () => {
  it("needs the address to have approved the escrow: refused with insufficient_allowance before, drawn with transferFrom after", async () => {
    const merchant = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address: merchant, amount: "1000000000000000" });
    const { id, payer, escrow } = await captured(merchant, "10");
    expect(await usdc(merchant)).toBe("10");

    const before = await refund(id, { source: { address: merchant }, amount: "3" });
    expect(before.status).toBe(400);
    expect(before.body.errorType).toBe("insufficient_allowance");
    expect(before.body.errorMessage).toContain(escrow);

    const approve = encodeFunctionData({
      abi: parseAbi(["function approve(address spender, uint256 value)"]),
      functionName: "approve",
      args: [escrow, 3_000_000n],
    });
    const sent = await call(sandbox, "POST", `/platform/v2/evm/accounts/${merchant}/send/transaction`, {
      body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: USDC, data: approve }) },
      wallet: true,
    });
    expect(sent.status, sent.text).toBe(200);
    sandbox.clock.advance(4000);

    const res = await refund(id, { source: { address: merchant }, amount: "3" });
    expect(res.status, res.text).toBe(200);
    land();
    expect(await usdc(merchant)).toBe("7");
    expect(await usdc(payer.address)).toBe("93");
    // The allowance is spent: a second refund needs a new approval.
    expect((await refund(id, { source: { address: merchant }, amount: "1" })).body.errorType).toBe("insufficient_allowance");
  });
});
