/**
 * The client API key: the node's JSON-RPC URL for front-end code. Each project has one; the node accepts it
 * (and the project id, as before client keys); `GET /apikeys/v1/tokens/active` returns it; rotation retires the
 * old URL (401) and survives a restart; the key opens nothing but the node. Browsers on any origin may call the
 * node (CORS), never the API-key operations.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { call, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "client-key" });
});
afterAll(() => sandbox.close());

const chainId = (url: string, token: string) => request(url).post(`/rpc/v1/base-sepolia/${token}`).send({ jsonrpc: "2.0", id: 1, method: "eth_chainId" });

async function activeToken(s: Sandbox, credentials = s.credentials) {
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(credentials.apiKeyId, credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(s)}`, path });
  return request(s.url).get(path).set("Authorization", `Bearer ${bearer}`);
}

describe("the client API key", () => {
  it("is one per project, printed in the credentials and returned by GET /apikeys/v1/tokens/active", async () => {
    expect(sandbox.credentials.clientApiKey).toMatch(/^[0-9a-f]{32}$/);
    const active = await activeToken(sandbox);
    expect(active.status).toBe(200);
    expect(active.body).toEqual({ id: sandbox.credentials.clientApiKey });
    const other = await sandbox.createProject("other");
    expect(other.clientApiKey).toMatch(/^[0-9a-f]{32}$/);
    expect(other.clientApiKey).not.toBe(sandbox.credentials.clientApiKey);
    expect((await activeToken(sandbox, other)).body).toEqual({ id: other.clientApiKey });
  });

  it("opens the node, as the project id still does; an unknown token is 401", async () => {
    expect((await chainId(sandbox.url, sandbox.credentials.clientApiKey)).body.result).toBe("0x14a34");
    expect((await chainId(sandbox.url, sandbox.credentials.projectId)).body.result).toBe("0x14a34");
    const unknown = await chainId(sandbox.url, "0123456789abcdef0123456789abcdef");
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32001, message: expect.stringContaining("unauthorized") } });
  });

  it("opens nothing but the node: as a bearer token it is refused by the platform API and the token endpoint", async () => {
    const key = sandbox.credentials.clientApiKey;
    const platform = await request(sandbox.url).get("/platform/v2/evm/accounts").set("Authorization", `Bearer ${key}`);
    expect(platform.status).toBe(401);
    expect(platform.body.errorType).toBe("unauthorized");
    expect((await request(sandbox.url).get("/apikeys/v1/tokens/active").set("Authorization", `Bearer ${key}`)).status).toBe(401);
  });

  it("rotates through the admin API: the old URL answers 401 at once, the new one works, and the change is kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-client-key-"));
    const data = join(dir, "state.json");
    try {
      const first = await startSandbox({ port: 0, data, seed: "client-key-rotation" });
      const old = first.credentials.clientApiKey;
      const rotated = await call(first, "POST", `/_sandbox/projects/${first.credentials.projectId}/client-api-key/rotate`, { anonymous: true });
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.clientApiKey as string;
      expect(fresh).toMatch(/^[0-9a-f]{32}$/);
      expect(fresh).not.toBe(old);
      expect((await chainId(first.url, old)).status).toBe(401);
      expect((await chainId(first.url, fresh)).body.result).toBe("0x14a34");
      expect((await activeToken(first)).body).toEqual({ id: fresh });
      const project = await call(first, "GET", `/_sandbox/projects/${first.credentials.projectId}`, { anonymous: true });
      expect(project.body.clientApiKey).toBe(fresh);
      await first.close();

      const again = await startSandbox({ port: 0, data, seed: "client-key-rotation" });
      try {
        expect(again.credentials.clientApiKey).toBe(fresh);
        expect((await chainId(again.url, old)).status).toBe(401);
        expect((await chainId(again.url, fresh)).status).toBe(200);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to rotate another project's key from a bearer of a different project", async () => {
    const other = await sandbox.createProject("mine");
    const refused = await call(sandbox, "POST", `/_sandbox/projects/${sandbox.credentials.projectId}/client-api-key/rotate`, { credentials: other });
    expect(refused.status).toBe(404);
    expect((await chainId(sandbox.url, sandbox.credentials.clientApiKey)).status).toBe(200);
  });
});

describe("CORS on the node", () => {
  const ORIGIN = "https://shop.example";

  it("answers a browser's preflight from any origin, with the headers it asked for", async () => {
    const preflight = await request(sandbox.url)
      .options(`/rpc/v1/base-sepolia/${sandbox.credentials.clientApiKey}`)
      .set("Origin", ORIGIN)
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "content-type,onchainkit-version,onchainkit-context");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(ORIGIN);
    expect(preflight.headers["access-control-allow-methods"]).toContain("POST");
    expect(preflight.headers["access-control-allow-headers"]).toBe("content-type,onchainkit-version,onchainkit-context");
    const answered = await chainId(sandbox.url, sandbox.credentials.clientApiKey).set("Origin", ORIGIN);
    expect(answered.headers["access-control-allow-origin"]).toBe(ORIGIN);
    // A 401 carries the header too, so the page can read why.
    const refused = await chainId(sandbox.url, "not-a-key").set("Origin", ORIGIN);
    expect(refused.status).toBe(401);
    expect(refused.headers["access-control-allow-origin"]).toBe(ORIGIN);
  });

  it("gives the API-key operations no CORS headers", async () => {
    const preflight = await request(sandbox.url).options("/apikeys/v1/tokens/active").set("Origin", ORIGIN).set("Access-Control-Request-Method", "GET");
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    const platform = await request(sandbox.url).get("/platform/v2/evm/accounts").set("Origin", ORIGIN);
    expect(platform.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("accepts a WebSocket from a browser origin with the client key, and refuses an unknown key with 401", async () => {
    const base = sandbox.url.replace(/^http/, "ws");
    const opened = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`${base}/rpc/v1/solana-devnet/${sandbox.credentials.clientApiKey}`, { origin: ORIGIN });
      ws.on("open", () => {
        ws.close();
        resolve(true);
      });
      ws.on("error", () => resolve(false));
    });
    expect(opened).toBe(true);
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${base}/rpc/v1/solana-devnet/0123456789abcdef0123456789abcdef`, { origin: ORIGIN });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
    });
    expect(status).toBe(401);
  });
});
