#!/usr/bin/env node
/**
 * What the installed official clients know that our openapi.yaml lacks — the server's (@coinbase/cdp-sdk) and
 * the embedded wallets' (@coinbase/cdp-api-client, under cdp-core, cdp-hooks and cdp-react): operations
 * (method and path), fields of request bodies, query parameters and success answers, and enumeration values
 * (see lib/drift.mjs). Drift listed in test/contract/drift-allowed.yaml, each with a reason, is accepted; any
 * other, or an allow-list entry that matches nothing, makes the exit status 1.
 *
 *   npm run drift                 # the summary, then every unexplained item
 *   npm run drift -- --all        # also the explained ones, with their reasons
 *   npm run drift -- --json       # the report as JSON
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { driftReport, summary } from "./lib/drift.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    client: { type: "string", default: join(root, "node_modules", "@coinbase", "cdp-sdk") },
    "embedded-client": { type: "string", default: join(root, "node_modules", "@coinbase", "cdp-api-client") },
    doc: { type: "string", default: join(root, "openapi.yaml") },
    allow: { type: "string", default: join(root, "test", "contract", "drift-allowed.yaml") },
    all: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const report = driftReport({ clientRoot: values.client, embeddedClientRoot: values["embedded-client"], docPath: values.doc, allowPath: values.allow });
if (values.json) {
  const { client, embeddedClient, ...rest } = report;
  console.log(JSON.stringify({ clientVersion: client.version, embeddedClientVersion: embeddedClient.version, ...rest }, null, 2));
} else {
  const clients = `@coinbase/cdp-sdk ${report.client.version}, @coinbase/cdp-api-client ${report.embeddedClient.version}`;
  console.log(`${summary(report.items)} (${clients}; ${report.explained.length} allowed, ${report.unexplained.length} not)`);
  for (const item of report.unexplained) console.log(`  not allowed  ${item.key}`);
  if (values.all) for (const item of report.explained) console.log(`  allowed      ${item.key}\n               ${item.reason}`);
  for (const entry of report.stale) console.log(`  stale allow-list entry (matches nothing): ${entry.match}`);
}
process.exit(report.unexplained.length === 0 && report.stale.length === 0 ? 0 : 1);
