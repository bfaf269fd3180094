/**
 * payments.transfers.* webhooks over HTTP: a subscription receives each
 * transition of a real transfer or deposit once, in order, in the platform's
 * envelope, signed; failed requests and other projects send nothing.
 */
import { describe, expect, it } from "vitest";
import { advance, fundAccount, openAccount, P } from "#test/helpers/money.js";
import { call, type Credentials } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const ALL = [
  "payments.transfers.quoted",
  "payments.transfers.processing",
  "payments.transfers.completed",
  "payments.transfers.failed",
  "payments.transfers.expired",
  "payments.transfers.travel_rule_incomplete",
  "payments.transfers.travel_rule_completed",
];

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "transfer-events", validateResponses: true });

async function funded(amount = "100", credentials?: Credentials) {
  const from = await openAccount(sandbox, { name: "From" }, credentials);
  const to = await openAccount(sandbox, { name: "To" }, credentials);
  await fundAccount(sandbox, from, "usdc", amount, credentials);
  return { from, to };
}
const transfer = (body: Record<string, unknown>, credentials?: Credentials) => call(sandbox, "POST", `${P}/transfers`, { body, credentials });
const iso = (ms: number) => new Date(ms).toISOString();

describe("transfer webhooks", () => {
  it("announce a quote, its execution and its completion, once each, in order, with the transfer as it was at each step", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const { from, to } = await funded();
    const createdAt = sandbox.clock.now();
    const quote = (
      await transfer({ source: { accountId: from, asset: "usdc" }, target: { accountId: to, asset: "usdc" }, amount: "40", asset: "usdc", execute: false })
    ).body;
    await flush(sandbox);
    await advance(sandbox, "1m");
    const executed = await call(sandbox, "POST", `${P}/transfers/${quote.transferId}/execute`);
    expect(executed.status).toBe(200);
    await flush(sandbox);
    await advance(sandbox, "5s");
    const done = (await call(sandbox, "GET", `${P}/transfers/${quote.transferId}`)).body;
    expect(done.status).toBe("completed");
    await call(sandbox, "GET", `${P}/transfers/${quote.transferId}`); // a second look announces nothing more
    await flush(sandbox);

    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["payments.transfers.quoted", "payments.transfers.processing", "payments.transfers.completed"]);
    for (const e of got) expect(e.body).toEqual({ eventID: e.eventId, eventType: e.eventType, timestamp: expect.any(String), data: expect.any(Object) });
    const [quoted, processing, completed] = got.map((e) => e.body);
    expect(quoted.timestamp).toBe(iso(createdAt));
    expect(quoted.data).toEqual(quote);
    expect(processing.timestamp).toBe(iso(createdAt + 60_000));
    expect(processing.data).toEqual(executed.body);
    expect(completed.timestamp).toBe(iso(createdAt + 65_000));
    expect(completed.data).toEqual(done);
    expect(new Set(got.map((e) => e.eventId)).size).toBe(3);
  });

  it("announce a quote and its processing for execute: true, and a failure with its reason when the transfer settles", async () => {
    const sub = await subscribe(sandbox, receiver, [
      "payments.transfers.quoted",
      "payments.transfers.processing",
      "payments.transfers.failed",
      "payments.transfers.completed",
    ]);
    const { from } = await funded();
    const created = await transfer({
      source: { accountId: from, asset: "usdc" },
      target: { email: "someone@nowhere.invalid", asset: "usdc" },
      amount: "10",
      asset: "usdc",
      execute: true,
    });
    expect(created.body.status).toBe("processing");
    const settlesAt = sandbox.clock.now() + 5_000;
    await advance(sandbox, "1m"); // noticed late: the event still carries the time it failed
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);

    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["payments.transfers.quoted", "payments.transfers.processing", "payments.transfers.failed"]);
    expect(got[0]!.body.data).toMatchObject({ transferId: created.body.transferId, status: "quoted", expiresAt: expect.any(String) });
    expect(got[1]!.body.data).toEqual(created.body);
    expect(got[2]!.body).toMatchObject({
      timestamp: iso(settlesAt),
      data: { status: "failed", failureReason: "Unable to send to this recipient.", updatedAt: iso(settlesAt) },
    });
  });

  it("announce a quote nobody executed as expired, once, at its expiresAt", async () => {
    const sub = await subscribe(sandbox, receiver, ["payments.transfers.expired"]);
    const { from, to } = await funded();
    const quote = (
      await transfer({ source: { accountId: from, asset: "usdc" }, target: { accountId: to, asset: "usdc" }, amount: "5", asset: "usdc", execute: false })
    ).body;
    await advance(sandbox, "15m");
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(0); // expiresAt itself still executes
    await advance(sandbox, "1s");
    const refused = await call(sandbox, "POST", `${P}/transfers/${quote.transferId}/execute`);
    expect(refused.body.errorType).toBe("transfer_quote_expired"); // a failed request: its announcement is discarded
    await call(sandbox, "GET", `${P}/accounts`);
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({
      eventType: "payments.transfers.expired",
      timestamp: quote.expiresAt,
      data: { transferId: quote.transferId, status: "quoted", expiresAt: quote.expiresAt },
    });
  });

  it("send nothing for a request that fails, nor to a subscription of other event types", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const other = await subscribe(sandbox, receiver, ["customers.customer.deleted"]);
    const { from, to } = await funded("1");
    const res = await transfer({
      source: { accountId: from, asset: "usdc" },
      target: { accountId: to, asset: "usdc" },
      amount: "50",
      asset: "usdc",
      execute: true,
    });
    expect(res.body.errorType).toBe("insufficient_balance");
    const ok = await transfer({
      source: { accountId: from, asset: "usdc" },
      target: { accountId: to, asset: "usdc" },
      amount: "1",
      asset: "usdc",
      execute: true,
    });
    expect(ok.status).toBe(200);
    await advance(sandbox, "10s");
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);
    expect((await deliveredTo(sandbox, receiver, sub)).map((e) => e.body.data.transferId)).toEqual([
      ok.body.transferId,
      ok.body.transferId,
      ok.body.transferId,
    ]);
    expect(receiver.received(other.path)).toHaveLength(0);
  });

  it("stay in their project: another project's subscription receives nothing", async () => {
    const project = (await call(sandbox, "POST", "/_sandbox/projects", { body: { name: "elsewhere" }, anonymous: true })).body as Credentials;
    const theirs = await subscribe(sandbox, receiver, ALL, project);
    const ours = await subscribe(sandbox, receiver, ALL);
    const { from, to } = await funded();
    await transfer({ source: { accountId: from, asset: "usdc" }, target: { accountId: to, asset: "usdc" }, amount: "1", asset: "usdc", execute: true });
    await advance(sandbox, "10s");
    await call(sandbox, "GET", `${P}/accounts`, { credentials: project });
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);
    expect(receiver.received(theirs.path)).toHaveLength(0);
    expect(receiver.received(ours.path)).toHaveLength(3);
  });
});

describe("deposit webhooks", () => {
  async function destination(type: "crypto" | "fiat") {
    const accountId = await openAccount(sandbox, { name: "Deposits" });
    const body = type === "crypto" ? { accountId, type, crypto: { network: "base" } } : { accountId, type, fiat: { currency: "usd" } };
    return (await call(sandbox, "POST", `${P}/deposit-destinations`, { body })).body.depositDestinationId as string;
  }
  const deposit = (id: string, body: Record<string, unknown>) =>
    call(sandbox, "POST", `/_sandbox/deposit-destinations/${id}/deposit`, { body, anonymous: true });

  it("announce a deposit arriving and being credited, with its deposit destination", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const id = await destination("crypto");
    const res = await deposit(id, { amount: "25.00" });
    expect(res.body.status).toBe("completed");
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["payments.transfers.processing", "payments.transfers.completed"]);
    expect(got[0]!.body.data).toMatchObject({ transferId: res.body.transferId, status: "processing", details: { depositDestination: { id } } });
    expect(got[1]!.body.data).toEqual(res.body);
  });

  it("announce a deposit held for travel-rule details, then their completion and the credit", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const id = await destination("crypto");
    const held = (await deposit(id, { amount: "5000.00" })).body;
    expect(held.status).toBe("processing");
    const partial = await call(sandbox, "POST", `${P}/transfers/${held.transferId}/travel-rule`, {
      body: { originator: { name: "Ada Lovelace", walletType: "custodial" } },
    });
    expect(partial.body.status).toBe("incomplete"); // still incomplete: no new transition, no event
    await flush(sandbox);
    expect((await deliveredTo(sandbox, receiver, sub)).map((e) => e.eventType)).toEqual([
      "payments.transfers.processing",
      "payments.transfers.travel_rule_incomplete",
    ]);
    const rest = { originator: { address: { countryCode: "GB" }, virtualAssetServiceProvider: { name: "Example Exchange Ltd" } } };
    const done = await call(sandbox, "POST", `${P}/transfers/${held.transferId}/travel-rule`, { body: rest });
    expect(done.body).toEqual({ status: "completed", missingFields: [] });
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([
      "payments.transfers.processing",
      "payments.transfers.travel_rule_incomplete",
      "payments.transfers.travel_rule_completed",
      "payments.transfers.completed",
    ]);
    expect(got[1]!.body.data.details.travelRule).toMatchObject({ status: "incomplete" });
    expect(got[3]!.body.data).toEqual((await call(sandbox, "GET", `${P}/transfers/${held.transferId}`)).body);
  });
});
