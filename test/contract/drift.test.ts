/**
 * Drift between the installed official client and our contract: every operation, request field, query
 * parameter, answer field and enumeration value the client's generated code knows must be in openapi.yaml, or
 * be listed with a reason in test/contract/drift-allowed.yaml (`npm run drift` prints the same report).
 */
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- plain ESM script shared with scripts/drift.mjs
import { applyAllowList, driftReport, findDrift, summary } from "../../scripts/lib/drift.mjs";
import { packageRoot } from "../../src/paths.js";

interface Item {
  key: string;
  kind: string;
}
interface Allowed {
  match: string;
  reason: string;
}

const clientRoot = join(packageRoot, "node_modules", "@coinbase", "cdp-sdk");
const report = driftReport({
  clientRoot,
  embeddedClientRoot: join(packageRoot, "node_modules", "@coinbase", "cdp-api-client"),
  docPath: join(packageRoot, "openapi.yaml"),
  allowPath: join(packageRoot, "test", "contract", "drift-allowed.yaml"),
}) as {
  items: Item[];
  unexplained: Item[];
  stale: Allowed[];
  allowed: Allowed[];
  client: { version: string; operations: unknown[] };
  embeddedClient: { version: string; operations: Array<{ method: string; path: string }> };
};

describe("drift from the installed official client", () => {
  it("finds no operation, field or value the client knows that the contract lacks, beyond the allow-list", () => {
    console.log(`${summary(report.items)} (@coinbase/cdp-sdk ${report.client.version})`);
    expect(report.client.operations.length).toBeGreaterThan(140);
    // The embedded-wallet client is read from its built code: every operation it can call (53 in 0.0.106).
    expect(report.embeddedClient.operations.length).toBeGreaterThanOrEqual(53);
    expect(report.embeddedClient.operations).toContainEqual(expect.objectContaining({ method: "POST", path: "/v2/embedded-wallet-api/projects/{}/auth/init" }));
    expect(report.unexplained.map((i) => i.key)).toEqual([]);
  });

  it("keeps no allow-list entry that matches nothing (drift that is gone leaves the list)", () => {
    expect(report.stale.map((a) => a.match)).toEqual([]);
  });

  it("gives every allow-list entry a reason", () => {
    for (const a of report.allowed) expect(a.reason?.length ?? 0, a.match).toBeGreaterThan(8);
  });

  it("reports an operation, a field and an enumeration value the contract lacks", () => {
    const doc = parse(`
openapi: 3.1.0
info: { title: t, version: "1" }
paths:
  /v2/solana/accounts/{address}/sign/message:
    post:
      operationId: signSolanaMessage
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { message: { type: string } } }
      responses: { "200": { description: ok } }
  /v2/data/webhooks/subscriptions:
    post:
      operationId: createWebhookSubscription
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                eventTypes: { type: array, items: { type: string, enum: [ onchain.activity.detected ] } }
      responses: { "200": { description: ok } }
`);
    const client = {
      version: "test",
      operations: [
        {
          name: "signSolanaMessage",
          method: "POST",
          path: "/v2/solana/accounts/{}/sign/message",
          source: "t",
          fields: ["body.message", "body.encoding"],
          enums: [],
        },
        {
          name: "createWebhookSubscription",
          method: "POST",
          path: "/v2/data/webhooks/subscriptions",
          source: "t",
          fields: ["body.eventTypes"],
          enums: [{ path: "body.eventTypes[]", values: ["health.status.updated", "onchain.activity.detected"] }],
        },
        { name: "getCustomerRequirements", method: "GET", path: "/v2/customers/requirements", source: "t", fields: [], enums: [] },
      ],
      enums: new Map(),
    };
    const items = findDrift(client, doc) as Item[];
    expect(items.map((i) => i.key)).toEqual([
      "POST /v2/solana/accounts/{}/sign/message body.encoding",
      "POST /v2/data/webhooks/subscriptions body.eventTypes[] = health.status.updated",
      "GET /v2/customers/requirements",
    ]);
    expect(summary(items)).toBe("drift: 1 operations and 2 fields the client knows that the contract lacks");
    const { unexplained, stale } = applyAllowList(items, [
      { match: "GET /v2/customers", reason: "a test" },
      { match: "GET /v2/gone", reason: "drift that was fixed" },
    ]) as { unexplained: Item[]; stale: Allowed[] };
    expect(unexplained).toHaveLength(2);
    expect(stale.map((a) => a.match)).toEqual(["GET /v2/gone"]);
  });

  it("fails on an embedded-wallet operation the contract lacks (a client release that adds one)", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = parse(readFileSync(join(packageRoot, "openapi.yaml"), "utf8"), { maxAliasCount: -1 }) as { paths: Record<string, unknown> };
    delete doc.paths["/v2/embedded-wallet-api/projects/{projectId}/auth/refresh"];
    const keys = (findDrift(report.embeddedClient, doc) as Item[]).map((i) => i.key);
    expect(keys).toContain("POST /v2/embedded-wallet-api/projects/{}/auth/refresh");
  });
});
