/**
 * validateX402Resource against a real x402-protected HTTPS server started
 * here on loopback (self-signed certificate), and the MCP proxy to a tool
 * served the same way: the sandbox makes the requests itself.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { signAuthorization, uptoEvmRequirements, v1Requirements, v2Body, v2Requirements } from "#test/helpers/x402.js";

const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
let sandbox: Sandbox;
let server: https.Server;
let base: string;
let paidAnswers402 = true;
let facilitator = "";
const seenMeta: unknown[] = [];

const bazaar = {
  info: { input: { type: "http", method: "GET" }, output: { type: "json" } },
  schema: { type: "object", properties: { input: { type: "object", properties: { type: { const: "http" } }, required: ["type"] } }, required: ["input"] },
};

function paymentRequired(path: string, accepts: unknown[], extensions?: unknown) {
  return Buffer.from(
    JSON.stringify({
      x402Version: 2,
      error: "Payment required",
      resource: { url: `${base}${path}`, description: "Tide heights", mimeType: "application/json" },
      accepts,
      extensions,
    }),
  ).toString("base64");
}

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-validate", validateResponses: true });
  facilitator = (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.signers["eip155:*"][0];
  const fixtures = new URL("../../../test/fixtures/", import.meta.url);
  server = https.createServer(
    { key: readFileSync(new URL("localhost-key.pem", fixtures)), cert: readFileSync(new URL("localhost-cert.pem", fixtures)) },
    (req, res) => {
      const path = (req.url ?? "").split("?")[0];
      if (path === "/paid" && paidAnswers402) {
        res
          .writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/paid", [v2Requirements(MERCHANT, "5000")], { bazaar }), "content-type": "application/json" })
          .end("{}");
      } else if (path === "/plain") {
        res.writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/plain", [v2Requirements(MERCHANT, "5000")]) }).end();
      } else if (path === "/metered") {
        res.writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/metered", [uptoEvmRequirements(MERCHANT, "5000", facilitator)]) }).end();
      } else if (path === "/slow") {
        res.writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/slow", [v2Requirements(MERCHANT, "5000", { maxTimeoutSeconds: 7200 })]) }).end();
      } else if (path === "/both") {
        res.writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/both", [v2Requirements(MERCHANT, "5000", { maxAmountRequired: "5000" })]) }).end();
      } else if (path === "/polygon") {
        res.writeHead(402, { "PAYMENT-REQUIRED": paymentRequired("/polygon", [v2Requirements(MERCHANT, "5000", { network: "eip155:137" })]) }).end();
      } else if (path === "/v1") {
        const accepts = [
          v1Requirements(MERCHANT, "9000", { resource: `${base}/v1`, outputSchema: { input: { type: "http", method: "GET", discoverable: true } } }),
        ];
        res.writeHead(402, { "content-type": "application/json" }).end(JSON.stringify({ x402Version: 1, error: "X-PAYMENT header is required", accepts }));
      } else if (path === "/garbled") {
        res.writeHead(402, { "content-type": "text/plain" }).end("pay me");
      } else if (path === "/mcp" && req.method === "POST") {
        let raw = "";
        req.on("data", (c) => (raw += c));
        req.on("end", async () => {
          const msg = JSON.parse(raw);
          seenMeta.push(msg.params._meta);
          // An x402 MCP server settles the payment in _meta with its facilitator (here: the sandbox) before answering.
          const payment = msg.params._meta?.["x402/payment"];
          const settled = payment
            ? (
                await call(sandbox, "POST", "/platform/v2/x402/settle", {
                  body: { x402Version: 2, paymentPayload: payment, paymentRequirements: payment.accepted },
                })
              ).body
            : undefined;
          const result = {
            content: [{ type: "text", text: `analysed ${msg.params.arguments.ticker}` }],
            ...(settled ? { _meta: { "x402/payment-response": settled } } : {}),
          };
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
        });
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end('{"tides":[]}');
      }
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => server.close(resolve));
});

const validate = (resource: string, method = "GET") => call(sandbox, "POST", "/platform/v2/x402/validate", { body: { resource, method }, anonymous: true });
const checks = (body: { preflight: Array<{ check: string; passed: boolean }> }) => Object.fromEntries(body.preflight.map((c) => [c.check, c.passed]));

describe("validateX402Resource", () => {
  it("probes a valid x402 endpoint, simulates a payment, and lists it in the Bazaar when it declares the bazaar extension", async () => {
    const res = await validate(`${base}/paid`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      statusCode: 402,
      x402Version: 2,
      paymentRequirements: v2Requirements(MERCHANT, "5000"),
      bazaarExtension: bazaar,
      simulation: { outcome: "accepted" },
    });
    expect(checks(res.body)).toEqual({ reachable: true, returns_402: true, parse: true, has_bazaar_extension: true });
    expect(res.body.index).toMatchObject({ active: true });
    expect(sandbox.clock.now() - Date.parse(res.body.index.lastCrawledAt)).toBeLessThan(5_000);
    const listed = await call(sandbox, "GET", "/platform/v2/x402/discovery/resources", { anonymous: true });
    expect(listed.body.items.map((i: { resource: string }) => i.resource)).toContain(`${base}/paid`);
  });

  it("delists an endpoint that stops answering 402, and lists it again once it does", async () => {
    paidAnswers402 = false;
    const broken = await validate(`${base}/paid`);
    expect(broken.body).toMatchObject({ valid: false, statusCode: 200, index: { active: false } });
    expect(checks(broken.body)).toEqual({ reachable: true, returns_402: false });
    const listed = await call(sandbox, "GET", "/platform/v2/x402/discovery/resources", { anonymous: true });
    expect(listed.body.items.map((i: { resource: string }) => i.resource)).not.toContain(`${base}/paid`);
    paidAnswers402 = true;
    expect((await validate(`${base}/paid`)).body.index.active).toBe(true);
  });

  it("accepts a valid endpoint without the extension (advisory) but does not list it", async () => {
    const res = await validate(`${base}/plain`);
    expect(res.body).toMatchObject({ valid: true, bazaarExtension: null, index: null });
    expect(res.body.preflight.find((c: { check: string }) => c.check === "has_bazaar_extension")).toMatchObject({ passed: false, severity: "advisory" });
  });

  it("reads a version 1 402 body and catalogues a discoverable outputSchema", async () => {
    const res = await validate(`${base}/v1`);
    expect(res.body).toMatchObject({ valid: true, x402Version: 1, simulation: { outcome: "accepted" }, index: { active: true } });
  });

  it("says a payment on a network the facilitator does not settle would be rejected", async () => {
    expect((await validate(`${base}/polygon`)).body.simulation).toEqual({ outcome: "rejected", rejectionReason: "invalid_network" });
  });

  it("simulates an upto option, and says which options the official client refuses to sign", async () => {
    expect((await validate(`${base}/metered`)).body).toMatchObject({ valid: true, simulation: { outcome: "accepted" } });
    expect((await validate(`${base}/slow`)).body.simulation).toEqual({ outcome: "rejected", rejectionReason: "max_timeout_exceeded" });
    expect((await validate(`${base}/both`)).body.simulation).toEqual({ outcome: "rejected", rejectionReason: "malformed_requirement" });
  });

  it("reports an unparsable 402 and an unreachable endpoint", async () => {
    const garbled = await validate(`${base}/garbled`);
    expect(garbled.body).toMatchObject({ valid: false, statusCode: 402, paymentRequirements: null, x402Version: null });
    expect(checks(garbled.body).parse).toBe(false);
    const closed = https.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await validate(`https://127.0.0.1:${port}/paid`);
    expect(down.body).toMatchObject({ valid: false, statusCode: null, index: null });
    expect(checks(down.body)).toEqual({ reachable: false });
  });

  it("answers a public host with valid: false and a failed reachability check, without making the request", async () => {
    const listed = await validate(`${base}/paid`);
    expect(listed.body.index.active).toBe(true);
    const sent = [vi.spyOn(http, "request"), vi.spyOn(https, "request")];
    try {
      const remote = await validate("https://tides.example.org/v1/forecast");
      expect(remote.status).toBe(200);
      expect(remote.body).toMatchObject({
        valid: false,
        statusCode: null,
        x402Version: null,
        paymentRequirements: null,
        bazaarExtension: null,
        simulation: { outcome: "rejected" },
        index: null,
      });
      expect(remote.body.preflight).toEqual([
        { check: "reachable", passed: false, detail: expect.stringContaining("offline and cannot reach public hosts"), severity: "required" },
      ]);
      expect(remote.body.preflight[0].detail).toContain("tides.example.org");
      // Supertest's own call to the sandbox goes through http.request too: only the public host must never appear.
      const targets = sent.flatMap((spy) => spy.mock.calls.map((args) => JSON.stringify(args[0], (_k, v) => (v instanceof URL ? v.href : v))));
      expect(targets.some((t) => t.includes("tides.example.org"))).toBe(false);
    } finally {
      for (const spy of sent) spy.mockRestore();
    }
  });

  it("leaves a listed endpoint on a public host as it was", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "5000" });
    const payload = await signAuthorization(payer, { to: MERCHANT, value: "5000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    const url = "https://harbour.example.org/buoys";
    const settled = await call(sandbox, "POST", "/platform/v2/x402/settle", {
      body: v2Body(v2Requirements(MERCHANT, "5000"), payload, { resource: { url }, extensions: { bazaar } }),
    });
    expect(settled.status).toBe(200);
    const remote = await validate(url);
    expect(remote.body).toMatchObject({ valid: false, index: { active: true, lastCrawledAt: null } });
  });

  it("refuses non-https URLs (contract)", async () => {
    expect((await validate("http://127.0.0.1:1/x")).status).toBe(400);
  });
});

describe("proxy_tool_call", () => {
  it("forwards a tools/call with its _meta to the MCP server of a catalogued tool and relays the answer", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "5000" });
    const requirements = v2Requirements(MERCHANT, "5000");
    const payload = await signAuthorization(payer, { to: MERCHANT, value: "5000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    const mcpBazaar = {
      info: { input: { type: "mcp", tool: "financial_analysis", inputSchema: { type: "object", properties: { ticker: { type: "string" } } } } },
      schema: { type: "object", required: ["input"] },
    };
    const settled = await call(sandbox, "POST", "/platform/v2/x402/settle", {
      body: v2Body(requirements, payload, { resource: { url: `${base}/mcp` }, extensions: { bazaar: mcpBazaar } }),
    });
    expect(settled.status).toBe(200);
    const listed = await call(sandbox, "GET", "/platform/v2/x402/discovery/resources?type=mcp", { anonymous: true });
    expect(listed.body.items).toHaveLength(1);
    const rpc = await call(sandbox, "POST", "/platform/v2/x402/discovery/mcp", {
      anonymous: true,
      body: {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "proxy_tool_call", arguments: { toolName: "financial_analysis", ticker: "AAPL" }, _meta: { "x402/tag": "no payment" } },
      },
    });
    expect(rpc.body).toEqual({ jsonrpc: "2.0", id: 9, result: { content: [{ type: "text", text: "analysed AAPL" }] } });
    expect(seenMeta.at(-1)).toEqual({ "x402/tag": "no payment" });
  });

  it("does not hold the project while the tool's server settles the payment it was sent with the sandbox", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "5000" });
    const requirements = v2Requirements(MERCHANT, "5000");
    const payment = v2Body(
      requirements,
      await signAuthorization(payer, { to: MERCHANT, value: "5000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) }),
    ).paymentPayload;
    const rpc = await call(sandbox, "POST", "/platform/v2/x402/discovery/mcp", {
      anonymous: true,
      body: {
        jsonrpc: "2.0",
        id: 10,
        method: "tools/call",
        params: { name: "proxy_tool_call", arguments: { toolName: "financial_analysis", ticker: "MSFT" }, _meta: { "x402/payment": payment } },
      },
    });
    expect(rpc.body.result.content[0].text).toBe("analysed MSFT");
    expect(rpc.body.result._meta["x402/payment-response"]).toMatchObject({ success: true, payer: payer.address });
  });
});
