/**
 * The journal records every door of the sandbox: the admin API, the JSON-RPC node (one entry per method of a batch,
 * with the method and its error), Solana WebSocket messages; it is served as HAR 1.2 with credentials redacted.
 * Also: the admin API's account-scoped delegation, and GET /_sandbox/export over HTTP.
 */
import request from "supertest";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { call } from "../helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: "journal-doors" });
});
afterAll(() => sandbox.close());

type Entry = { kind?: string; rpcMethod?: string; rpcError?: { code: number; message: string }; status: number; operationId?: string; path: string };
async function journal(query = ""): Promise<Entry[]> {
  const res = await call(sandbox, "GET", `/_sandbox/requests${query}`, { anonymous: true });
  expect(res.status).toBe(200);
  return res.body.requests as Entry[];
}

describe("the journal", () => {
  it("records each method of a JSON-RPC batch as its own node entry, with the method and its error", async () => {
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] },
      { jsonrpc: "2.0", id: 2, method: "eth_noSuchMethod", params: [] },
    ];
    const res = await request(sandbox.url).post(`/rpc/v1/base-sepolia/${token}`).send(batch);
    expect(res.status).toBe(200);
    const node = (await call(sandbox, "GET", "/_sandbox/requests?kind=node")).body.requests as Entry[];
    const [chainId, missing] = node.slice(-2);
    expect(chainId).toMatchObject({ kind: "node", rpcMethod: "eth_chainId", status: 200 });
    expect(chainId!.rpcError).toBeUndefined();
    expect(missing).toMatchObject({ kind: "node", rpcMethod: "eth_noSuchMethod", rpcError: { code: -32601 } });
    // The node token (the project's id) is not shown in the path.
    expect(chainId!.path).not.toContain(token);
  });

  it("says on every platform entry that it came through the platform door, as ?kind=platform filters", async () => {
    const listed = await call(sandbox, "GET", "/platform/v2/evm/accounts");
    expect(listed.status).toBe(200);
    const all = await journal();
    const platform = await journal("?kind=platform");
    expect(all.find((e) => e.operationId === "listEvmAccounts")).toMatchObject({ kind: "platform" });
    expect(platform.length).toBeGreaterThan(0);
    expect(platform.every((e) => e.kind === "platform")).toBe(true);
    // Every entry names its door: the filter and the entries agree.
    expect(all.filter((e) => e.kind === "platform")).toHaveLength(platform.length);
    expect(all.every((e) => typeof e.kind === "string")).toBe(true);
  });

  it("records admin calls, but not reads of the journal itself", async () => {
    const before = (await journal("?kind=admin")).length;
    const funded = await call(sandbox, "POST", "/_sandbox/balances", {
      anonymous: true,
      body: { network: "base-sepolia", address: "0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0", amount: "1" },
    });
    expect(funded.status).toBe(200);
    const admin = await journal("?kind=admin");
    expect(admin).toHaveLength(before + 1);
    expect(admin.at(-1)).toMatchObject({ kind: "admin", operationId: "creditSandboxBalance", status: 200 });
  });

  it("records Solana WebSocket messages with their method and error", async () => {
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const ws = new WebSocket(`${sandbox.url.replace("http", "ws")}/rpc/v1/solana-devnet/${token}`);
    await new Promise<void>((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const answers: unknown[] = [];
    const got = (n: number) =>
      new Promise<void>((resolve) => {
        ws.on("message", (data) => {
          answers.push(JSON.parse(data.toString()));
          if (answers.length >= n) resolve();
        });
      });
    const both = got(2);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "slotSubscribe" }));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "accountSubscribe", params: [] }));
    await both;
    ws.close();
    const entries = await journal("?kind=websocket");
    expect(entries.map((e) => e.rpcMethod)).toEqual(["slotSubscribe", "accountSubscribe"]);
    expect(entries[1]!.rpcError).toMatchObject({ code: -32602 }); // accountSubscribe needs an address
  });
});

describe("GET /_sandbox/requests.har", () => {
  it("is an HTTP Archive 1.2 with headers, bodies and timings, and no token signatures", async () => {
    const made = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "HarAccount" }, wallet: true });
    expect(made.status).toBe(201);
    const res = await call(sandbox, "GET", "/_sandbox/requests.har", { anonymous: true });
    expect(res.status).toBe(200);
    const { log } = res.body as { log: Record<string, unknown> & { entries: Array<Record<string, any>> } };
    expect(log.version).toBe("1.2");
    expect(log.creator).toMatchObject({ name: "cdp-sandbox", version: expect.any(String) });
    expect(log.entries.length).toBeGreaterThan(3);
    for (const e of log.entries) {
      expect(Number.isNaN(Date.parse(e.startedDateTime))).toBe(false);
      expect(e.time).toBeGreaterThanOrEqual(0);
      expect(e.request).toMatchObject({ method: expect.any(String), httpVersion: expect.any(String), headersSize: -1 });
      expect(() => new URL(e.request.url)).not.toThrow();
      for (const list of [e.request.headers, e.request.queryString, e.request.cookies, e.response.headers, e.response.cookies]) {
        expect(Array.isArray(list)).toBe(true);
        for (const pair of list) expect(pair).toEqual({ name: expect.any(String), value: expect.any(String) });
      }
      expect(e.response).toMatchObject({ status: expect.any(Number), statusText: expect.any(String), redirectURL: expect.any(String) });
      expect(e.response.content).toMatchObject({ size: expect.any(Number), mimeType: expect.any(String) });
      expect(e.cache).toEqual({});
      for (const phase of ["send", "wait", "receive"]) expect(e.timings[phase]).toBeGreaterThanOrEqual(0);
    }
    const create = log.entries.find((e) => e.request.method === "POST" && e.request.url.endsWith("/platform/v2/evm/accounts"))!;
    expect(JSON.parse(create.request.postData.text)).toEqual({ name: "HarAccount" });
    expect(JSON.parse(create.response.content.text).address).toBe(made.body.address);
    const authorization = create.request.headers.find((h: { name: string }) => h.name === "authorization").value as string;
    expect(authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.<signature removed>$/);
    const walletAuth = create.request.headers.find((h: { name: string }) => h.name === "x-wallet-auth").value as string;
    expect(walletAuth).toMatch(/<signature removed>$/);
  });
});

describe("the admin API's delegations", () => {
  it("grants an account-scoped delegation: the developer may sign with that account only", async () => {
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId: "scoped", authenticationMethods: [{ type: "email", email: "scoped@example.com" }], evmAccount: { createSmartAccount: false } },
      wallet: true,
    });
    expect(created.status).toBe(201);
    const address = created.body.evmAccountObjects?.[0]?.address ?? created.body.evmAccounts[0];
    const expiresAt = new Date(sandbox.clock.now() + 3_600_000).toISOString();
    const grant = await call(sandbox, "POST", `/_sandbox/end-users/scoped/accounts/${address}/delegation`, { anonymous: true, body: { expiresAt } });
    expect(grant.status).toBe(201);
    expect(grant.body).toEqual({ userId: "scoped", scope: "account", address, expiresAt });
    const again = await call(sandbox, "POST", `/_sandbox/end-users/scoped/accounts/${address}/delegation`, { anonymous: true, body: { expiresAt } });
    expect(again.status).toBe(409);
    const stranger = await call(sandbox, "POST", "/_sandbox/end-users/scoped/accounts/0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0/delegation", {
      anonymous: true,
      body: { expiresAt },
    });
    expect(stranger.status).toBe(404);
    const signed = await call(sandbox, "POST", `/platform/v2/embedded-wallet-api/end-users/scoped/evm/sign/message`, {
      body: { address, message: "hello" },
      wallet: true,
    });
    expect([200, 201]).toContain(signed.status);
  });
});

describe("GET /_sandbox/export", () => {
  it("answers the caller's project with a bearer token, every project without", async () => {
    await sandbox.createProject("another");
    const all = await call(sandbox, "GET", "/_sandbox/export", { anonymous: true });
    expect(all.status).toBe(200);
    expect(all.body.version).toBe(1);
    expect(all.body.projects.length).toBeGreaterThanOrEqual(2);
    const mine = await call(sandbox, "GET", "/_sandbox/export");
    expect(mine.body.projects.map((p: { id: string }) => p.id)).toEqual([sandbox.credentials.projectId]);
    expect(Object.keys(mine.body.projects[0].records)).toContain("evmAccounts");
  });
});
