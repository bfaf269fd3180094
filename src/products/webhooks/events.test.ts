/**
 * Events other domains emit inside their requests (delivered after the request
 * commits, never when it fails), the events list's filters, and the sandbox's
 * own webhook endpoints: test events, the deliveries list, flush.
 */
import { createHmac } from "node:crypto";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { apiError } from "../../errors/catalogue.js";
import { handlers } from "../index.js";
import type { AnyHandler } from "../../wallet/types.js";
import type { Received } from "#test/helpers/receiver.js";
import { call, type Credentials } from "#test/helpers/sandbox.js";
import { emitWebhookEvent } from "../../wallet/events/emit.js";
import { sandboxWithReceiver } from "#test/helpers/webhooks.js";

/** createEvmAccount as another domain would emit from it: the event is part of the request, which then may still fail. */
const emitting: Record<string, AnyHandler> = {
  ...handlers,
  createEvmAccount: async (req, ctx) => {
    const result = await handlers.createEvmAccount!(req, ctx);
    const { address } = result.body as { address: string };
    emitWebhookEvent(ctx, { eventType: "wallet.transaction.created", data: { address, network: "base", created_at: ctx.clock.iso() } });
    if ((req.body as { name?: string }).name === "fails-after-emitting") throw apiError("invalid_request", "refused after the event was emitted");
    return result;
  },
};

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "webhook-events", validateResponses: true, handlers: emitting });

const BASE = "/platform/v2/data/webhooks/subscriptions";
let paths = 0;
const newPath = () => `/events/${++paths}`;
const subscribe = async (path: string, body: Record<string, unknown>, credentials?: Credentials) =>
  (await call(sandbox, "POST", BASE, { body: { isEnabled: true, target: { url: receiver.url(path) }, ...body }, credentials })).body as {
    subscriptionId: string;
    secret: string;
  };
const createAccount = (name?: string) => call(sandbox, "POST", "/platform/v2/evm/accounts", { body: name ? { name } : {}, wallet: true });
const flush = async (credentials?: Credentials) =>
  (await call(sandbox, "POST", "/_sandbox/webhooks/flush", credentials ? { credentials } : { anonymous: true })).body;
const sendTest = (subscriptionId: string, body: Record<string, unknown> = {}) => call(sandbox, "POST", `/_sandbox/webhooks/${subscriptionId}/test`, { body });
const events = async (subscriptionId: string, query = "") =>
  (await call(sandbox, "GET", `${BASE}/${subscriptionId}/events${query}`)).body.events as Array<{ eventId: string; eventTypeName: string; status: string }>;
const signed = (r: Received, secret: string) => {
  const parts = Object.fromEntries(
    String(r.headers["x-hook0-signature"])
      .split(",")
      .map((p) => p.split("=") as [string, string]),
  );
  const values = parts
    .h!.split(" ")
    .map((n) => String(r.headers[n]))
    .join(".");
  return createHmac("sha256", secret).update(`${parts.t}.${parts.h}.${values}.${r.rawBody}`).digest("hex") === parts.v1;
};

describe("events emitted by other domains", () => {
  it("are delivered after the request that emitted them commits, to every subscription of that type", async () => {
    const [pathA, pathB, pathOther] = [newPath(), newPath(), newPath()];
    const a = await subscribe(pathA, {
      eventTypes: ["wallet.transaction.created"],
      labels: { network: "base-mainnet", "params.to": "0x0000000000000000000000000000000000000001" },
    });
    await subscribe(pathB, { eventTypes: ["wallet.transaction.created", "wallet.transaction.signed"] });
    await subscribe(pathOther, { eventTypes: ["wallet.transaction.signed"] });
    const account = (await createAccount()).body;
    await flush();
    const [got] = receiver.received(pathA);
    expect(receiver.received(pathB)).toHaveLength(1);
    expect(receiver.received(pathOther)).toHaveLength(0);
    expect(got!.headers["x-event-type"]).toBe("wallet.transaction.created");
    expect(JSON.parse(got!.rawBody)).toEqual({ address: account.address, network: "base", created_at: account.createdAt });
    expect(got!.headers["x-event-id"]).toBe(receiver.received(pathB)[0]!.headers["x-event-id"]);
    expect(signed(got!, a.secret)).toBe(true);
    expect(await events(a.subscriptionId)).toMatchObject([
      { eventId: got!.headers["x-event-id"], eventTypeName: "wallet.transaction.created", status: "succeeded" },
    ]);
  });

  it("are never recorded when the request fails", async () => {
    const path = newPath();
    const sub = await subscribe(path, { eventTypes: ["wallet.transaction.created"] });
    const res = await createAccount("fails-after-emitting");
    expect(res.status).toBe(400);
    await flush();
    expect(receiver.received(path)).toHaveLength(0);
    expect(await events(sub.subscriptionId)).toEqual([]);
  });
});

describe("the events list", () => {
  it("lists the 50 most recent events, newest first, filtered by event id, type and creation time", async () => {
    const path = newPath();
    const sub = await subscribe(path, { eventTypes: ["wallet.transaction.created", "onramp.transaction.success"] });
    const start = sandbox.clock.now();
    for (let i = 0; i < 51; i++) {
      await createAccount();
      sandbox.clock.advance(1000);
    }
    const onramp = (
      await sendTest(sub.subscriptionId, { eventType: "onramp.transaction.success", data: { orderId: "o-1", status: "ONRAMP_ORDER_STATUS_COMPLETED" } })
    ).body;
    await flush();
    const all = await events(sub.subscriptionId);
    expect(all).toHaveLength(50);
    expect(all[0]!.eventId).toBe(onramp.eventId);
    const created = await events(sub.subscriptionId, "?eventTypeNames=wallet.transaction.created");
    expect(created).toHaveLength(50);
    expect(new Set(created.map((e) => e.eventTypeName))).toEqual(new Set(["wallet.transaction.created"]));
    const times = created.map((e) => Date.parse((e as unknown as { createdAt: string }).createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(await events(sub.subscriptionId, `?eventTypeNames=onramp.transaction.success, wallet.transaction.signed`)).toMatchObject([
      { eventId: onramp.eventId },
    ]);
    expect(await events(sub.subscriptionId, `?eventId=${created[7]!.eventId}`)).toEqual([created[7]]);
    const window = `?minCreatedAt=${new Date(start + 10_000).toISOString()}&maxCreatedAt=${new Date(start + 14_000).toISOString()}`;
    expect(await events(sub.subscriptionId, window)).toHaveLength(5);
  });
});

describe("sandbox webhook endpoints", () => {
  it("sends a sample onchain event built from the subscription's labels and answers with its first attempt", async () => {
    const path = newPath();
    const labels = {
      network: "base-mainnet",
      contract_address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      event_name: "Transfer",
      "params.to": "0xf5042e6ffac5a625d4e7848e0b01373d8eb9e222",
    };
    const sub = await subscribe(path, { eventTypes: ["onchain.activity.detected"], labels });
    const res = await sendTest(sub.subscriptionId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: sub.subscriptionId,
      eventTypeName: "onchain.activity.detected",
      status: "succeeded",
      retryCount: 0,
      response: { httpCode: 200 },
    });
    expect(res.body.payload).toMatchObject({
      network: "base-mainnet",
      contract_address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      event_name: "Transfer",
      parameters: { to: getAddress(labels["params.to"]) },
    });
    const [got] = receiver.received(path);
    expect(JSON.parse(got!.rawBody)).toEqual(res.body.payload);
    expect(got!.headers["x-event-id"]).toBe(res.body.eventId);
    expect(signed(got!, sub.secret)).toBe(true);
  });

  it("refuses a test event for a disabled or unknown subscription, another event type, or a payload it cannot build", async () => {
    const disabled = await subscribe(newPath(), {
      eventTypes: ["onchain.activity.detected"],
      isEnabled: false,
      labels: { network: "base-sepolia", contract_address: "0x036cbd53842c5426634e7929541ec2318f3dcf7e" },
    });
    expect((await sendTest(disabled.subscriptionId)).body.errorMessage).toMatch(/is disabled/);
    expect((await sendTest("6b1f9e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b")).status).toBe(404);
    const transfers = await subscribe(newPath(), { eventTypes: ["payments.transfers.completed"] });
    const other = await sendTest(transfers.subscriptionId, { eventType: "onramp.transaction.success", data: {} });
    expect(other.status).toBe(400);
    expect(other.body.errorMessage).toMatch(/payments\.transfers\.completed/);
    const noData = await sendTest(transfers.subscriptionId);
    expect(noData.status).toBe(400);
    expect(noData.body.errorMessage).toMatch(/Give the payload to send as data/);
  });

  it("lists every attempt of a delivery with its payload, and flush with a project's key reports where its deliveries stand", async () => {
    const p = await sandbox.createProject();
    const credentials = { apiKeyId: p.apiKeyId, apiKeySecret: p.apiKeySecret, walletSecret: p.walletSecret };
    const path = newPath();
    receiver.answer(path, [502]);
    const sub = await subscribe(path, { eventTypes: ["customers.customer.deleted"] }, credentials);
    const first = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { customerId: "c-1" } }, credentials });
    expect(first.body).toMatchObject({ status: "retrying", retryCount: 0, response: { httpCode: 502 } });
    expect(await flush(credentials)).toEqual({
      succeeded: 0,
      retrying: 1,
      failed: 0,
      pending: 0,
      nextRetryAt: new Date(sandbox.clock.now() + 3000).toISOString(),
    });
    sandbox.clock.advance(3000);
    expect(await flush(credentials)).toEqual({ succeeded: 1, retrying: 0, failed: 0, pending: 0 });
    const list = await call(sandbox, "GET", `/_sandbox/webhooks/deliveries?subscriptionId=${sub.subscriptionId}`, { credentials });
    expect(list.body.deliveries).toHaveLength(1);
    expect(list.body.deliveries[0]).toMatchObject({
      subscriptionId: sub.subscriptionId,
      eventId: first.body.eventId,
      status: "succeeded",
      retryCount: 1,
      payload: { customerId: "c-1" },
    });
    expect(list.body.deliveries[0].attempts.map((a: { httpCode: number }) => a.httpCode)).toEqual([502, 200]);
  });
});
