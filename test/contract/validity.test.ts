/**
 * openapi.yaml is a valid OpenAPI 3.1 document (checked with a maintained
 * validator), every example in it is valid against its own schema, and it
 * loads in @stoplight/prism-http without warnings.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { Validator } from "@seriousme/openapi-schema-validator";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/paths.js";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const specPath = join(packageRoot, "openapi.yaml");
const doc = parse(readFileSync(specPath, "utf8"), { maxAliasCount: -1 });

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** OpenAPI 3.0's `nullable`, which the platform's schemas still use, in JSON Schema 2020-12 terms. */
function withNullAsType(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullAsType);
  if (node === null || typeof node !== "object") return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withNullAsType(v)]));
  // null is allowed whatever the rest (allOf included) says.
  return nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

describe("openapi.yaml", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("has examples that are valid against their own schemas", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    ajv.addKeyword({ keyword: "discriminator" });
    ajv.addSchema({ ...(withNullAsType(doc) as object), $id: "https://cdp-sandbox.local/openapi" });
    const problems: string[] = [];
    const check = (pointer: string, value: unknown, where: string) => {
      const validate = ajv.getSchema(`https://cdp-sandbox.local/openapi#${pointer}`) ?? ajv.compile({ $ref: `https://cdp-sandbox.local/openapi#${pointer}` });
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    const media = (
      base: string,
      content: Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, { value?: unknown }> }> | undefined,
      where: string,
    ) => {
      for (const [type, m] of Object.entries(content ?? {})) {
        if (!m.schema) continue;
        const pointer = `${base}/content/${escapePointer(type)}/schema`;
        if (m.example !== undefined) check(pointer, m.example, `${where} ${type} example`);
        for (const [name, e] of Object.entries(m.examples ?? {})) if (e.value !== undefined) check(pointer, e.value, `${where} ${type} examples.${name}`);
      }
    };
    for (const [path, item] of Object.entries(doc.paths ?? {}) as Array<[string, Record<string, any>]>) {
      for (const [method, op] of Object.entries(item)) {
        if (!op?.operationId) continue;
        const base = `/paths/${escapePointer(path)}/${method}`;
        if (op.requestBody?.content) media(`${base}/requestBody`, op.requestBody.content, `${op.operationId} request`);
        for (const [status, response] of Object.entries(op.responses ?? {}) as Array<[string, any]>) {
          if (response.content) media(`${base}/responses/${status}`, response.content, `${op.operationId} ${status}`);
        }
      }
    }
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}) as Array<[string, any]>) {
      if (schema.example !== undefined) check(`/components/schemas/${escapePointer(name)}`, schema.example, `schema ${name} example`);
    }
    expect(problems).toEqual([]);
  });

  it("loads in @stoplight/prism-http without errors or warnings", async () => {
    const { getHttpOperationsFromSpec } = await import("@stoplight/prism-http/dist/utils/operations.js");
    const warnings: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args);
    try {
      const operations = await getHttpOperationsFromSpec(specPath);
      expect(operations.length).toBeGreaterThanOrEqual(123);
    } finally {
      console.warn = original;
    }
    expect(warnings).toEqual([]);
  }, 60_000);
});

describe("admin-openapi.yaml (the /_sandbox API)", () => {
  it("is valid OpenAPI 3.1", async () => {
    const admin = parse(readFileSync(join(packageRoot, "admin-openapi.yaml"), "utf8"));
    const validator = new Validator();
    const result = await validator.validate(admin);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});
