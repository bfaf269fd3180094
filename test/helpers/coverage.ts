/** The coverage document checked against the JSON Schema the package ships (schemas/coverage.schema.json), by a plain Ajv. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect } from "vitest";
import type { CoverageDocument } from "cdp-sandbox";
import { packageRoot } from "../../src/paths.js";

const schema = JSON.parse(readFileSync(join(packageRoot, "schemas", "coverage.schema.json"), "utf8"));
const require = createRequire(import.meta.url);
const { Ajv } = require("ajv") as typeof import("ajv");
const addFormats = require("ajv-formats").default as (ajv: import("ajv").Ajv) => void;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateCoverage = ajv.compile(schema);

export function expectValidCoverage(doc: unknown): asserts doc is CoverageDocument {
  const ok = validateCoverage(doc);
  expect(validateCoverage.errors ?? [], JSON.stringify(validateCoverage.errors)).toEqual([]);
  expect(ok).toBe(true);
}
