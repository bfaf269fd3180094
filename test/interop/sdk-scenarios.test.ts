/**
 * The official client meets the sandbox's error scenarios and behaves as it
 * does against the platform: it retries GETs on 5xx, never POSTs, maps a raw
 * gateway 403 and a dropped connection to its NetworkError types.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CdpClient } from "@coinbase/cdp-sdk";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { packageRoot } from "../../src/paths.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-scenarios" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  await request(sandbox.url).delete("/_sandbox/scenarios");
  await request(sandbox.url).delete("/_sandbox/requests");
});

const activate = (body: object) => request(sandbox.url).post("/_sandbox/scenarios").send(body).expect(201);
const journal = async (operationId: string) =>
  ((await request(sandbox.url).get("/_sandbox/requests")).body.requests as Array<{ operationId: string; status: number }>).filter(
    (r) => r.operationId === operationId,
  );

describe("@coinbase/cdp-sdk under error scenarios", () => {
  it("retries a GET through two 502s and succeeds", async () => {
    await activate({ scenario: { name: "flaky-list", rules: [{ match: { operationId: "listEvmAccounts" }, when: { times: 2 }, error: "bad_gateway" }] } });
    const page = await cdp.evm.listAccounts();
    expect(Array.isArray(page.accounts)).toBe(true);
    expect((await journal("listEvmAccounts")).map((r) => r.status)).toEqual([502, 502, 200]);
  });

  it("does not retry a POST on 500 and surfaces the platform's error", async () => {
    await activate({ scenario: { name: "create-fails", rules: [{ match: { operationId: "createEvmAccount" }, error: "internal_server_error" }] } });
    await expect(cdp.evm.createAccount()).rejects.toMatchObject({ statusCode: 500, errorType: "internal_server_error" });
    expect(await journal("createEvmAccount")).toHaveLength(1);
  });

  it("reads the raw gateway 403 as network_ip_blocked", async () => {
    await activate({ name: "network-ip-blocked" });
    await expect(cdp.evm.listAccounts()).rejects.toMatchObject({ errorType: "network_ip_blocked" });
  });

  it("delivers customer_not_authorized with unauthorizedCapabilities to the custodial client", async () => {
    await activate({ name: "customer-not-authorized" });
    const error = await cdp.accounts.createAccount({ name: "Treasury" }).then(
      () => undefined,
      (e: unknown) => e as { statusCode?: number; body?: Record<string, unknown> },
    );
    expect(error?.statusCode).toBe(403);
    expect(error?.body).toMatchObject({ errorType: "customer_not_authorized", unauthorizedCapabilities: ["transferCrypto", "transferStablecoin"] });
  });

  it("reads a dropped connection as network_connection_failed after its retries", async () => {
    await activate({ name: "network-connection-failed" });
    await expect(cdp.evm.listAccounts()).rejects.toMatchObject({ errorType: "network_connection_failed" });
    expect((await journal("listEvmAccounts")).length).toBe(4);
  });

  // docs/scenarios.md's table says what the client reports for the two faults that break an answer mid-way.
  it.each([
    ["close-after-headers", "APIError", "unexpected_error"],
    ["truncated-body", "NetworkError", undefined],
  ])("reports %s as an %s, as docs/scenarios.md says", async (name, errorClass, errorType) => {
    await activate({ name });
    const error = await cdp.evm.createAccount().then(
      () => undefined,
      (e: unknown) => e as Error & { errorType?: string },
    );
    expect(error?.name).toBe(errorClass);
    if (errorType) expect(error?.errorType).toBe(errorType);
    const row = readFileSync(join(packageRoot, "docs", "scenarios.md"), "utf8")
      .split("\n")
      .find((line) => line.startsWith(`| \`${name}\` |`));
    expect(row?.split(" | ")[3]).toContain(`\`${errorClass}\`${errorType ? ` \`${errorType}\`` : ""}`);
  });
});
