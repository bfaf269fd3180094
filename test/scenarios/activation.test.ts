/**
 * How scenarios are switched on: per request (X-Sandbox-Scenario,
 * X-Sandbox-Error), per project or for everyone at run time (admin API), and
 * at start (--scenario); plus rule timing (nth, times) and phase "after",
 * where the operation happens and is kept although the answer is an error.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { recordingHandlers } from "#test/helpers/handlers.js";
import { call, withSandbox, type Credentials } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

const LIST = "/platform/v2/evm/accounts";
let sandbox: Sandbox;
let other: Credentials;

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "scenario-activation", handlers: recordingHandlers() });
  other = await sandbox.createProject("other");
});
afterAll(() => sandbox.close());

/** Admin calls scoped to a project carry that project's bearer token. */
async function admin(method: "get" | "post" | "delete", path: string, o: { body?: unknown; as?: Credentials } = {}) {
  const host = new URL(sandbox.url).host;
  let req = request(sandbox.url)[method](`/_sandbox${path}`);
  if (o.as) {
    const pathname = new URL(`/_sandbox${path}`, sandbox.url).pathname;
    req = req.set("Authorization", `Bearer ${await mintBearer(o.as.apiKeyId, o.as.apiKeySecret, { method: method.toUpperCase(), host, path: pathname })}`);
  }
  return o.body === undefined ? req : req.send(o.body as object);
}

describe("per-request flags", () => {
  it("X-Sandbox-Error injects any catalogue case, with status and message overrides", async () => {
    const res = await call(sandbox, "GET", LIST, { headers: { "X-Sandbox-Error": "service_unavailable;status=503;message=down for a bit" } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ errorType: "service_unavailable", errorMessage: "down for a bit" });
  });

  it("X-Sandbox-Error carries the body fields the platform's error table adds to a case (customer_not_authorized's capabilities)", async () => {
    const res = await call(sandbox, "GET", LIST, { headers: { "X-Sandbox-Error": "customer_not_authorized" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errorType: "customer_not_authorized", unauthorizedCapabilities: [expect.any(String)] });
    // A scenario that names its own fields keeps them.
    const named = await admin("post", "/scenarios", {
      body: {
        scenario: {
          name: "own-fields",
          rules: [{ match: { operationId: "listEvmAccounts" }, error: "customer_not_authorized", fields: { unauthorizedCapabilities: ["custodyFiat"] } }],
        },
      },
    });
    expect(named.status).toBe(201);
    expect((await call(sandbox, "GET", LIST)).body.unauthorizedCapabilities).toEqual(["custodyFiat"]);
    expect((await admin("delete", "/scenarios?name=own-fields")).status).toBe(200);
  });

  it("X-Sandbox-Error with an unknown case is a clear 400 and nothing else happens", async () => {
    const res = await call(sandbox, "GET", LIST, { headers: { "X-Sandbox-Error": "no_such_case" } });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(/no_such_case/);
  });

  it("X-Sandbox-Scenario with an unknown name is a clear 400", async () => {
    const res = await call(sandbox, "GET", LIST, { headers: { "X-Sandbox-Scenario": "nope" } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/nope/);
  });

  it("phase=after: the operation happens and is kept, the client sees a 5xx, and an idempotent retry replays the real answer", async () => {
    const headers = { "X-Idempotency-Key": "after-phase-1", "X-Sandbox-Error": "internal_server_error;phase=after" };
    const failed = await call(sandbox, "POST", LIST, { body: { name: "after-phase" }, wallet: true, headers });
    expect(failed.status).toBe(500);
    expect(failed.body.errorType).toBe("internal_server_error");
    const listed = await call(sandbox, "GET", LIST);
    const created = listed.body.accounts.filter((a: { name?: string }) => a.name === "after-phase");
    expect(created).toHaveLength(1);
    const retry = await call(sandbox, "POST", LIST, { body: { name: "after-phase" }, wallet: true, headers: { "X-Idempotency-Key": "after-phase-1" } });
    expect(retry.status).toBe(201);
    expect(retry.body.address).toBe(created[0].address);
    expect(retry.headers["x-sandbox-idempotent-replay"]).toBe("true");
  });

  it("phase before (the default): the operation does not happen", async () => {
    const failed = await call(sandbox, "POST", LIST, { body: { name: "before-phase" }, wallet: true, headers: { "X-Sandbox-Error": "internal_server_error" } });
    expect(failed.status).toBe(500);
    const listed = await call(sandbox, "GET", LIST);
    expect(listed.body.accounts.filter((a: { name?: string }) => a.name === "before-phase")).toHaveLength(0);
  });
});

describe("run-time activation through /_sandbox/scenarios", () => {
  it("scopes a scenario to the caller's project", async () => {
    const on = await admin("post", "/scenarios", { body: { name: "rate-limit-exceeded" }, as: sandbox.credentials });
    expect(on.status).toBe(201);
    expect(on.body.scope).toBe("project");
    const mine = await call(sandbox, "GET", LIST);
    expect(mine.status).toBe(429);
    expect(mine.headers["retry-after"]).toBe("1");
    const theirs = await call(sandbox, "GET", LIST, { credentials: other });
    expect(theirs.status).toBe(200);
    const off = await admin("delete", "/scenarios?name=rate-limit-exceeded", { as: sandbox.credentials });
    expect(off.status).toBe(200);
    expect((await call(sandbox, "GET", LIST)).status).toBe(200);
  });

  it("applies to every project when activated without a token", async () => {
    await admin("post", "/scenarios", { body: { name: "service-unavailable" } });
    expect((await call(sandbox, "GET", LIST)).status).toBe(503);
    expect((await call(sandbox, "GET", LIST, { credentials: other })).status).toBe(503);
    await admin("delete", "/scenarios");
    expect((await call(sandbox, "GET", LIST, { credentials: other })).status).toBe(200);
  });

  it("accepts inline scenarios with timing: only the 2nd matching call fails", async () => {
    const scenario = { name: "second-list-fails", rules: [{ match: { operationId: "listEvmAccounts" }, when: { nth: 2 }, error: "bad_gateway" }] };
    const on = await admin("post", "/scenarios", { body: { scenario }, as: sandbox.credentials });
    expect(on.status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(sandbox, "GET", LIST)).status);
    expect(statuses).toEqual([200, 502, 200]);
    await admin("delete", "/scenarios", { as: sandbox.credentials });
  });

  it("rejects a broken inline scenario with a message naming the field, and activates nothing", async () => {
    const res = await admin("post", "/scenarios", { body: { scenario: { name: "broken", rules: [{ error: "not_a_case" }] } }, as: sandbox.credentials });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(/error/);
    const listed = await admin("get", "/scenarios", { as: sandbox.credentials });
    expect(listed.body.active).toEqual([]);
  });

  it("404s for an unknown shipped name", async () => {
    const res = await admin("post", "/scenarios", { body: { name: "no-such-scenario" } });
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("not_found");
  });
});

describe("--scenario at start", () => {
  it("is active for every project from the first request", async () => {
    const limited = await withSandbox({ scenario: ["rate-limit-exceeded"] });
    try {
      const res = await call(limited, "GET", LIST);
      expect(res.status).toBe(429);
      expect(res.body.errorType).toBe("rate_limit_exceeded");
    } finally {
      await limited.close();
    }
  });

  it("refuses to start with an unknown scenario", async () => {
    await expect(withSandbox({ scenario: ["no-such-scenario"] })).rejects.toThrow(/no-such-scenario/);
  });
});
