/**
 * Disbursements over HTTP: a payout from a custodial account, held at once,
 * landing on the sandbox clock — an address is paid on the ledger the node
 * serves, a Coinbase user inside Coinbase — or failing when the account could
 * not cover it; listed with the platform's filters; each transition sent as
 * its acceptance.disbursement.* webhook. Refused requests change nothing.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { rpc, tokenBalance } from "#test/helpers/afterCommit.js";
import { balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";
import { call } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, sandboxWithReceiver, subscribe } from "#test/helpers/webhooks.js";

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "disbursements" });

const D = `${P}/disbursements`;
const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) => call(sandbox, "POST", D, { body, headers });
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
/** Long enough for any payout to land. */
const settle = () => sandbox.clock.advance(10 * 60 * 1000);
async function funded(amount: string) {
  const accountId = await openAccount(sandbox);
  await fundAccount(sandbox, accountId, "usdc", amount);
  return accountId;
}

describe("createDisbursement", () => {
  it("pays an address on Base: held at once, paid from the platform's wallet when it lands, with its transaction", async () => {
    const accountId = await funded("50");
    const to = newAddress();
    const res = await create({
      source: { accountId, asset: "usdc" },
      target: { address: to, network: "base" },
      amount: "12.34",
      asset: "usdc",
      reason: "rebate",
      externalReferenceId: "rebate-7",
      metadata: { batch: "7" },
      customerDisplay: { referenceCode: "REBATE-7" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      disbursementId: expect.stringMatching(/^disbursement_[0-9a-f-]{36}$/),
      status: "pending",
      amount: "12.34",
      asset: "usdc",
      reason: "rebate",
      externalReferenceId: "rebate-7",
      metadata: { batch: "7" },
      customerDisplay: { referenceCode: "REBATE-7" },
    });
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "37.66", total: "50.00" });
    settle();
    const done = await call(sandbox, "GET", `${D}/${res.body.disbursementId}`);
    expect(done.body).toMatchObject({ status: "succeeded", onchainTransactions: [{ network: "base" }] });
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "37.66", total: "37.66" });
    expect(await tokenBalance(sandbox, "evm", "base", to, "USDC")).toBe("12340000");
    const receipt = (await rpc(sandbox, "base", "eth_getTransactionReceipt", [done.body.onchainTransactions[0].transactionHash])) as { status: string };
    expect(receipt.status).toBe("0x1");
  });

  it("pays a Coinbase user inside Coinbase: the account is debited, nothing goes onchain", async () => {
    const accountId = await funded("5");
    const res = await create({ source: { accountId, asset: "usdc" }, target: { coinbaseUserId: "cb-user-1" }, amount: "5", asset: "usdc" });
    expect(res.status, res.text).toBe(200);
    settle();
    const done = (await call(sandbox, "GET", `${D}/${res.body.disbursementId}`)).body;
    expect(done.status).toBe("succeeded");
    expect(done.onchainTransactions).toBeUndefined();
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ total: "0.00" });
  });

  it("fails when it lands if the account could not cover it, with the error, and takes nothing", async () => {
    const accountId = await funded("1");
    const res = await create({ source: { accountId, asset: "usdc" }, target: { address: newAddress(), network: "base" }, amount: "2", asset: "usdc" });
    expect(res.body.status).toBe("pending");
    settle();
    const done = (await call(sandbox, "GET", `${D}/${res.body.disbursementId}`)).body;
    expect(done).toMatchObject({ status: "failed", error: { code: "insufficient_funds" } });
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "1.00", total: "1.00" });
  });

  it("refuses an unknown account, another asset, a bad amount, an unpayable network or a malformed address, creating nothing", async () => {
    const accountId = await funded("10");
    const before = (await call(sandbox, "GET", `${D}?pageSize=100`)).body.disbursements.length;
    const target = { address: newAddress(), network: "base" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ source: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usdc" }, target, amount: "1", asset: "usdc" }, "invalid_request"],
      [{ source: { accountId, asset: "eurc" }, target, amount: "1", asset: "usdc" }, "asset_mismatch"],
      [{ source: { accountId, asset: "usdc" }, target, amount: "-1", asset: "usdc" }, "invalid_request"],
      [{ source: { accountId, asset: "usdc" }, target: { address: newAddress(), network: "sui" }, amount: "1", asset: "usdc" }, "invalid_request"],
      [{ source: { accountId, asset: "usdc" }, target: { address: "0x1234", network: "base" }, amount: "1", asset: "usdc" }, "target_onchain_address_invalid"],
    ];
    for (const [body, errorType] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorType).toBe(errorType);
    }
    expect((await call(sandbox, "GET", `${D}?pageSize=100`)).body.disbursements).toHaveLength(before);
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "10.00" });
    expect((await call(sandbox, "GET", `${D}/disbursement_00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it("is made once for one X-Idempotency-Key", async () => {
    const accountId = await funded("10");
    const body = { source: { accountId, asset: "usdc" }, target: { coinbaseUserId: "cb-user-2" }, amount: "3", asset: "usdc" };
    const first = await create(body, { "X-Idempotency-Key": "payout-1" });
    const again = await create(body, { "X-Idempotency-Key": "payout-1" });
    expect(again.body.disbursementId).toBe(first.body.disbursementId);
    expect(await balanceOf(sandbox, accountId, "usdc")).toMatchObject({ available: "7.00" });
  });
});

describe("listDisbursements", () => {
  it("filters by status, source account and external reference, in pages", async () => {
    const a = await funded("10");
    const b = await funded("10");
    const make = (accountId: string, amount: string, ref: string) =>
      create({ source: { accountId, asset: "usdc" }, target: { coinbaseUserId: "cb" }, amount, asset: "usdc", externalReferenceId: ref });
    const ok = (await make(a, "1", "ref-ok")).body.disbursementId;
    const fails = (await make(a, "100", "ref-fail")).body.disbursementId;
    const other = (await make(b, "1", "ref-b")).body.disbursementId;
    settle();
    const ids = async (query: string) =>
      (await call(sandbox, "GET", `${D}?${query}`)).body.disbursements.map((d: { disbursementId: string }) => d.disbursementId);
    expect(await ids(`sourceAccountId=${a}`)).toEqual([ok, fails]);
    expect(await ids(`sourceAccountId=${a}&status=failed`)).toEqual([fails]);
    expect(await ids("externalReferenceId=ref-b")).toEqual([other]);
    const page = await call(sandbox, "GET", `${D}?sourceAccountId=${a}&pageSize=1`);
    expect(page.body.disbursements.map((d: { disbursementId: string }) => d.disbursementId)).toEqual([ok]);
    expect(await ids(`sourceAccountId=${a}&pageSize=1&pageToken=${page.body.nextPageToken}`)).toEqual([fails]);
  });
});

describe("disbursement webhooks", () => {
  it("announce pending and then succeeded or failed, once each, with the disbursement as it stood", async () => {
    const sub = await subscribe(sandbox, receiver, ["acceptance.disbursement.pending", "acceptance.disbursement.succeeded", "acceptance.disbursement.failed"]);
    const accountId = await funded("1");
    const good = (await create({ source: { accountId, asset: "usdc" }, target: { address: newAddress(), network: "base" }, amount: "1", asset: "usdc" })).body;
    const bad = (await create({ source: { accountId, asset: "usdc" }, target: { coinbaseUserId: "cb" }, amount: "1", asset: "usdc" })).body;
    settle();
    await call(sandbox, "GET", D);
    await flush(sandbox);
    const events = await deliveredTo(sandbox, receiver, sub);
    expect(events.slice(0, 2).map((e) => [e.eventType, e.body.data.disbursementId])).toEqual([
      ["acceptance.disbursement.pending", good.disbursementId],
      ["acceptance.disbursement.pending", bad.disbursementId],
    ]);
    // Each lands on its own route's delay (a Coinbase user sooner than an address), so in either order.
    const landed = Object.fromEntries(events.slice(2).map((e) => [e.body.data.disbursementId, e.body]));
    expect(events).toHaveLength(4);
    expect(landed[good.disbursementId]).toMatchObject({ eventType: "acceptance.disbursement.succeeded", data: { status: "succeeded" } });
    expect(landed[good.disbursementId].data.onchainTransactions).toHaveLength(1);
    expect(landed[bad.disbursementId]).toMatchObject({ eventType: "acceptance.disbursement.failed", data: { error: { code: "insufficient_funds" } } });
  });
});
