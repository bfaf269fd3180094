/**
 * Our openapi.yaml against the platform's published document, operation by
 * operation, in wire facts (method, path, operationId, tag, security,
 * parameters, bodies, statuses, schemas with their constraints); prose and
 * examples are not compared. The platform's document is not part of this
 * repository: the test runs when CDP_REFERENCE_OPENAPI names it, and is
 * skipped otherwise.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- plain ESM script shared with scripts/conformance.mjs
import { compareDocuments, operationsOf } from "../../scripts/lib/wire-facts.mjs";
import { packageRoot } from "../../src/paths.js";

const referencePath = process.env.CDP_REFERENCE_OPENAPI ?? "";
const present = referencePath !== "" && existsSync(referencePath);
if (!present) console.log("conformance: skipped; set CDP_REFERENCE_OPENAPI to the platform's published OpenAPI document to compare against it");

/**
 * Error types the sandbox adds for checks of its own (they say so in their name and are documented in
 * docs/scenarios.md): compared without them, since the platform never answers them.
 */
const SANDBOX_ERROR_TYPES = ["sandbox_duplicate_effect"];

function withoutSandboxOnly(doc: { components?: { schemas?: Record<string, { enum?: string[] }> } }) {
  const errorType = doc.components?.schemas?.ErrorType;
  if (errorType?.enum) errorType.enum = errorType.enum.filter((v) => !SANDBOX_ERROR_TYPES.includes(v));
  return doc;
}

interface Allowed {
  operationId: string;
  path: string;
  reason: string;
}

describe.skipIf(!present)("wire conformance with the platform's document", () => {
  const load = (file: string) => parse(readFileSync(file, "utf8"), { maxAliasCount: -1 });
  const reference = present ? load(referencePath) : undefined;
  const ours = withoutSandboxOnly(load(join(packageRoot, "openapi.yaml")));
  const allowed = (load(join(packageRoot, "test", "contract", "allowed-differences.yaml")) ?? []) as Allowed[];

  it("covers the 123 operations of the areas in scope", () => {
    expect(operationsOf(reference).length).toBe(123);
  });

  it("states the same wire facts for every in-scope operation", () => {
    const report = compareDocuments(reference, ours);
    const unexplained: string[] = [];
    let identical = 0;
    for (const r of report.results as Array<{ operationId: string; status: string; diffs: string[] }>) {
      const left = r.diffs.filter((d) => !allowed.some((a) => a.operationId === r.operationId && d.startsWith(a.path)));
      if (left.length === 0) identical++;
      else unexplained.push(`${r.operationId} (${r.status}):\n    ${left.slice(0, 8).join("\n    ")}`);
    }
    console.log(`conformance: ${report.identical}/${report.total} operations identical in wire facts (${identical} with the allow-list)`);
    expect(unexplained).toEqual([]);
  });

  it("gives every allow-list entry a reason", () => {
    for (const a of allowed) expect(a.reason?.length ?? 0).toBeGreaterThan(10);
  });
});
