/**
 * Every schema of both contracts is one the validator can compile. Prism takes a schema Ajv refuses to compile as a
 * value without problems, so a body under such a schema was never checked, and under --validate-responses each
 * answer paid for the failed compile again (the first ~130 ms, a stall of the whole sandbox). The MCP reply's `id`
 * (`nullable: true` beside a `oneOf`, no `type`) was one.
 */
import { createRequire } from "node:module";
import type { IHttpOperation } from "@stoplight/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { adminSpecPath, defaultSpecPath } from "../../src/paths.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

// The Ajv builds prism validates with, with prism's options: resolved from prism's own validator.
const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
type AjvClass = new (options: object) => { compile(schema: object): unknown };
const builds = {
  draft7: (prismRequire("ajv") as { default: AjvClass }).default,
  draft2019: (prismRequire("ajv/dist/2019") as { default: AjvClass }).default,
  draft2020: (prismRequire("ajv/dist/2020") as { default: AjvClass }).default,
};
const OPTIONS = { allErrors: true, allowUnionTypes: true, allowMatchingProperties: true, strict: false, logger: false };

const instances = new Map<AjvClass, { compile(schema: object): unknown }>();
function ajvFor(schema: { $schema?: unknown }) {
  const dialect = String(schema.$schema);
  const Build = /2019-09/.test(dialect) ? builds.draft2019 : /2020-12/.test(dialect) ? builds.draft2020 : builds.draft7;
  if (!instances.has(Build)) instances.set(Build, new Build(OPTIONS));
  return instances.get(Build)!;
}

/** Every schema an operation validates with: parameters, request bodies, response bodies and headers, by where. */
function schemasOf(op: IHttpOperation): Array<[string, object]> {
  const found: Array<[string, object]> = [];
  const add = (where: string, schema: unknown) => {
    if (schema && typeof schema === "object") found.push([`${op.iid ?? op.id} ${where}`, schema]);
  };
  for (const c of op.request?.body?.contents ?? []) add(`request body ${c.mediaType}`, c.schema);
  for (const kind of ["query", "headers", "path", "cookie"] as const)
    for (const p of (op.request?.[kind] ?? []) as Array<{ name: string; schema?: unknown }>) add(`${kind} ${p.name}`, p.schema);
  for (const r of op.responses ?? []) {
    for (const c of r.contents ?? []) add(`${r.code} body ${c.mediaType}`, c.schema);
    for (const h of r.headers ?? []) add(`${r.code} header ${h.name}`, h.schema);
  }
  return found;
}

describe("the contracts' schemas", () => {
  it.each([
    ["the platform's", defaultSpecPath],
    ["the admin API's", adminSpecPath],
  ])(
    "%s all compile in the Ajv prism validates with",
    async (_name, spec) => {
      const refused: string[] = [];
      const seen = new Set<string>(); // the error bodies repeat on every operation: each text once
      let compiled = 0;
      for (const op of await loadCompiledOperations(spec)) {
        for (const [where, schema] of schemasOf(op)) {
          const text = JSON.stringify(schema);
          if (seen.has(text)) continue;
          seen.add(text);
          try {
            ajvFor(schema).compile(schema);
            compiled++;
          } catch (error) {
            refused.push(`${where}: ${(error as Error).message}`);
          }
        }
      }
      expect(refused).toEqual([]);
      expect(compiled).toBeGreaterThan(50);
    },
    180_000,
  );
});

describe("the MCP server's replies under --validate-responses", () => {
  let real: Sandbox;
  let wrong: Sandbox;
  beforeAll(async () => {
    real = await withSandbox({ seed: "mcp-replies" });
    // A server whose reply carries an id of a type the contract does not allow: the check must see it.
    wrong = await withSandbox({
      seed: "mcp-replies-wrong",
      handlers: { postX402DiscoveryMcp: async () => ({ status: 200, body: { jsonrpc: "2.0", id: true } as never }) },
    });
  });
  afterAll(async () => {
    await real?.close();
    await wrong?.close();
  });

  const mcp = (sandbox: Sandbox, body: object) => call(sandbox, "POST", "/platform/v2/x402/discovery/mcp", { anonymous: true, body });

  it("passes a reply to a call (the id echoed) and to a notification (id null)", async () => {
    const answered = await mcp(real, { jsonrpc: "2.0", id: 7, method: "tools/list" });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { tools: expect.any(Array) } });
    const notified = await mcp(real, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notified.status).toBe(200);
    expect(notified.body).toEqual({ jsonrpc: "2.0", id: null });
  });

  it("refuses a reply whose id is neither a string, an integer nor null", async () => {
    const res = await mcp(wrong, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(res.status).toBe(500);
    expect(res.text).toMatch(/id/);
  });
});
