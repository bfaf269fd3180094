/**
 * Webhook subscriptions over HTTP: create, get, list (newest first, paginated),
 * replace, delete, the events list of a subscription, and every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox, type Credentials } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "webhook-subscriptions", validateResponses: true });
});
afterAll(() => sandbox.close());

const BASE = "/platform/v2/data/webhooks/subscriptions";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const USDC_SEPOLIA = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
/** An onchain activity subscription: it names the contract it watches (USDC on Base Sepolia), plus these labels. */
const onchain = (labels: Record<string, string> = { network: "base-sepolia" }) => ({
  eventTypes: ["onchain.activity.detected"],
  isEnabled: true,
  target: { url: "https://example.com/hooks" },
  labels: { contract_address: USDC_SEPOLIA, ...labels },
});
const create = (body: unknown, credentials?: Credentials) => call(sandbox, "POST", BASE, { body, credentials });
const newProject = async () => {
  const p = await sandbox.createProject();
  return { apiKeyId: p.apiKeyId, apiKeySecret: p.apiKeySecret, walletSecret: p.walletSecret };
};

describe("creating and reading subscriptions", () => {
  it("creates a subscription with every field and returns the secret that signs its deliveries", async () => {
    const body = {
      description: "USDC transfers on Base Sepolia",
      eventTypes: ["onchain.activity.detected"],
      isEnabled: true,
      target: { url: "https://example.com/hooks/cdp", headers: { Authorization: "Bearer abc" } },
      metadata: { team: "payments" },
      labels: { network: "base-sepolia", contract_address: USDC_SEPOLIA, event_name: "Transfer", "params.to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" },
    };
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, metadata: { team: "payments", secret: res.body.secret } });
    expect(res.body.subscriptionId).toMatch(UUID);
    expect(res.body.secret).toMatch(UUID);
    expect(Math.abs(Date.parse(res.body.createdAt) - sandbox.clock.now())).toBeLessThan(5000);
    expect(res.body.updatedAt).toBeUndefined();
    const read = await call(sandbox, "GET", `${BASE}/${res.body.subscriptionId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("takes labels on other event types and ignores them for filtering, as the platform does", async () => {
    const res = await create({
      eventTypes: ["payments.transfers.completed"],
      isEnabled: false,
      target: { url: "http://localhost:3000/hooks" },
      labels: { anything: "goes" },
    });
    expect(res.status).toBe(201);
    expect(res.body.labels).toEqual({ anything: "goes" });
    expect(res.body.isEnabled).toBe(false);
  });

  it("answers 404 for an unknown subscription and 400 for an id that is not a UUID", async () => {
    const unknown = "6b1f9e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
    for (const [method, path, body] of [
      ["GET", `${BASE}/${unknown}`],
      ["PUT", `${BASE}/${unknown}`, onchain()],
      ["DELETE", `${BASE}/${unknown}`],
      ["GET", `${BASE}/${unknown}/events`],
    ] as const) {
      const res = await call(sandbox, method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.errorType).toBe("not_found");
    }
    expect((await call(sandbox, "GET", `${BASE}/not-a-uuid`)).status).toBe(400);
  });

  it("keeps each project's subscriptions to itself", async () => {
    const other = await newProject();
    const mine = await create(onchain());
    expect((await call(sandbox, "GET", `${BASE}/${mine.body.subscriptionId}`, { credentials: other })).status).toBe(404);
    expect((await call(sandbox, "GET", BASE, { credentials: other })).body.subscriptions).toEqual([]);
  });
});

describe("listing subscriptions", () => {
  it("lists newest first, a page at a time", async () => {
    const credentials = await newProject();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await create({ ...onchain(), description: `n${i}` }, credentials)).body.subscriptionId);
      sandbox.clock.advance(1000);
    }
    const first = await call(sandbox, "GET", `${BASE}?pageSize=2`, { credentials });
    expect(first.status).toBe(200);
    expect(first.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([ids[4], ids[3]]);
    const second = await call(sandbox, "GET", `${BASE}?pageSize=2&pageToken=${first.body.nextPageToken}`, { credentials });
    const third = await call(sandbox, "GET", `${BASE}?pageSize=2&pageToken=${second.body.nextPageToken}`, { credentials });
    expect(second.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([ids[2], ids[1]]);
    expect(third.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([ids[0]]);
    expect(third.body.nextPageToken).toBeUndefined();
  });

  it("orders subscriptions made at the same instant by creation", async () => {
    const credentials = await newProject();
    sandbox.clock.freeze(true);
    try {
      const a = (await create(onchain(), credentials)).body.subscriptionId;
      const b = (await create(onchain(), credentials)).body.subscriptionId;
      expect((await call(sandbox, "GET", BASE, { credentials })).body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([b, a]);
    } finally {
      sandbox.clock.freeze(false);
    }
  });

  it("refuses a page size out of range and a page token from elsewhere", async () => {
    expect((await call(sandbox, "GET", `${BASE}?pageSize=0`)).status).toBe(400);
    expect((await call(sandbox, "GET", `${BASE}?pageSize=101`)).status).toBe(400);
    const res = await call(sandbox, "GET", `${BASE}?pageToken=bm90LWEtdG9rZW4`);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});

describe("replacing and deleting subscriptions", () => {
  it("replaces the whole configuration, keeping the id, secret and creation time", async () => {
    const created = (await create({ ...onchain(), description: "old", metadata: { a: "1" } })).body;
    sandbox.clock.advance(60_000);
    const res = await call(sandbox, "PUT", `${BASE}/${created.subscriptionId}`, {
      body: {
        eventTypes: ["wallet.activity.detected", "onramp.transaction.success"],
        isEnabled: false,
        target: { url: "https://example.org/new", headers: { "X-Key": "k" } },
        labels: { network: "base-mainnet", "params.from": "0xB7f5BF799fB265657c628ef4a13f90f83a3a616A" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: created.subscriptionId,
      secret: created.secret,
      createdAt: created.createdAt,
      isEnabled: false,
      target: { url: "https://example.org/new", headers: { "X-Key": "k" } },
    });
    expect(res.body.description).toBeUndefined(); // a PUT replaces: fields left out are cleared
    expect(res.body.metadata).toEqual({ secret: created.secret });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(created.createdAt));
    expect((await call(sandbox, "GET", `${BASE}/${created.subscriptionId}`)).body).toEqual(res.body);
  });

  it("applies the same rules to a replacement and changes nothing when it is refused", async () => {
    const created = (await create(onchain())).body;
    const res = await call(sandbox, "PUT", `${BASE}/${created.subscriptionId}`, { body: { ...onchain({ network: "base-sepolia", color: "blue" }) } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/labels\.color is not a label/);
    expect((await call(sandbox, "GET", `${BASE}/${created.subscriptionId}`)).body).toEqual(created);
  });

  it("deletes a subscription: it is gone from get, list and events", async () => {
    const credentials = await newProject();
    const { subscriptionId } = (await create(onchain(), credentials)).body;
    const res = await call(sandbox, "DELETE", `${BASE}/${subscriptionId}`, { credentials });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await call(sandbox, "GET", `${BASE}/${subscriptionId}`, { credentials })).status).toBe(404);
    expect((await call(sandbox, "GET", `${BASE}/${subscriptionId}/events`, { credentials })).status).toBe(404);
    expect((await call(sandbox, "GET", BASE, { credentials })).body.subscriptions).toEqual([]);
    expect((await call(sandbox, "DELETE", `${BASE}/${subscriptionId}`, { credentials })).status).toBe(404);
  });
});

describe("what a subscription must satisfy", () => {
  const refusals: Array<[string, unknown, RegExp]> = [
    ["no event types", { ...onchain(), eventTypes: [] }, /at least one event type/],
    ["an unknown event type", { ...onchain(), eventTypes: ["onchain.activity.maybe"] }, /eventTypes/],
    ["no isEnabled", { eventTypes: ["onramp.transaction.success"], target: { url: "https://example.com/h" } }, /isEnabled/],
    ["a target that is not http(s)", { ...onchain(), target: { url: "ftp://example.com/hooks" } }, /url/],
    ["a description over 100 characters", { ...onchain(), description: "x".repeat(101) }, /description/],
    ["a network without onchain activity events", onchain({ network: "ethereum-mainnet" }), /base-mainnet or base-sepolia/],
    [
      "onchain activity without the contract it watches",
      { ...onchain(), labels: { network: "base-sepolia", event_name: "Transfer" } },
      /labels\.contract_address is required for onchain\.activity\.detected/,
    ],
    [
      "a label of onchain activity on wallet activity",
      { ...onchain(), eventTypes: ["wallet.activity.detected"], labels: { network: "base-sepolia", event_name: "Transfer" } },
      /labels\.event_name is not a label of wallet\.activity\.detected; use network, params\.to, params\.from/,
    ],
    ["a label the platform does not filter on", onchain({ network: "base-sepolia", color: "blue" }), /labels\.color is not a label/],
    ["an empty params label", onchain({ network: "base-sepolia", "params.": "x" }), /labels\.params\. is not a label/],
    [
      "more than 20 labels",
      onchain(Object.fromEntries([["network", "base-sepolia"], ...Array.from({ length: 20 }, (_, i) => [`params.p${i}`, "1"])])),
      /at most 20/,
    ],
    ["more than 10 metadata entries", { ...onchain(), metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])) }, /metadata/],
    ["a metadata key over 40 characters", { ...onchain(), metadata: { ["k".repeat(41)]: "v" } }, /keys are at most 40/],
    ["a metadata value over 500 characters", { ...onchain(), metadata: { k: "v".repeat(501) } }, /metadata/],
    ["its own metadata.secret", { ...onchain(), metadata: { secret: "mine" } }, /metadata\.secret is reserved/],
    [
      "a header name that is not a token",
      { ...onchain(), target: { url: "https://example.com/h", headers: { "Bad Header": "v" } } },
      /not a valid HTTP header name/,
    ],
    ["a header value with a line break", { ...onchain(), target: { url: "https://example.com/h", headers: { "X-A": "a\r\nX-B: b" } } }, /line breaks/],
    [
      "a header the delivery sets itself",
      { ...onchain(), target: { url: "https://example.com/h", headers: { "X-Hook0-Signature": "forged" } } },
      /delivery sets it itself/,
    ],
    ["the same header twice", { ...onchain(), target: { url: "https://example.com/h", headers: { "X-A": "1", "x-a": "2" } } }, /twice/],
  ];
  it.each(refusals)("refuses %s with 400 invalid_request and creates nothing", async (_name, body, message) => {
    const credentials = await newProject();
    const res = await create(body, credentials);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(message);
    expect((await call(sandbox, "GET", BASE, { credentials })).body.subscriptions).toEqual([]);
  });

  it("accepts exactly 20 labels, params.* labels, and 10 metadata entries (without the deprecated secret copy)", async () => {
    const labels = Object.fromEntries([["network", "base-mainnet"], ...Array.from({ length: 18 }, (_, i) => [`params.p${i}`, "1"])]);
    const metadata = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, "v"]));
    const res = await create({ ...onchain(labels), metadata });
    expect(res.status).toBe(201);
    expect(res.body.labels).toEqual({ contract_address: USDC_SEPOLIA, ...labels });
    expect(res.body.metadata).toEqual(metadata);
  });
});

describe("the events list of a subscription", () => {
  it("is empty for a new subscription and refuses unknown event type names and bad times", async () => {
    const { subscriptionId } = (await create(onchain())).body;
    const list = await call(sandbox, "GET", `${BASE}/${subscriptionId}/events`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ events: [] });
    const unknown = await call(sandbox, "GET", `${BASE}/${subscriptionId}/events?eventTypeNames=onchain.activity.detected,invalid.event.type`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorMessage).toBe("Unknown event type names: invalid.event.type.");
    expect((await call(sandbox, "GET", `${BASE}/${subscriptionId}/events?minCreatedAt=yesterday`)).status).toBe(400);
    expect((await call(sandbox, "GET", `${BASE}/${subscriptionId}/events?eventId=nope`)).status).toBe(400);
  });
});
