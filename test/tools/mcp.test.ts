/**
 * `cdp-sandbox mcp` as a coding assistant meets it: the SDK's own MCP client
 * spawns the built command over stdio, lists the tools and drives a whole
 * story against the sandbox it started, while the "app under test" (this file)
 * calls the platform API with tokens from the official client's auth module.
 */
import { generateJwt } from "@coinbase/cdp-sdk/auth";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt } from "#test/helpers/cli.js";

const client = new Client({ name: "mcp-test", version: "1.0.0" });
let stderr = "";

/** A tool's structured result; fails the test on a refusal. */
async function tool(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} was refused: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

interface Creds {
  basePath: string;
  projectId: string;
  apiKeyId: string;
  apiKeySecret: string;
}

/** A platform call as the app under test makes it: a bearer JWT from the official client's auth module. */
async function platform(creds: Creds, method: string, path: string, body?: unknown) {
  const url = new URL(`${creds.basePath}${path}`);
  const jwt = await generateJwt({
    apiKeyId: creds.apiKeyId,
    apiKeySecret: creds.apiKeySecret,
    requestMethod: method,
    requestHost: url.host,
    requestPath: url.pathname,
  });
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A call a browser makes with no credentials (the embedded-wallet sign-in). */
async function anonymous(creds: Creds, path: string, body: unknown) {
  const res = await fetch(`${creds.basePath}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

describe("cdp-sandbox mcp", () => {
  let creds: Creds & { walletSecret: string; clientApiKey: string };
  let url: string;

  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, "mcp", "--seed", "mcp-story"], stderr: "pipe" });
    transport.stderr?.on("data", (chunk) => (stderr += chunk));
    await client.connect(transport);
    const status = await tool("get_status");
    creds = status.credentials;
    url = status.url;
  }, 60_000);
  afterAll(() => client.close());

  it("lists its tools, each with a JSON Schema for its input and output", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      "get_status",
      "create_project",
      "fund_address",
      "read_inbox",
      "sign_in_end_user",
      "set_clock",
      "list_scenarios",
      "enable_scenario",
      "clear_scenarios",
      "query_journal",
      "get_journal_entry",
      "list_webhook_deliveries",
      "replay_webhook_delivery",
      "take_snapshot",
      "restore_snapshot",
      "export_state",
      "get_coverage",
      "list_violations",
    ]) {
      expect(names).toContain(name);
    }
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
    }
  });

  it("drives a story: fund an address, an email sign-in read from the inbox, a quote past its expiry, the refusal's journal entry", async () => {
    expect(creds.basePath).toBe(`${url}/platform`);
    expect(stderr).toContain("serving");

    // Fund an address in token units, then see it through the platform API.
    const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const funded = await tool("fund_address", { network: "base-sepolia", address, token: "USDC", amount: "12.5" });
    expect(funded).toMatchObject({ token: "USDC", decimals: 6, balance: "12500000" });
    const balances = await platform(creds, "GET", `/v2/evm/token-balances/base-sepolia/${address}`);
    expect(balances.status).toBe(200);
    const usdc = balances.body.balances.find((b: any) => b.token.symbol === "USDC");
    expect(usdc.amount).toMatchObject({ amount: "12500000", decimals: 6 });

    // An email sign-in started as the app's browser would, its code read with the inbox tool.
    const email = "ada@example.com";
    const auth = `/v2/embedded-wallet-api/projects/${creds.projectId}/auth`;
    const init = await anonymous(creds, `${auth}/init`, { type: "email", email });
    expect(init.status).toBe(200);
    const inbox = await tool("read_inbox", { to: email });
    const message = inbox.messages.find((m: any) => m.flowId === init.body.flowId);
    expect(message).toMatchObject({ to: email, channel: "email", code: expect.stringMatching(/^\d{6}$/) });
    const verified = await anonymous(creds, `${auth}/verify/email`, { flowId: init.body.flowId, otp: message.code });
    expect(verified.status).toBe(200);
    expect(verified.body.accessToken).toEqual(expect.any(String));

    // A transfer quote, the clock moved past its expiry, the refused execution.
    const from = (await platform(creds, "POST", "/v2/accounts", { name: "From" })).body.accountId;
    const to = (await platform(creds, "POST", "/v2/accounts", { name: "To" })).body.accountId;
    const fund = await fetch(`${url}/_sandbox/accounts/${from}/fund`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sandbox-project": creds.projectId },
      body: JSON.stringify({ asset: "usdc", amount: "100" }),
    });
    expect(fund.status).toBe(200);
    const quote = await platform(creds, "POST", "/v2/transfers", {
      source: { accountId: from, asset: "usdc" },
      target: { accountId: to, asset: "usdc" },
      amount: "40",
      asset: "usdc",
      execute: false,
    });
    expect(quote.body.status).toBe("quoted");
    const clock = await tool("set_clock", { advance: "16m" });
    expect(Date.parse(clock.now)).toBeGreaterThan(Date.parse(quote.body.expiresAt));
    const refused = await platform(creds, "POST", `/v2/transfers/${quote.body.transferId}/execute`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorType).toBe("transfer_quote_expired");

    // The assistant finds the refusal in the journal, then reads its entry.
    const journal = await tool("query_journal", { operationId: "executeFundTransfer", status: "4xx" });
    expect(journal.requests.map((r: any) => r.correlationId)).toContain(refused.body.correlationId);
    const entry = await tool("get_journal_entry", { correlationId: refused.body.correlationId });
    expect(entry.entry).toMatchObject({
      correlationId: refused.body.correlationId,
      operationId: "executeFundTransfer",
      status: 400,
      errorType: "transfer_quote_expired",
    });
    expect(JSON.parse(entry.response.body).errorMessage).toBe(refused.body.errorMessage);
  });

  it("judges the run: the caller's contract violation apart from an answer of state, and each operation's statuses", async () => {
    const invalid = await platform(creds, "GET", "/v2/evm/accounts?pageSize=lots");
    expect(invalid.status).toBe(400);
    const missing = await platform(creds, "GET", "/v2/evm/accounts/0x0000000000000000000000000000000000000001");
    expect(missing.status).toBe(404);

    const { violations } = await tool("list_violations", { projectId: creds.projectId });
    expect(violations).toContainEqual(
      expect.objectContaining({ operation: "listEvmAccounts", check: "validation", status: 400, correlationId: invalid.body.correlationId }),
    );
    expect(violations.map((v: any) => v.operation)).not.toContain("getEvmAccount");
    // The violation's correlationId opens its journal entry.
    expect((await tool("get_journal_entry", { correlationId: invalid.body.correlationId })).entry.operationId).toBe("listEvmAccounts");

    const coverage = await tool("get_coverage", { projectId: creds.projectId, calledOnly: true });
    const byId = new Map<string, any>(coverage.operations.map((o: any) => [o.operationId, o]));
    expect(byId.get("getEvmAccount")).toMatchObject({ called: true, statuses: { "404": 1 } });
    expect(byId.get("getEvmAccount").unseenStatuses).toContain("200");
    expect(byId.has("createEvmSwapQuote")).toBe(false);
    expect((await tool("get_coverage")).operations.length).toBeGreaterThan(coverage.operations.length);
  });

  it("signs an end user in without a browser: an access token and a wallet secret the platform accepts", async () => {
    const signedIn = await tool("sign_in_end_user", { email: "grace@example.com" });
    expect(signedIn).toMatchObject({ userId: expect.any(String), accessToken: expect.any(String), walletSecret: expect.any(String) });
    const res = await fetch(`${creds.basePath}/v2/end-users/auth/validate-token`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${await jwtFor("POST", "/platform/v2/end-users/auth/validate-token")}` },
      body: JSON.stringify({ accessToken: signedIn.accessToken }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).userId).toBe(signedIn.userId);
    expect(signedIn.isNewEndUser).toBe(true);
    expect((await tool("sign_in_end_user", { email: "grace@example.com" })).isNewEndUser).toBe(false);
    // A sign-in the sandbox refuses is an MCP error carrying the sandbox's error body.
    const refused = await client.callTool({ name: "sign_in_end_user", arguments: { email: "lost@example.com", projectId: "no-such-project" } });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/refused auth\/init \(4\d\d\)[\s\S]*"errorType": "[a-z_]+"[\s\S]*"correlationId"/);
  });

  it("answers an unknown tool or argument with an error naming what is accepted, and a refusal with the sandbox's error body, changing nothing", async () => {
    await expect(client.callTool({ name: "fund_everything", arguments: {} })).rejects.toThrow(/Unknown tool 'fund_everything'.*fund_address/);
    await expect(client.callTool({ name: "fund_address", arguments: { network: "base", address: "0x1", amount: "1", colour: "red" } })).rejects.toThrow(
      /unknown argument 'colour'.*Accepted arguments: network \(required\)/,
    );
    await expect(client.callTool({ name: "fund_address", arguments: { network: "base", address: "0x1" } })).rejects.toThrow(/amount/);

    const before = await tool("export_state", { projectId: creds.projectId });
    const refused = await client.callTool({ name: "fund_address", arguments: { network: "base", address: "not-an-address", amount: "1" } });
    expect(refused.isError).toBe(true);
    const text = (refused.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/"errorType": "invalid_request"/);
    expect(text).toMatch(/"correlationId"/);
    const restore = await client.callTool({ name: "restore_snapshot", arguments: { snapshotId: "nope" } });
    expect(restore.isError).toBe(true);
    expect((restore.content as Array<{ text: string }>)[0]!.text).toMatch(/"errorType": "not_found"/);
    const after = await tool("export_state", { projectId: creds.projectId });
    expect(after.projects).toEqual(before.projects);
    // The server is still up.
    expect((await tool("get_status")).health.status).toBe("ok");
  });

  it("exposes the ready line's credentials and the docs pages as resources", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["cdp-sandbox://credentials", "cdp-sandbox://docs/mcp", "cdp-sandbox://docs/webhooks"]));
    const read = await client.readResource({ uri: "cdp-sandbox://credentials" });
    const ready = JSON.parse((read.contents[0] as { text: string }).text);
    expect(ready).toMatchObject({ basePath: creds.basePath, projectId: creds.projectId, apiKeySecret: creds.apiKeySecret, clientApiKey: creds.clientApiKey });
    const page = await client.readResource({ uri: "cdp-sandbox://docs/webhooks" });
    expect((page.contents[0] as { text: string }).text).toContain("# Webhooks");
    await expect(client.readResource({ uri: "cdp-sandbox://docs/nothing" })).rejects.toThrow(/Unknown resource/);
  });

  it("takes a snapshot and restores it", async () => {
    const address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    const snapshot = await tool("take_snapshot", { projectId: creds.projectId });
    await tool("fund_address", { network: "base", address, amount: "1" });
    await tool("restore_snapshot", { snapshotId: snapshot.snapshotId, projectId: creds.projectId });
    const again = await tool("fund_address", { network: "base", address, amount: "0.5" });
    expect(again.balance).toBe("500000000000000000");
  });

  async function jwtFor(method: string, path: string) {
    return generateJwt({
      apiKeyId: creds.apiKeyId,
      apiKeySecret: creds.apiKeySecret,
      requestMethod: method,
      requestHost: new URL(url).host,
      requestPath: path,
    });
  }
});
