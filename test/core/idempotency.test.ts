import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { recordingHandlers } from "#test/helpers/handlers.js";

const counter = { calls: 0 };
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ handlers: recordingHandlers(counter) });
});
afterAll(() => sandbox.close());

const CREATE = "/platform/v2/evm/accounts";
const recordsOf = (collection: string) => sandbox.exportState(sandbox.credentials.projectId).projects?.[0]?.records?.[collection] ?? {};
const create = (key: string, body: unknown) => call(sandbox, "POST", CREATE, { body, wallet: true, headers: { "X-Idempotency-Key": key } });

describe("X-Idempotency-Key", () => {
  it("replays the first response byte for byte for the same request", async () => {
    const before = counter.calls;
    const first = await create("key-replay-1", { name: "idem-a" });
    const second = await create("key-replay-1", { name: "idem-a" });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(counter.calls - before).toBe(1);
  });

  it("treats the same body with keys in another order as the same request", async () => {
    const first = await create("key-order-1", { name: "idem-b", accountPolicy: undefined });
    const second = await call(sandbox, "POST", CREATE, {
      rawBody: JSON.stringify({ name: "idem-b" }),
      wallet: { withReqHash: false },
      headers: { "X-Idempotency-Key": "key-order-1" },
    });
    expect(second.text).toBe(first.text);
  });

  it("answers 422 idempotency_error when the key is reused with other parameters", async () => {
    await create("key-conflict-1", { name: "idem-c" });
    const res = await create("key-conflict-1", { name: "idem-d" });
    expect(res.status).toBe(422);
    expect(res.body.errorType).toBe("idempotency_error");
    expect(res.body.errorMessage).toContain("key-conflict-1");
  });

  it("never runs the handler twice for concurrent requests with one key", async () => {
    const before = counter.calls;
    const results = await Promise.all(Array.from({ length: 6 }, () => create("key-concurrent-1", { name: "idem-e" })));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(counter.calls - before).toBe(1);
  });

  it("keeps keys per project", async () => {
    const other = await sandbox.createProject("idem-other");
    const mine = await create("key-shared-1", { name: "idem-f" });
    const theirs = await call(sandbox, "POST", CREATE, {
      credentials: other,
      body: { name: "idem-f" },
      wallet: true,
      headers: { "X-Idempotency-Key": "key-shared-1" },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.address).not.toBe(mine.body.address);
  });

  it("forgets keys after 24 hours of sandbox time", async () => {
    const first = await create("key-expiry-1", { name: "idem-g" });
    sandbox.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const second = await create("key-expiry-1", { name: "idem-g" });
    expect(second.body.address).not.toBe(first.body.address);
  });

  it("drops keys past their 24 hours when the project records the next one, so old keys do not pile up", async () => {
    await create("key-pile-1", { name: "idem-i" });
    await create("key-pile-2", { name: "idem-j" });
    const keys = () => Object.keys(recordsOf("_idempotency"));
    expect(keys()).toEqual(expect.arrayContaining(["key-pile-1", "key-pile-2"]));
    sandbox.clock.advance(24 * 60 * 60 * 1000 + 1000);
    await create("key-pile-3", { name: "idem-k" });
    expect(keys()).toEqual(["key-pile-3"]);
  });

  it("rejects a key longer than 128 characters", async () => {
    const res = await create("k".repeat(129), { name: "idem-h" });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(/x-idempotency-key/i);
  });
});
