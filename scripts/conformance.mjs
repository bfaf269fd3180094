#!/usr/bin/env node
/**
 * Compares our contract with the platform's published OpenAPI document,
 * operation by operation, in wire facts only (see lib/wire-facts.mjs). The
 * document is not part of this repository: name it with --ref or the
 * CDP_REFERENCE_OPENAPI environment variable.
 *
 *   node scripts/conformance.mjs --ref platform-openapi.yaml
 *   node scripts/conformance.mjs --tag "EVM Accounts" --op createEvmAccount
 *   node scripts/conformance.mjs --summary            # one line per operation
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { compareDocuments, MissingRef } from "./lib/wire-facts.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    ref: { type: "string", default: process.env.CDP_REFERENCE_OPENAPI ?? "" },
    doc: { type: "string", default: join(root, "openapi.yaml") },
    tag: { type: "string", multiple: true },
    op: { type: "string", multiple: true },
    summary: { type: "boolean", default: false },
    "max-diffs": { type: "string", default: "40" },
  },
});

if (!values.ref || !existsSync(values.ref)) {
  console.error(values.ref ? `reference not found at ${values.ref}` : "name the platform's OpenAPI document with --ref or CDP_REFERENCE_OPENAPI");
  process.exit(2);
}
const reference = parse(readFileSync(values.ref, "utf8"), { maxAliasCount: -1 });
const ours = parse(readFileSync(values.doc, "utf8"), { maxAliasCount: -1 });

const tags = values.tag ?? [];
const ops = values.op ?? [];
const filter = (e) => (tags.length === 0 || tags.includes(e.tag)) && (ops.length === 0 || ops.includes(e.operationId));
const report = compareDocuments(reference, ours, { filter, maxDiffs: Number(values["max-diffs"]) });
for (const r of report.results) {
  if (r.status === "identical") {
    if (values.summary) console.log(`ok        ${r.operationId}`);
    continue;
  }
  console.log(`${r.status.padEnd(9)} ${r.operationId} (${r.tag})`);
  if (!values.summary) for (const d of r.diffs) console.log(`    ${d}`);
}
console.log(`conformance: ${report.identical}/${report.total} operations identical in wire facts`);
void MissingRef;
process.exit(report.identical === report.total ? 0 : 1);
