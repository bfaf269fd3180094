/**
 * The HTTP envelope of /platform answers, which the sandbox writes itself
 * (the API path skips Express): content type, length, bodiless statuses,
 * HEAD, unreadable bodies and the request targets that reach the API.
 */
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ validateResponses: true });
});
afterAll(() => sandbox.close());

/** A raw HTTP exchange, for what supertest would smooth over (HEAD, request targets, encodings). */
function raw(
  method: string,
  target: string,
  headers: Record<string, string | number> = {},
  body?: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const bearerFor = (method: string, path: string) =>
  mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method, host: new URL(sandbox.url).host, path });

describe("answers of the API", () => {
  it("carry a JSON content type in UTF-8, their exact length and the correlation id", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/evm/accounts");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
    expect(res.headers["x-correlation-id"]).toMatch(/-SBX$/);
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
  });

  it("leave out the body on 204", async () => {
    const policy = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: { scope: "account", rules: [{ action: "accept", operation: "signEvmHash" }] },
    });
    const res = await call(sandbox, "DELETE", `/platform/v2/policy-engine/policies/${policy.body.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers["content-length"]).toBeUndefined();
    expect(res.headers["x-correlation-id"]).toMatch(/-SBX$/);
  });

  it("answer HEAD with the status and headers of the answer, without its body", async () => {
    const path = "/platform/v2/evm/accounts";
    const res = await raw("HEAD", path, { authorization: `Bearer ${await bearerFor("HEAD", path)}` });
    expect(res.status).toBe(404); // no operation is served with HEAD
    expect(res.text).toBe("");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(res.headers["content-length"])).toBeGreaterThan(0);
  });

  it("give a gateway's plain-text answer (a raw scenario) in UTF-8", async () => {
    // Not the contract's answer on purpose, so this sandbox does not check responses.
    const gateway = await withSandbox();
    try {
      const res = await call(gateway, "GET", "/platform/v2/evm/accounts", { headers: { "X-Sandbox-Scenario": "network-ip-blocked" } });
      expect(res.status).toBe(403);
      expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
      expect(res.text).toMatch(/blocked/);
    } finally {
      await gateway.close();
    }
  });
});

describe("request bodies", () => {
  it("are read gzip-encoded as well", async () => {
    const path = "/platform/v2/policy-engine/policies";
    const body = gzipSync(JSON.stringify({ scope: "account", rules: [{ action: "accept", operation: "signEvmHash" }] }));
    const res = await raw(
      "POST",
      path,
      {
        authorization: `Bearer ${await bearerFor("POST", path)}`,
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": body.length,
      },
      body,
    );
    expect(res.status).toBe(201);
  });

  it("that cannot be read are the client's mistake: the reader's status and the platform's error body", async () => {
    const res = await raw(
      "POST",
      "/platform/v2/evm/accounts",
      { "content-type": "application/json", "content-encoding": "br-unknown", "content-length": 2 },
      Buffer.from("{}"),
    );
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toMatchObject({
      errorType: "invalid_request",
      errorMessage: expect.stringMatching(/could not be read: unsupported content encoding/),
    });
    expect(res.headers["x-correlation-id"]).toBe(JSON.parse(res.text).correlationId);
  });

  it("over 5 MB are refused with 413 before anything else happens", async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 0x20);
    const res = await raw("POST", "/platform/v2/evm/accounts", { "content-type": "application/json", "content-length": big.length }, big);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).errorType).toBe("invalid_request");
  });
});

describe("request targets", () => {
  it("reach the API whatever the case of /platform, as the routes always matched", async () => {
    const res = await raw("GET", "/PLATFORM/v2/evm/accounts");
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).errorMessage).toMatch(/No operation of the API serves GET \/PLATFORM\/v2\/evm\/accounts/);
  });

  it("in absolute form reach the API too", async () => {
    const res = await raw("GET", `${sandbox.url}/platform/v2/no/such/thing`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).errorMessage).toMatch(/No operation of the API serves GET \/platform\/v2\/no\/such\/thing/);
  });

  it("with dot segments are resolved before routing", async () => {
    const path = "/platform/v2/evm/accounts";
    const res = await raw("GET", "/platform/v2/solana/../evm/accounts", { authorization: `Bearer ${await bearerFor("GET", path)}` });
    expect(res.status).toBe(200);
  });
});
