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
// @ts-expect-error -- plain ESM script shared with scripts/drift.mjs
import { readClient } from "../../scripts/lib/drift.mjs";
import { packageRoot } from "../../src/paths.js";

const referencePath = process.env.CDP_REFERENCE_OPENAPI ?? "";
const present = referencePath !== "" && existsSync(referencePath);
if (!present) console.log("conformance: skipped; set CDP_REFERENCE_OPENAPI to the platform's published OpenAPI document to compare against it");

/**
 * Error types the sandbox adds for checks of its own (they say so in their name and are documented in
 * docs/scenarios.md): compared without them, since the platform never answers them.
 */
const SANDBOX_ERROR_TYPES = ["sandbox_duplicate_effect"];

type Schemas = { components?: { schemas?: Record<string, { enum?: string[] }> } };

function withoutSandboxOnly(doc: Schemas) {
  const errorType = doc.components?.schemas?.ErrorType;
  if (errorType?.enum) errorType.enum = errorType.enum.filter((v) => !SANDBOX_ERROR_TYPES.includes(v));
  return doc;
}

/**
 * The reference is the platform as of client 1.55; the installed client is newer. A value of a named enumeration
 * (ErrorType, EventType, PaymentNetwork, ...) that the reference lacks but the installed client's enumeration of
 * the same name has is no difference: it is the newer platform, and the drift check (test/contract/drift.test.ts)
 * holds the contract to the client. Compared without those values.
 */
function withoutNewerClientValues(doc: Schemas, reference: Schemas): Schemas {
  const { enums } = readClient(join(packageRoot, "node_modules", "@coinbase", "cdp-sdk")) as { enums: Map<string, string[]> };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const theirs = reference.components?.schemas?.[name]?.enum;
    const newer = enums.get(name);
    if (!schema.enum || !theirs || !newer) continue;
    schema.enum = schema.enum.filter((v) => theirs.includes(v) || !newer.includes(v));
  }
  return doc;
}

/**
 * The same for properties: a property of a named object schema (Capture, CustomerDisplay, ...) that the reference's
 * schema of that name lacks but the installed client's generated interface of that name has is the newer platform,
 * and compared without. The interfaces are read from the client's generated type declarations.
 */
function withoutNewerClientFields(doc: Schemas, reference: Schemas): Schemas {
  const declarations = join(packageRoot, "node_modules/@coinbase/cdp-sdk/_types/openapi-client/generated/coinbaseDeveloperPlatformAPIs.schemas.d.ts");
  const text = readFileSync(declarations, "utf8");
  const fields = new Map<string, Set<string>>();
  for (const m of text.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)) {
    fields.set(m[1]!, new Set([...m[2]!.matchAll(/^ {4}"?([\w-]+)"?\??:/gm)].map((f) => f[1]!)));
  }
  type Props = { properties?: Record<string, unknown> };
  for (const [name, schema] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Props>)) {
    const theirs = (reference.components?.schemas?.[name] as Props | undefined)?.properties;
    const newer = fields.get(name);
    if (!schema.properties || !theirs || !newer) continue;
    for (const key of Object.keys(schema.properties)) if (!(key in theirs) && newer.has(key)) delete schema.properties[key];
  }
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
  const ours = present
    ? withoutNewerClientFields(withoutNewerClientValues(withoutSandboxOnly(load(join(packageRoot, "openapi.yaml"))), reference), reference)
    : undefined;
  const allowed = (load(join(packageRoot, "test", "contract", "allowed-differences.yaml")) ?? []) as Allowed[];

  it("covers the 146 operations of the platform's document", () => {
    expect(operationsOf(reference).length).toBe(146);
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
