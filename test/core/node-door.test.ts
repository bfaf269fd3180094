import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let url: string;
beforeAll(async () => {
  sandbox = await withSandbox();
  url = await nodeUrlFor(sandbox, "base-sepolia");
});
afterAll(() => sandbox.close());

const chainId = { jsonrpc: "2.0", id: 7, method: "eth_chainId", params: [] };
const post = (target: string, headers: Record<string, string> = {}, body: unknown = chainId) =>
  fetch(target, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

// A program's call goes straight to the node's handler; a browser's (with an Origin) and an unusual path go through
// the Express routes. Both doors must answer alike.
describe("the node's JSON-RPC URL", () => {
  it("answers a program and a browser with the same body and content type, CORS only for the browser", async () => {
    const program = await post(url);
    const browser = await post(url, { origin: "https://app.example" });
    expect(program.status).toBe(200);
    expect(browser.status).toBe(200);
    expect(program.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(browser.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await program.json()).toEqual({ jsonrpc: "2.0", id: 7, result: "0x14a34" });
    expect(await browser.json()).toEqual({ jsonrpc: "2.0", id: 7, result: "0x14a34" });
    expect(program.headers.get("access-control-allow-origin")).toBeNull();
    expect(browser.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  it("reads a percent-encoded path segment as the router decodes it", async () => {
    const encoded = url.replace("/base-sepolia/", "/base%2Dsepolia/");
    const res = await post(encoded);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, result: "0x14a34" });
  });

  it("refuses an unknown node token and an unknown network alike on both doors", async () => {
    const badToken = url.replace(/\/[^/]+$/, "/not-a-token");
    const badNetwork = url.replace("/base-sepolia/", "/no-such-net/");
    for (const target of [badToken, badNetwork]) {
      const program = await post(target);
      const browser = await post(target, { origin: "https://app.example" });
      expect(program.status).toBe(browser.status);
      expect(program.status).toBeGreaterThanOrEqual(400);
      expect(await program.json()).toEqual(await browser.json());
    }
  });

  it("answers a body that is not JSON with the JSON-RPC parse error", async () => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(200);
    expect((await res.json()).error.code).toBe(-32700);
  });
});
