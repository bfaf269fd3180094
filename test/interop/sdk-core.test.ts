/**
 * The official client, unchanged, pointed at the sandbox with `basePath`.
 * One CdpClient per test file: the client keeps one process-wide HTTP client.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

describe("@coinbase/cdp-sdk against the sandbox", () => {
  it("completes a call with tokens the sandbox verified", async () => {
    const page = await cdp.evm.listAccounts();
    expect(Array.isArray(page.accounts)).toBe(true);
    const journal = (await fetch(`${sandbox.url}/_sandbox/requests`).then((r) => r.json())) as { requests: Array<Record<string, unknown>> };
    const last = journal.requests.at(-1);
    expect(last).toMatchObject({ operationId: "listEvmAccounts", status: 200, auth: "apiKey" });
  });

  it("gets the platform's error shape back as an APIError", async () => {
    await expect(cdp.evm.getAccount({ address: "0x12" as `0x${string}` })).rejects.toMatchObject({ statusCode: 400, errorType: "invalid_request" });
  });
});
