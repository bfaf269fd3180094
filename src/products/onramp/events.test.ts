/**
 * onramp.transaction.* webhooks over HTTP: each status a guest-checkout order
 * reaches on the sandbox clock is announced once, when the sandbox first
 * looks after reaching it, carrying the time it was reached.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createOrder, getOrder, orderBody } from "#test/helpers/onramp.js";
import { call, hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const ALL = ["onramp.transaction.created", "onramp.transaction.updated", "onramp.transaction.success", "onramp.transaction.failed"];

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "onramp-events", validateResponses: true });

const advance = (ms: number) => sandbox.clock.advance(ms);
/** An event's body: the order as the API shows it, with the event type first. */
const bodyOf = (eventType: string, order: Record<string, unknown>) => ({ eventType, ...order });

describe("onramp webhooks", () => {
  it("announce an order walked to success: created, each update, success with its txHash, each once and at the time it happened", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const created = (await createOrder(sandbox, orderBody(sandbox))).body.order;
    const id = created.orderId as string;
    await flush(sandbox);
    advance(15_000);
    const paying = (await getOrder(sandbox, id)).body.order;
    await flush(sandbox);
    advance(45_000); // PROCESSING at 30 s and COMPLETED at 60 s are first seen together
    const done = (await getOrder(sandbox, id)).body.order;
    expect(done.status).toBe("ONRAMP_ORDER_STATUS_COMPLETED");
    advance(60_000);
    await getOrder(sandbox, id);
    await flush(sandbox);

    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => [e.eventType, e.body.status])).toEqual([
      ["onramp.transaction.created", "ONRAMP_ORDER_STATUS_PENDING_AUTH"],
      ["onramp.transaction.updated", "ONRAMP_ORDER_STATUS_PENDING_PAYMENT"],
      ["onramp.transaction.updated", "ONRAMP_ORDER_STATUS_PROCESSING"],
      ["onramp.transaction.success", "ONRAMP_ORDER_STATUS_COMPLETED"],
    ]);
    expect(got[0]!.body).toEqual(bodyOf("onramp.transaction.created", created));
    expect(got[1]!.body).toEqual(bodyOf("onramp.transaction.updated", paying));
    const createdAt = Date.parse(created.createdAt);
    expect(got[2]!.body).toEqual(
      bodyOf("onramp.transaction.updated", { ...paying, status: "ONRAMP_ORDER_STATUS_PROCESSING", updatedAt: new Date(createdAt + 30_000).toISOString() }),
    );
    expect(got[3]!.body).toEqual(bodyOf("onramp.transaction.success", done));
    expect(got[3]!.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("announce an order whose payment is declined as failed, also when only another operation runs after it", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const created = (await createOrder(sandbox, orderBody(sandbox, { phoneNumber: "+15005550002" }))).body.order;
    advance(20_000);
    await call(sandbox, "GET", "/platform/v2/evm/accounts"); // the step before every request sees the order fail
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["onramp.transaction.created", "onramp.transaction.failed"]);
    expect(got[1]!.body).toEqual(bodyOf("onramp.transaction.failed", (await getOrder(sandbox, created.orderId)).body.order));
    expect(got[1]!.body.updatedAt).toBe(new Date(Date.parse(created.createdAt) + 15_000).toISOString());
  });

  it("announce success when a node call lands the delivery, without any read of the order", async () => {
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
    await createOrder(sandbox, orderBody(sandbox));
    advance(60_000);
    const path = "/apikeys/v1/tokens/active";
    const bearer = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
    const nodeToken = (await request(sandbox.url).get(path).set("Authorization", `Bearer ${bearer}`)).body.id as string;
    const rpc = await request(sandbox.url).post(`/rpc/v1/base/${nodeToken}`).send({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
    expect(rpc.body.result).toMatch(/^0x/);
    await flush(sandbox);
    expect((await deliveredTo(sandbox, receiver, sub)).map((e) => e.eventType)).toEqual(["onramp.transaction.success"]);
  });

  it("send nothing for a quote, for a refused order, or to a subscription of other event types", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const other = await subscribe(sandbox, receiver, ["payments.transfers.completed"]);
    const quote = await createOrder(sandbox, orderBody(sandbox, { isQuote: true }));
    expect(quote.status).toBe(201);
    const refused = await createOrder(sandbox, orderBody(sandbox, { phoneNumber: "+15005550001" }));
    expect(refused.body.errorType).toBe("guest_permission_denied");
    advance(120_000);
    await call(sandbox, "GET", "/platform/v2/evm/accounts");
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(0);
    expect(receiver.received(other.path)).toHaveLength(0);
  });

  it("stay in their project", async () => {
    const project = await sandbox.createProject("onramp-elsewhere");
    const theirs = await subscribe(sandbox, receiver, ALL, project);
    const ours = await subscribe(sandbox, receiver, ALL);
    await createOrder(sandbox, orderBody(sandbox));
    advance(60_000);
    await call(sandbox, "GET", "/platform/v2/evm/accounts", { credentials: project });
    await call(sandbox, "GET", "/platform/v2/evm/accounts");
    await flush(sandbox);
    expect(receiver.received(theirs.path)).toHaveLength(0);
    expect(receiver.received(ours.path)).toHaveLength(4);
  });
});
