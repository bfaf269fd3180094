/**
 * The transfer state machine over HTTP, on the sandbox clock: quote →
 * expiry → execute refused without moving money; quote → execute →
 * processing → completed with balances moved exactly once (also when the
 * execute is retried); execute: true; list and get.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { advance, balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "transfers", validateResponses: true });
  await call(sandbox, "POST", "/_sandbox/clock", { body: { freeze: true }, anonymous: true });
});
afterAll(() => sandbox.close());

async function fundedPair(amount = "100") {
  const from = await openAccount(sandbox, { name: "From" });
  const to = await openAccount(sandbox, { name: "To" });
  await fundAccount(sandbox, from, "usdc", amount);
  return { from, to };
}
const toAccount = (from: string, to: string, amount: string, execute = false) => ({
  source: { accountId: from, asset: "usdc" },
  target: { accountId: to, asset: "usdc" },
  amount,
  asset: "usdc",
  execute,
});

describe("quoting", () => {
  it("creates a quoted transfer with its fees and an expiresAt 15 minutes ahead on the sandbox clock; no money moves", async () => {
    const { from } = await fundedPair();
    const body = {
      source: { accountId: from, asset: "usdc" },
      target: { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", network: "base", asset: "usdc" },
      amount: "25",
      asset: "usdc",
      execute: false,
      metadata: { invoice: "1042" },
    };
    const res = await call(sandbox, "POST", `${P}/transfers`, { body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "quoted",
      source: body.source,
      target: body.target,
      sourceAmount: "25.00",
      sourceAsset: "usdc",
      targetAmount: "24.99",
      targetAsset: "usdc",
      fees: [{ type: "network", amount: "0.01", asset: "usdc" }],
      metadata: { invoice: "1042" },
    });
    expect(res.body.transferId).toMatch(/^transfer_[0-9a-f-]{36}$/);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(15 * 60_000);
    expect(res.body.createdAt).toBe(new Date(sandbox.clock.now()).toISOString());
    expect(res.body.executedAt).toBeUndefined();
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "100.00", total: "100.00" });
  });

  it("validateOnly answers the quote and keeps nothing", async () => {
    const { from, to } = await fundedPair();
    const res = await call(sandbox, "POST", `${P}/transfers`, { body: { ...toAccount(from, to, "10", true), validateOnly: true } });
    expect(res.status).toBe(200);
    expect(res.body.transferId).toBeUndefined();
    expect(res.body).toMatchObject({ sourceAmount: "10.00", targetAmount: "10.00", fees: [] });
    expect((await call(sandbox, "GET", `${P}/transfers?accountId=${from}`)).body.transfers).toEqual([]);
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "100.00", total: "100.00" });
  });
});

describe("executing a quote", () => {
  it("refuses to execute after expiresAt with transfer_quote_expired, and the transfer never moves money", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "40") });
    await advance(sandbox, "15m1s");
    const res = await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("transfer_quote_expired");
    expect(res.body.errorMessage).toContain(quote.body.expiresAt);
    await advance(sandbox, "1h");
    const after = await call(sandbox, "GET", `${P}/transfers/${quote.body.transferId}`);
    expect(after.body.status).toBe("quoted");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "100.00", total: "100.00" });
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "0.00", total: "0.00" });
  });

  it("executes right up to expiresAt", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "40") });
    await advance(sandbox, "15m");
    expect((await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`)).status).toBe(200);
  });

  it("goes quoted → processing (funds held) → completed once the clock passes its settlement, moving balances exactly once", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "40") });
    const id = quote.body.transferId;
    const headers = { "X-Idempotency-Key": `exec-${id}` };
    const executed = await call(sandbox, "POST", `${P}/transfers/${id}/execute`, { headers });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ status: "processing", executedAt: new Date(sandbox.clock.now()).toISOString() });
    expect(executed.body.expiresAt).toBeUndefined();
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "60.00", total: "100.00" });

    const replay = await call(sandbox, "POST", `${P}/transfers/${id}/execute`, { headers });
    expect(replay.status).toBe(200);
    expect(replay.headers["x-sandbox-idempotent-replay"]).toBe("true");
    expect(replay.body).toEqual(executed.body);

    await advance(sandbox, "4s");
    expect((await call(sandbox, "GET", `${P}/transfers/${id}`)).body.status).toBe("processing");
    await advance(sandbox, "1s");
    const done = await call(sandbox, "GET", `${P}/transfers/${id}`);
    expect(done.body.status).toBe("completed");
    expect(done.body.completedAt).toBe(new Date(Date.parse(executed.body.executedAt) + 5000).toISOString());
    expect(done.body.updatedAt).toBe(done.body.completedAt);

    await call(sandbox, "POST", `${P}/transfers/${id}/execute`, { headers });
    await advance(sandbox, "1h");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "60.00", total: "60.00" });
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "40.00", total: "40.00" });
  });

  it("refuses a second execute without the idempotency key (400), naming the transfer's status", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "40") });
    await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`);
    const again = await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`);
    expect(again.status).toBe(400);
    expect(again.body.errorType).toBe("invalid_request");
    expect(again.body.errorMessage).toMatch(/is processing/);
    await advance(sandbox, "10s");
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "40.00", total: "40.00" });
  });

  it("answers 404 for executing an unknown transfer", async () => {
    const res = await call(sandbox, "POST", `${P}/transfers/transfer_00000000-0000-4000-8000-000000000000/execute`);
    expect(res.status).toBe(404);
  });

  it("starts at once with execute: true, holding the funds, and settles on the clock", async () => {
    const { from, to } = await fundedPair();
    const res = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "30", true) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("processing");
    expect(res.body.executedAt).toBe(res.body.createdAt);
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "70.00", total: "100.00" });
    await advance(sandbox, "5s");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "70.00", total: "70.00" });
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "30.00", total: "30.00" });
  });

  it("completes a due transfer once POST /_sandbox/clock has advanced past its settlement time", async () => {
    const { from, to } = await fundedPair();
    const res = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "30", true) });
    await advance(sandbox, "5s");
    const listed = await call(sandbox, "GET", `${P}/transfers?transferId=${res.body.transferId}`);
    expect(listed.body.transfers[0].status).toBe("completed");
  });

  it("keeps the transfer-succeeds-then-500 scenario: the transfer exists and a retry with the same key replays it", async () => {
    const { from, to } = await fundedPair();
    const headers = { "X-Sandbox-Scenario": "transfer-succeeds-then-500", "X-Idempotency-Key": "ts500" };
    const failed = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "10", true), headers });
    expect(failed.status).toBe(500);
    const listed = await call(sandbox, "GET", `${P}/transfers?sourceAccountId=${from}`);
    expect(listed.body.transfers).toHaveLength(1);
    const retry = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "10", true), headers: { "X-Idempotency-Key": "ts500" } });
    expect(retry.status).toBe(200);
    expect(retry.body.transferId).toBe(listed.body.transfers[0].transferId);
    await advance(sandbox, "5s");
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "10.00", total: "10.00" });
  });

  it("keeps the quote-expired-on-execute scenario: the clock jumps 16 minutes and the execute answers transfer_quote_expired", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "10") });
    const res = await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`, {
      headers: { "X-Sandbox-Scenario": "quote-expired-on-execute" },
    });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("transfer_quote_expired");
  });
});

describe("reading transfers", () => {
  it("gets a transfer by id and answers 404 for another project's", async () => {
    const { from, to } = await fundedPair();
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: toAccount(from, to, "10") });
    const got = await call(sandbox, "GET", `${P}/transfers/${quote.body.transferId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(quote.body);
    const other = await sandbox.createProject();
    expect((await call(sandbox, "GET", `${P}/transfers/${quote.body.transferId}`, { credentials: other })).status).toBe(404);
  });

  it("lists with the platform's filters and pages", async () => {
    const project = await sandbox.createProject();
    const a = await openAccount(sandbox, {}, project);
    const b = await openAccount(sandbox, {}, project);
    await fundAccount(sandbox, a, "usdc", "100", project);
    const post = (body: object) => call(sandbox, "POST", `${P}/transfers`, { body, credentials: project });
    const t1 = (await post(toAccount(a, b, "5"))).body;
    const t2 = (await post({ ...toAccount(a, b, "5", true) })).body;
    await advance(sandbox, "1m");
    const t3 = (
      await post({ source: { accountId: a, asset: "usdc" }, target: { email: "Pay@Example.com", asset: "usdc" }, amount: "5", asset: "usdc", execute: false })
    ).body;
    const t4 = (
      await post({
        source: { accountId: a, asset: "usdc" },
        target: { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", network: "base", asset: "usdc" },
        amount: "5",
        asset: "usdc",
        execute: false,
      })
    ).body;
    const ids = async (query: string) =>
      (await call(sandbox, "GET", `${P}/transfers${query}`, { credentials: project })).body.transfers.map((t: { transferId: string }) => t.transferId);
    expect(await ids("")).toEqual([t1.transferId, t2.transferId, t3.transferId, t4.transferId]);
    expect(await ids("?status=completed")).toEqual([t2.transferId]);
    expect(await ids("?status=quoted")).toEqual([t1.transferId, t3.transferId, t4.transferId]);
    expect(await ids(`?accountId=${b}`)).toEqual([t1.transferId, t2.transferId]);
    expect(await ids(`?targetAccountId=${b}`)).toEqual([t1.transferId, t2.transferId]);
    expect(await ids(`?sourceAccountId=${b}`)).toEqual([]);
    expect(await ids(`?targetEmail=pay@example.com`)).toEqual([t3.transferId]);
    expect(await ids(`?targetAddress=0x70997970c51812dc3a010c7d01b50e0d17dc79c8`)).toEqual([t4.transferId]);
    expect(await ids(`?createdAfter=${encodeURIComponent(t3.createdAt)}`)).toEqual([t3.transferId, t4.transferId]);
    expect(await ids(`?createdBefore=${encodeURIComponent(t2.createdAt)}`)).toEqual([t1.transferId, t2.transferId]);
    expect(await ids(`?updatedAfter=${encodeURIComponent(t3.createdAt)}`)).toEqual([t3.transferId, t4.transferId]);
    expect(await ids(`?sourceAsset=usdc&targetAsset=usdc`)).toHaveLength(4);
    expect(await ids(`?targetAsset=eth`)).toEqual([]);
    expect(await ids(`?transferId=${t2.transferId}&pageSize=1`)).toEqual([t2.transferId]);
    const page = await call(sandbox, "GET", `${P}/transfers?pageSize=3`, { credentials: project });
    expect(page.body.transfers).toHaveLength(3);
    expect(await ids(`?pageSize=3&pageToken=${page.body.nextPageToken}`)).toEqual([t4.transferId]);
  });

  it("refuses accountId together with sourceAccountId or targetAccountId", async () => {
    const a = "account_00000000-0000-4000-8000-000000000000";
    const res = await call(sandbox, "GET", `${P}/transfers?accountId=${a}&sourceAccountId=${a}`);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/cannot be combined/);
  });
});
