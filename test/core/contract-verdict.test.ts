/**
 * Contract tests in CI: the sandbox tells a client's contract violation (a request refused because the caller broke
 * the contract) from an answer the state, the configuration or a scenario produced, counts what a run exercised
 * (GET /_sandbox/coverage, sandbox.coverage()), fails a strict sandbox's close() on violations, and writes reports
 * CI systems read (coverage.json against its shipped schema, junit.xml read by an independent JUnit parser,
 * summary.md).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseJunit, type TestSuites } from "junit2json";
import request from "supertest";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractViolationError, type Sandbox, startSandbox } from "cdp-sandbox";
import { startReceiver } from "#test/helpers/receiver.js";
import { call } from "#test/helpers/sandbox.js";
import { flush, subscribe } from "#test/helpers/webhooks.js";
import { expectValidCoverage } from "#test/helpers/coverage.js";

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-verdict-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a strict sandbox with a report", () => {
  let sandbox: Sandbox;
  const report = join(dir, "report");
  let closed: unknown;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: "contract-verdict", strict: true, report });
  });
  afterAll(async () => {
    if (!closed) await sandbox.close().catch(() => undefined);
  });

  it("records a request whose body breaks the contract as a violation, naming the operation, status and problem", async () => {
    const refused = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "not a valid name!" }, wallet: true });
    expect(refused.status).toBe(400);
    const [violation] = sandbox.violations();
    expect(violation).toMatchObject({
      door: "platform",
      operation: "createEvmAccount",
      check: "validation",
      status: 400,
      errorType: "invalid_request",
      count: 1,
    });
    expect(violation!.problems[0]).toMatch(/name/);
    expect(violation!.correlationId).toBe(refused.body.correlationId);
    // The journal entry says so too.
    const entry = await call(sandbox, "GET", `/_sandbox/requests/${refused.body.correlationId}`, { anonymous: true });
    expect(entry.body.entry).toMatchObject({ violation: "validation", kind: "platform" });
  });

  it("counts a 404 for an account that does not exist, a scenario's injected error and a policy-free success as coverage, not violations", async () => {
    const missing = await call(sandbox, "GET", "/platform/v2/evm/accounts/0x000000000000000000000000000000000000dEaD");
    expect(missing.status).toBe(404);
    const created = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "verdict-one" }, wallet: true });
    expect(created.status).toBe(201);
    const injected = await call(sandbox, "POST", "/platform/v2/evm/faucet", {
      body: { address: created.body.address, network: "base-sepolia", token: "eth" },
      headers: { "X-Sandbox-Scenario": "faucet-limit-exceeded" },
    });
    expect(injected.status).toBe(429);
    expect(sandbox.violations()).toHaveLength(1);
    const doc = sandbox.coverage();
    const op = (id: string) => doc.total.operations.find((o) => o.operationId === id)!;
    expect(op("getEvmAccount")).toMatchObject({ called: true, calls: 1, statuses: { "404": 1 } });
    expect(op("getEvmAccount").unseenStatuses).toContain("200");
    expect(op("createEvmAccount")).toMatchObject({ called: true, calls: 2, statuses: { "201": 1, "400": 1 } });
    expect(op("requestEvmFaucet")).toMatchObject({ statuses: { "429": 1 } });
    expect(op("listEvmAccounts")).toMatchObject({ called: false, calls: 0, statuses: {} });
    // Named as the journal names them: the scenario and the rule that fired.
    expect(doc.total.scenarios).toEqual([{ name: "faucet-limit-exceeded#1", fired: 1 }]);
    const row = (errorType: string) => doc.total.errorTable.find((r) => r.errorType === errorType)!;
    expect(row("not_found").count).toBe(1);
    expect(row("faucet_limit_exceeded").count).toBe(1);
    expect(row("invalid_request").count).toBe(1);
    expect(row("service_unavailable").count).toBe(0);
  });

  it("records mis-scoped bearer tokens, missing wallet tokens, unknown routes and the embedded-wallet API's invalid bodies as violations", async () => {
    const misScoped = await call(sandbox, "GET", "/platform/v2/evm/accounts", { bearer: { path: "/platform/v2/solana/accounts" } });
    expect(misScoped.status).toBe(401);
    const unsigned = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "no-wallet-token" } });
    expect(unsigned.status).toBe(401);
    const unknown = await call(sandbox, "GET", "/platform/v2/evm/no-such-thing");
    expect(unknown.status).toBe(404);
    // The embedded-wallet API, which an end user's client calls without credentials, is judged the same way.
    const signIn = await call(sandbox, "POST", `/platform/v2/embedded-wallet-api/projects/${sandbox.credentials.projectId}/auth/init`, {
      anonymous: true,
      body: { type: "email", email: "not an email" },
    });
    expect(signIn.status).toBe(400);
    // The body is read before the route is looked up: the violation names the request's method and path.
    const plainText = await request(sandbox.url).post("/platform/v2/evm/accounts").set("Content-Type", "text/plain").send("name=x");
    expect(plainText.status).toBe(400);
    const violations = sandbox.violations();
    expect(violations.find((v) => v.correlationId === plainText.body.correlationId)).toMatchObject({
      operation: "POST /platform/v2/evm/accounts",
      check: "body",
    });
    expect(violations.find((v) => v.correlationId === signIn.body.correlationId)).toMatchObject({ operation: "initiateAuthentication", check: "validation" });
    expect(violations.find((v) => v.correlationId === misScoped.body.correlationId)).toMatchObject({
      operation: "listEvmAccounts",
      check: "auth",
      status: 401,
    });
    expect(violations.find((v) => v.correlationId === unsigned.body.correlationId)).toMatchObject({
      operation: "createEvmAccount",
      check: "auth",
      status: 401,
    });
    expect(violations.find((v) => v.correlationId === unknown.body.correlationId)).toMatchObject({
      operation: "GET /platform/v2/evm/no-such-thing",
      check: "route",
      status: 404,
    });
  });

  it("records invalid JSON-RPC params and malformed WebSocket messages as violations, but not a method the node lacks or an account that does not exist", async () => {
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const rpc = (network: string, method: string, params: unknown[]) =>
      request(sandbox.url).post(`/rpc/v1/${network}/${token}`).send({ jsonrpc: "2.0", id: 1, method, params });
    expect((await rpc("base-sepolia", "eth_getStorageAt", ["not-an-address", "0x0", "latest"])).body.error.code).toBe(-32602);
    expect((await rpc("base-sepolia", "eth_noSuchMethod", [])).body.error.code).toBe(-32601);
    const missingAccount = await rpc("solana-devnet", "getTokenAccountBalance", ["4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"]);
    expect(missingAccount.body.error.code).toBe(-32602);
    expect((await rpc("base-sepolia", "eth_chainId", [])).body.result).toBe("0x14a34");

    const ws = new WebSocket(`${sandbox.url.replace("http", "ws")}/rpc/v1/base-sepolia/${token}`);
    await new Promise<void>((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const answered = new Promise<string>((resolve) => ws.once("message", (data) => resolve(String(data))));
    ws.send("{not json");
    expect(JSON.parse(await answered).error.code).toBe(-32700);
    ws.close();

    const rpcViolations = sandbox.violations().filter((v) => v.door !== "platform");
    expect(rpcViolations.map((v) => [v.door, v.operation, v.rpcCode])).toEqual(
      expect.arrayContaining([
        ["node", "eth_getStorageAt", -32602],
        ["websocket", "WS /rpc/v1/base-sepolia/<node token>", -32700],
      ]),
    );
    expect(rpcViolations).toHaveLength(2);
    const methods = sandbox.coverage().total.rpcMethods;
    expect(methods).toEqual(
      expect.arrayContaining([
        { door: "node", method: "eth_getStorageAt", calls: 1, outcomes: { "-32602": 1 } },
        { door: "node", method: "eth_noSuchMethod", calls: 1, outcomes: { "-32601": 1 } },
        { door: "node", method: "eth_chainId", calls: 1, outcomes: { ok: 1 } },
      ]),
    );
  });

  it("answers GET /_sandbox/coverage with the document of its schema, per project and in total, and keeps the counts when the journal is cleared", async () => {
    const cleared = await call(sandbox, "DELETE", "/_sandbox/requests", { anonymous: true });
    expect(cleared.status).toBe(200);
    const res = await call(sandbox, "GET", "/_sandbox/coverage", { anonymous: true });
    expect(res.status).toBe(200);
    expectValidCoverage(res.body);
    const doc = res.body;
    expect(doc.total.summary.violations).toBe(sandbox.violations().reduce((n, v) => n + v.count, 0));
    const project = doc.projects.find((p) => p.projectId === sandbox.credentials.projectId)!;
    expect(project.operations.find((o) => o.operationId === "createEvmAccount")).toMatchObject({ statuses: { "201": 1, "400": 1, "401": 1 } });
    // The embedded-wallet API is part of the contract the document covers.
    expect(doc.total.operations.some((o) => o.api === "embedded-wallet")).toBe(true);
    // Scoped to one project with X-Sandbox-Project.
    const scoped = await call(sandbox, "GET", "/_sandbox/coverage", { anonymous: true, headers: { "X-Sandbox-Project": sandbox.credentials.projectId } });
    expectValidCoverage(scoped.body);
    expect(scoped.body.projects).toHaveLength(1);
  });

  it("rejects close() listing the violations, after writing coverage.json, junit.xml and summary.md", async () => {
    closed = await sandbox.close().then(
      () => "resolved",
      (error: unknown) => error,
    );
    expect(closed).toBeInstanceOf(ContractViolationError);
    const error = closed as ContractViolationError;
    expect(error.message).toContain("createEvmAccount 400 invalid_request");
    expect(error.message).not.toContain("getEvmAccount");
    expect(error.violations).toHaveLength(8);

    const coverage = JSON.parse(readFileSync(join(report, "coverage.json"), "utf8"));
    expectValidCoverage(coverage);
    expect(coverage.total.violations).toEqual(error.violations);

    const junit = (await parseJunit(readFileSync(join(report, "junit.xml"), "utf8"))) as TestSuites;
    const [violations, exercised] = junit.testsuite!;
    expect(violations!.failures).toBe(error.violations.length);
    expect(violations!.testcase).toHaveLength(error.violations.length);
    expect(violations!.testcase!.every((c) => c.failure?.length === 1)).toBe(true);
    expect(violations!.testcase!.some((c) => c.name?.startsWith("createEvmAccount answered 400 invalid_request"))).toBe(true);
    expect(exercised!.failures).toBe(0);
    const names = exercised!.testcase!.map((c) => c.name);
    expect(names).toContain("getEvmAccount (GET /v2/evm/accounts/{address})");
    expect(names).toContain("eth_chainId");

    const summary = readFileSync(join(report, "summary.md"), "utf8");
    expect(summary).toContain("| Contract violations | **");
    expect(summary).toMatch(/\| createEvmAccount \| 400 invalid_request \| body/);
    // Written beside their place and renamed: no temporary file is left.
    expect(readdirSync(report).sort()).toEqual(["coverage.json", "junit.xml", "summary.md"]);
  });
});

describe("reports of a run", () => {
  it("writes an empty but valid report when no request came, and a non-strict sandbox closes without complaint", async () => {
    const report = join(dir, "empty");
    const sandbox = await startSandbox({ seed: "contract-verdict-empty", report });
    await sandbox.close();
    const coverage = JSON.parse(readFileSync(join(report, "coverage.json"), "utf8"));
    expectValidCoverage(coverage);
    expect(coverage.total.summary).toMatchObject({ operationsCalled: 0, requests: 0, violations: 0, errorTableRowsReproduced: 0 });
    const junit = (await parseJunit(readFileSync(join(report, "junit.xml"), "utf8"))) as TestSuites;
    expect(junit.tests).toBe(0);
    expect(junit.failures).toBe(0);
    expect(readFileSync(join(report, "summary.md"), "utf8")).toContain("| Contract violations | none |");
  });

  it("refuses at start a report folder that cannot be written, having started nothing", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const data = join(dir, "never-opened.json");
    await expect(startSandbox({ report: join(file, "reports"), data })).rejects.toThrow(/report folder .*a-file\/reports cannot be written/);
    expect(existsSync(data)).toBe(false);
  });

  it("does not count the caller's body as a violation when the handler refuses it from the state", async () => {
    const sandbox = await startSandbox({ seed: "contract-verdict-state", strict: true });
    const first = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "taken" }, wallet: true });
    expect(first.status).toBe(201);
    const again = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "taken" }, wallet: true });
    expect(again.status).toBe(409);
    expect(sandbox.violations()).toEqual([]);
    await expect(sandbox.close()).resolves.toBeUndefined();
  });

  it("tallies webhook deliveries by event type and outcome, and lists the failing ones with their target", async () => {
    const sandbox = await startSandbox({ seed: "contract-verdict-webhooks" });
    const receiver = await startReceiver();
    try {
      const ok = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
      const failing = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
      receiver.answer(failing.path, [500]);
      for (const sub of [ok, failing]) {
        const test = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-cov" } }, anonymous: true });
        expect(test.status).toBe(200);
      }
      await flush(sandbox);
      const doc = sandbox.coverage();
      expectValidCoverage(doc);
      expect(doc.total.webhooks).toEqual([
        {
          eventType: "onramp.transaction.success",
          deliveries: 2,
          outcomes: { "200": 1, "500": 1 },
          failing: [{ subscriptionId: failing.subscriptionId, eventId: expect.any(String), target: receiver.url(failing.path), outcome: "500", attempts: 1 }],
        },
      ]);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });
});
