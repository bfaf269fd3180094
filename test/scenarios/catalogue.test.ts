/**
 * Every shipped scenario does what it says, over HTTP: each is switched on for
 * one request with the X-Sandbox-Scenario header, against an operation its
 * rules match, and the answer is checked against the error catalogue (status,
 * errorType, error body), the raw answer, the fault or the clock jump.
 */
import { readdirSync } from "node:fs";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { OperationIndex, type Operation } from "../../src/contract/operations.js";
import { catalogue, isErrorCase } from "../../src/errors/catalogue.js";
import { defaultSpecPath, scenariosDir } from "../../src/paths.js";
import { loadShippedScenarios } from "../../src/scenarios/load.js";
import type { Rule, Scenario } from "../../src/scenarios/model.js";
import { recordingHandlers } from "#test/helpers/handlers.js";
import { generateRequest, type GeneratedRequest } from "#test/helpers/requests.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let index: OperationIndex;
const shipped = [...loadShippedScenarios(scenariosDir).values()];

beforeAll(async () => {
  index = new OperationIndex(await loadCompiledOperations(defaultSpecPath));
  sandbox = await withSandbox({ auth: "none", seed: "scenario-catalogue", handlers: recordingHandlers() });
});
afterAll(() => sandbox.close());

function ruleMatches(rule: Rule, op: Operation): boolean {
  const m = rule.match;
  if (m.operationId && !m.operationId.includes(op.operationId)) return false;
  if (m.method && m.method !== op.method) return false;
  if (m.path && !m.path.test(op.pathTemplate.replace(/\{[^}]+\}/g, "x"))) return false;
  return !m.headers && !m.body;
}

/** A valid request to some operation the rule matches (the plainest: GET /v2/evm/accounts when it matches anything). */
function requestFor(rule: Rule): { op: Operation; req: GeneratedRequest } {
  const preferred = index.get("listEvmAccounts")!;
  const candidates = [preferred, ...index.all].filter((op) => ruleMatches(rule, op));
  for (const op of candidates) {
    const req = generateRequest(op);
    if (req) return { op, req };
  }
  throw new Error(`no operation can be called for rule ${rule.name}`);
}

const send = (op: Operation, req: GeneratedRequest, scenario: string) =>
  call(sandbox, op.method, `/platform${req.path}`, { anonymous: true, headers: { ...req.headers, "X-Sandbox-Scenario": scenario }, body: req.body });

describe("the shipped scenario catalogue", () => {
  it("ships one loadable scenario per file, each listed by the admin API", async () => {
    const files = readdirSync(scenariosDir).filter((f) => /\.ya?ml$/.test(f));
    expect(shipped.length).toBe(files.length);
    const listed = await request(sandbox.url).get("/_sandbox/scenarios");
    expect(listed.status).toBe(200);
    expect(listed.body.available.map((s: { name: string }) => s.name).sort()).toEqual(shipped.map((s) => s.name).sort());
  });

  // A rule that fires by chance (flaky-money) has a test of its own: reproducible with a seed, not on every request.
  const errorScenarios = shipped.filter((s) => s.rules[0]?.error && s.rules[0]?.when.probability === undefined);
  it.each(errorScenarios.map((s) => [s.name, s] as [string, Scenario]))("%s answers its catalogue error", async (_name, scenario) => {
    const rule = scenario.rules[0]!;
    const { op, req } = requestFor(rule);
    const res = await send(op, req, scenario.name);
    expect(isErrorCase(rule.error!)).toBe(true);
    const entry = catalogue[rule.error as keyof typeof catalogue];
    expect(res.status).toBe(rule.status ?? entry.status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.errorType).toBe(entry.errorType);
    expect(res.body.errorMessage).toEqual(expect.any(String));
    expect(res.body.correlationId).toBe(res.headers["x-correlation-id"]);
    expect(res.body.errorLink).toBe(`https://docs.cdp.coinbase.com/api-reference/v2/errors#${entry.errorType.replace(/_/g, "-")}`);
    for (const [k, v] of Object.entries(rule.fields ?? {})) expect(res.body[k]).toEqual(v);
    for (const [k, v] of Object.entries(rule.headers ?? {})) expect(res.headers[k.toLowerCase()]).toBe(v);
  });

  it.each(errorScenarios.map((s) => [s.name, s] as [string, Scenario]))(
    "%s works when switched on for a project through the admin API",
    async (_name, scenario) => {
      const rule = scenario.rules[0]!;
      const { op, req } = requestFor(rule);
      const on = await request(sandbox.url).post("/_sandbox/scenarios").send({ name: scenario.name });
      expect(on.status).toBe(201);
      try {
        const res = await call(sandbox, op.method, `/platform${req.path}`, { anonymous: true, headers: req.headers, body: req.body });
        expect(res.status).toBe(rule.status ?? catalogue[rule.error as keyof typeof catalogue].status);
        expect(res.body.errorType).toBe(catalogue[rule.error as keyof typeof catalogue].errorType);
        const journal = await request(sandbox.url).get("/_sandbox/requests");
        const last = journal.body.requests.at(-1);
        expect(last.scenarios.join(" ")).toContain(scenario.name);
      } finally {
        await request(sandbox.url).delete("/_sandbox/scenarios");
      }
    },
  );

  it("works when switched on at start (--scenario), for every error scenario", async () => {
    for (const scenario of errorScenarios) {
      const rule = scenario.rules[0]!;
      const { op, req } = requestFor(rule);
      const started = await withSandbox({ auth: "none", seed: "scenario-start", scenario: [scenario.name], handlers: recordingHandlers() });
      try {
        const res = await call(started, op.method, `/platform${req.path}`, { anonymous: true, headers: req.headers, body: req.body });
        expect(res.status, scenario.name).toBe(rule.status ?? catalogue[rule.error as keyof typeof catalogue].status);
      } finally {
        await started.close();
      }
    }
  }, 120_000);

  const rawScenarios = shipped.filter((s) => s.rules[0]?.raw);
  it.each(rawScenarios.map((s) => [s.name, s] as [string, Scenario]))("%s answers its raw gateway body", async (_name, scenario) => {
    const rule = scenario.rules[0]!;
    const { op, req } = requestFor(rule);
    const res = await send(op, req, scenario.name);
    expect(res.status).toBe(rule.raw!.status);
    expect(res.headers["content-type"]).toContain(rule.raw!.contentType.split(";")[0]);
    expect(res.text).toBe(rule.raw!.body);
  });

  it("covers every scenario file with a check in this suite", () => {
    const covered = new Set([
      ...errorScenarios.map((s) => s.name),
      ...rawScenarios.map((s) => s.name),
      ...shipped.filter((s) => s.rules[0]?.fault || s.rules[0]?.advanceMs !== undefined || s.rules[0]?.delayMs !== undefined).map((s) => s.name),
      "flaky-money", // test/scenarios/retry-safety.test.ts
    ]);
    expect(shipped.filter((s) => !covered.has(s.name)).map((s) => s.name)).toEqual([]);
  });
});

describe("faults, latency and the clock", () => {
  const faultOf = (name: string) => shipped.find((s) => s.rules[0]?.fault === name)!;

  it("drops the connection (reset)", async () => {
    const { op, req } = requestFor(faultOf("reset").rules[0]!);
    const error = await send(op, req, faultOf("reset").name).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(error?.code).toMatch(/ECONNRESET|socket hang up/i);
  });

  it("never answers (hang): the client's own timeout fires", async () => {
    const { op, req } = requestFor(faultOf("hang").rules[0]!);
    const error = await request(sandbox.url)
      .get(`/platform${req.path}`)
      .set("X-Sandbox-Scenario", faultOf("hang").name)
      .timeout(300)
      .then(
        () => undefined,
        (e: Error & { timeout?: number }) => e,
      );
    void op;
    expect(error?.timeout).toBe(300);
  });

  for (const fault of ["close-after-headers", "truncate"] as const) {
    it(`breaks the answer (${fault})`, async () => {
      const scenario = faultOf(fault);
      const { op, req } = requestFor(scenario.rules[0]!);
      const outcome = await send(op, req, scenario.name).then(
        (res) => ({ ok: true, text: res.text, status: res.status }),
        (e: Error) => ({ ok: false, text: e.message, status: 0 }),
      );
      if (outcome.ok) expect(() => JSON.parse(outcome.text)).toThrow();
      else expect(outcome.text).toMatch(/aborted|hang up|ECONNRESET|premature|terminated/i);
    });
  }

  it("adds latency (slow-responses) and still answers", async () => {
    const scenario = shipped.find((s) => s.rules[0]?.delayMs !== undefined && !s.rules[0]?.error)!;
    const { op, req } = requestFor(scenario.rules[0]!);
    const started = Date.now();
    const res = await send(op, req, scenario.name);
    expect(res.status).toBeLessThan(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(scenario.rules[0]!.delayMs! - 50);
  });

  it("moves the sandbox clock (quote-expired-on-execute)", async () => {
    const scenario = shipped.find((s) => s.rules[0]?.advanceMs !== undefined)!;
    const { op, req } = requestFor(scenario.rules[0]!);
    const before = sandbox.clock.now();
    await send(op, req, scenario.name);
    expect(sandbox.clock.now() - before).toBeGreaterThanOrEqual(scenario.rules[0]!.advanceMs!);
  });
});
