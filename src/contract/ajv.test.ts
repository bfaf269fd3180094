/**
 * Every pattern of both contracts runs on RE2, with JSON Schema's search
 * semantics; the validators the build precompiles (repeated subschemas
 * hoisted into definitions) decide and describe as a run-time compile does.
 */
import { RE2JS } from "re2js";
import { describe, expect, it, vi } from "vitest";
import { adminSpecPath, defaultSpecPath } from "../paths.js";
import { loadCompiledOperations } from "./compile.js";
import { codePointLength, linearRegExp } from "./ajv.js";
import { repeatsOnce } from "./oneRepetition.js";

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
    expect(linearRegExp("^a|b", "u").test("xb"), "an alternative without the anchor").toBe(true);
    expect(linearRegExp("^(a|b)c", "u").test("xbc")).toBe(false);
    expect(linearRegExp("^[|]x", "u").test("y|x"), "a bar inside a class").toBe(false);
    expect(linearRegExp("^\\|x", "u").test("yx"), "an escaped bar, then an alternative").toBe(false);
    expect(linearRegExp("^[\\]|]x", "u").test("y]x")).toBe(false);
  });

  it("reads a long value only as far as a pattern anchored at its start can match", () => {
    // Counted, not timed: the characters RE2 reads of a 100,000-character name against the account-name pattern.
    const value = "x".repeat(100_000);
    const rx = linearRegExp("^[A-Za-z0-9][A-Za-z0-9-]{0,34}[A-Za-z0-9]$", "u");
    const reads = vi.spyOn(String.prototype, "charCodeAt");
    try {
      expect(rx.test(value)).toBe(false);
      expect(reads.mock.calls.length).toBeLessThan(200);
      reads.mockClear();
      expect(linearRegExp("[0-9]$", "u").test(value), "an unanchored pattern still searches").toBe(false);
      expect(reads.mock.calls.length).toBeGreaterThan(100_000);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("patterns V8 runs in linear time", () => {
  it("decides as RE2 does, for every such pattern of both contracts, on values near and far from matching", async () => {
    const found = new Set<string>();
    for (const spec of [defaultSpecPath, adminSpecPath]) for (const op of await loadCompiledOperations(spec)) patternsIn([op.request, op.responses], found);
    const chosen = [...found].filter(repeatsOnce);
    expect(chosen.length).toBeGreaterThan(20);
    const alphabet = ["0", "1", "9", "a", "f", "F", "x", "z", "Z", "-", "+", " ", ".", "\n", "😀", "\uD800", "_", "0x"];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (const pattern of chosen) {
      const re2 = RE2JS.compile(pattern);
      const rx = linearRegExp(pattern, "u");
      for (let i = 0; i < 300; i++) {
        // Some values from the pattern's own characters (so that many match), the rest from the alphabet.
        const own = pattern.replace(/[\\^$[\]{}+*?]/g, "").split("");
        const length = next(4) === 0 ? next(200) : next(70);
        const value = Array.from({ length }, () => (next(3) === 0 ? alphabet[next(alphabet.length)] : (own[next(own.length)] ?? "0"))).join("");
        expect(rx.test(value), `${pattern} on ${JSON.stringify(value)}`).toBe(re2.test(value));
      }
    }
  });

  it("takes groups of alternatives with one unbounded item in all, and leaves repeated groups and a second unbounded item to RE2", () => {
    for (const pattern of ["^(0|[1-9]\\d*)$", "^0x[0-9a-fA-F]{64}$|^$", "^(entity|customer)(_[0-9a-f]{8})?$", "^(?:0?[1-9]|1[0-2])$"]) {
      expect(repeatsOnce(pattern), pattern).toBe(true);
    }
    for (const pattern of [
      "^[0-9]+(\\.[0-9]+)?$", // two unbounded items
      "^(a+)+$", // a repeated group
      "^[a-z]{2}(-[a-z]{2,8})*$",
      "^a$|b+$", // an alternative tried at every position
      "^(?=a)a+$", // a lookahead
      "^\\s*\\d+$", // \s is Unicode's in V8, ASCII's in RE2
      "^(a|b|c|d)(a|b|c|d)(a|b|c|d)(a|b|c|d)(a|b)\\d+$", // 512 ways besides the unbounded item
    ]) {
      expect(repeatsOnce(pattern), pattern).toBe(false);
    }
  });

  it("reads a long value that matches an unbounded pattern natively, not a character at a time", () => {
    const reads = vi.spyOn(String.prototype, "charCodeAt");
    try {
      expect(linearRegExp("^\\d+$", "u").test("1".repeat(100_000))).toBe(true);
      expect(linearRegExp("^(0|[1-9]\\d*)$", "u").test("1".repeat(100_000)), "the positive integer's pattern, a group").toBe(true);
      expect(linearRegExp("^0x[0-9a-fA-F]+$", "u").test(`0x${"ab".repeat(50_000)}`)).toBe(true);
      expect(reads.mock.calls.length).toBeLessThan(100);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("maxLength's count in the build's validators", () => {
  it("counts code points as Ajv's runtime does, lone surrogates included", async () => {
    const { createRequire } = await import("node:module");
    const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
    const ajvCount = (prismRequire("ajv/dist/runtime/ucs2length") as { default: (s: string) => number }).default;
    for (const text of ["", "abc", "café", "😀", "a😀b😀", "\uD800", "\uDC00\uD800", "x\uD83D", "\uD83D\uD83D\uDE00", "😀".repeat(1000)]) {
      expect(codePointLength(text), JSON.stringify(text)).toBe(ajvCount(text));
    }
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

describe("what the build compiles beside the request bodies", () => {
  // Each was compiled on its first use before: a policy's response ~0.2 s (under --validate-responses) and a refused
  // policy body's rule variants ~0.25 s, in every mode, with every other request waiting.
  it("checks every declared response of every operation with the build's code, compiling nothing at run time", async () => {
    const { recordCompiles } = await import("./ajv.js");
    const { validateResponse } = await import("./validate.js");
    const operations = await loadCompiledOperations(defaultSpecPath);
    const recorder = recordCompiles();
    let checked = 0;
    for (const op of operations) {
      for (const response of op.responses) {
        const status = /^\d{3}$/.test(response.code) ? Number(response.code) : undefined;
        if (status === undefined) continue;
        validateResponse(op, { status, headers: { "content-type": "application/json" }, body: { id: 1 } });
        checked++;
      }
    }
    expect(recorder.stop().map((c) => c.flavour)).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  it("phrases a refused policy body from the build's code for its variants, and as a run-time compile phrases it", async () => {
    const { precompiledValidators, recordCompiles, schemaKey } = await import("./ajv.js");
    const { VARIANT_AJV_OPTIONS, VARIANT_FLAVOUR } = await import("./closestVariant.js");
    const { validateRequest, bodySchemaOf } = await import("./validate.js");
    const { Ajv } = await import("ajv");
    const operations = await loadCompiledOperations(defaultSpecPath);
    const createPolicy = operations.find((op) => op.iid === "createPolicy")!;
    const body = {
      scope: "project",
      rules: [
        { action: "reject", operation: "signEvmTransaction", criteria: [{ type: "netUSDChange", changeCents: -5, operator: "<=" }, { type: "evmAddress" }] },
      ],
    };
    const recorder = recordCompiles();
    const problems = validateRequest(createPolicy, {
      method: "POST",
      path: "/v2/policy-engine/policies",
      query: {},
      headers: { "content-type": "application/json", "content-length": "200" },
      body,
    });
    expect(recorder.stop().map((c) => c.flavour)).toEqual([]);
    expect(problems.map((p) => p.message).join("; ")).toMatch(/closest is/);

    // Every variant's code decides and describes as Ajv compiling it now does.
    const fresh = new Ajv({ ...VARIANT_AJV_OPTIONS });
    const rules = (bodySchemaOf(createPolicy) as { properties: { rules: { items: { oneOf: object[] } } } }).properties.rules.items.oneOf;
    expect(rules.length).toBeGreaterThan(10);
    for (const variant of rules) {
      const ready = precompiledValidators.get(schemaKey(VARIANT_FLAVOUR, variant));
      expect(ready, "a rule variant the build compiled").toBeDefined();
      const validate = ready!() as ((d: unknown) => boolean) & { errors?: Array<{ instancePath: string; keyword: string }> };
      const compiled = fresh.compile(variant);
      for (const input of [body.rules[0], {}, { action: "accept" }, []]) {
        expect(validate(input)).toBe(compiled(input));
        const describe = (errors: typeof validate.errors) => (errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
        expect(describe(validate.errors)).toEqual(describe(compiled.errors as typeof validate.errors));
      }
    }
  });
});

describe("prism's all-errors Ajv", () => {
  it("decides with a first-error check and still reports every error of a value that has some", async () => {
    const { createRequire } = await import("node:module");
    const { preparePrismAjv } = await import("./ajv.js");
    const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
    preparePrismAjv(prismRequire);
    const Ajv = (prismRequire("ajv") as { default: new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] | null } } })
      .default;
    const validate = new Ajv({ allErrors: true, strict: false }).compile({
      type: "object",
      required: ["a", "b"],
      properties: { a: { type: "string" }, b: { type: "integer" }, c: { oneOf: [{ const: 1 }, { const: 2 }] } },
    });
    expect(validate({ a: "x", b: 1, c: 2 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate({ a: 1, c: 3 })).toBe(false);
    const errors = (validate.errors ?? []) as Array<{ instancePath: string; keyword: string }>;
    expect(errors.map((e) => `${e.instancePath} ${e.keyword}`).sort()).toEqual(["/a type", "/c const", "/c const", "/c oneOf", " required"].sort());
    expect(validate({ a: "y", b: 2 })).toBe(true);
    expect(validate.errors).toBeNull();
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
