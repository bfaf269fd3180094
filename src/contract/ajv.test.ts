/**
 * Every pattern of both contracts runs on RE2, with JSON Schema's search
 * semantics; the validators the build precompiles (repeated subschemas
 * hoisted into definitions) decide and describe as a run-time compile does.
 */
import { describe, expect, it } from "vitest";
import { adminSpecPath, defaultSpecPath } from "../paths.js";
import { loadCompiledOperations } from "./compile.js";
import { linearRegExp } from "./ajv.js";

function patternsIn(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) patternsIn(n, found);
  else if (node && typeof node === "object") {
    const pattern = (node as { pattern?: unknown }).pattern;
    if (typeof pattern === "string") found.add(pattern);
    for (const v of Object.values(node)) patternsIn(v, found);
  }
  return found;
}

describe("the linear-time pattern engine", () => {
  it("compiles every pattern of openapi.yaml and admin-openapi.yaml", async () => {
    const found = new Set<string>();
    for (const spec of [defaultSpecPath, adminSpecPath]) for (const op of await loadCompiledOperations(spec)) patternsIn([op.request, op.responses], found);
    expect(found.size).toBeGreaterThan(40);
    for (const pattern of found) expect(() => linearRegExp(pattern, "u"), pattern).not.toThrow();
  });

  it("searches as JSON Schema's pattern does (unanchored unless the pattern anchors itself)", () => {
    expect(linearRegExp("b", "u").test("abc")).toBe(true);
    expect(linearRegExp("^b", "u").test("abc")).toBe(false);
    expect(linearRegExp("^[0-9]+$", "u").test("0123")).toBe(true);
    expect(linearRegExp("^[0-9]+$", "u").test("01a")).toBe(false);
    expect(linearRegExp("é", "u").test("café")).toBe(true);
  });
});

describe("precompiled validators", () => {
  it("decide and describe as Ajv compiling the schema at run time does, for valid, empty and broken bodies", async () => {
    const { createRequire } = await import("node:module");
    const { precompiledValidators, flavourOf, schemaKey } = await import("./ajv.js");
    const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
    const jsf = createRequire(import.meta.url)("json-schema-faker") as { generate(s: unknown): unknown; option(o: object): void };
    jsf.option({ alwaysFakeOptionals: true, failOnInvalidFormat: false, ignoreMissingRefs: true, maxItems: 2, random: seededRandom(7) });
    const Ajv = (
      prismRequire("ajv") as {
        default: new (
          o: object,
        ) => { compile(s: object): ((d: unknown) => boolean) & { errors?: Array<Record<string, unknown>> }; addFormat(n: string, f: unknown): void };
      }
    ).default;
    const addFormats = (prismRequire("ajv-formats") as { default: (a: unknown) => void }).default;
    expect((Ajv as unknown as { prepared?: boolean }).prepared, "a plain Ajv, not the one that serves precompiled code").toBeUndefined();
    const runtime = new Ajv({ allowUnionTypes: true, allowMatchingProperties: true, strict: false, logger: false, allErrors: true, coerceTypes: false });
    addFormats(runtime);
    const flavour = flavourOf("ajv", { allErrors: true, coerceTypes: false });
    let compared = 0;
    for (const op of await loadCompiledOperations(defaultSpecPath)) {
      const schema = (op.request?.body?.contents?.[0] as { inputSchema?: object } | undefined)?.inputSchema;
      const precompiled = schema && precompiledValidators.get(schemaKey(flavour, schema));
      if (!schema || !precompiled) continue;
      const fresh = runtime.compile(schema);
      const ready = precompiled() as typeof fresh;
      let sample: unknown;
      try {
        sample = jsf.generate(schema);
      } catch {
        sample = {};
      }
      const broken = sample && typeof sample === "object" && !Array.isArray(sample) ? { ...sample, extra: [1, { deep: null }], name: 42 } : null;
      for (const input of [{}, sample, broken, [], "text"]) {
        const verdict = [fresh(input), ready(input)];
        expect(verdict[1], `${op.iid}: ${JSON.stringify(input).slice(0, 200)}`).toBe(verdict[0]);
        const describe = (errors: typeof fresh.errors) => (errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message}`).sort();
        expect(describe(ready.errors), op.iid).toEqual(describe(fresh.errors));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});

/** A small seeded generator, so the samples are the same on every run. */
function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
