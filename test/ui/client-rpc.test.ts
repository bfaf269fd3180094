/**
 * A web page on another origin calling the sandbox's node with the project's client API key, in headless
 * Chromium: the browser's CORS preflight passes, a cdp_ method and a WebSocket subscription answer, and after the
 * dashboard's "Rotate" button the page's old URL is refused with a 401 it can read. The charges a checkout paid
 * show in the dashboard's Client RPC view.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { type Browser, browserFound, openBrowser, openDashboard } from "./browser.js";

let sandbox: Sandbox;
let browser: Browser;
let site: Server;
let siteUrl: string;

/** The shop's page: plain HTML, served from its own origin (another port), calling nothing by itself. */
const PAGE = "<!doctype html><title>shop</title><h1>A shop on another origin</h1>";

beforeAll(async () => {
  site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  [sandbox, browser] = await Promise.all([withSandbox({ seed: "client-rpc-ui" }), openBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** What the page's own fetch of the node gets: the status and the body, or the browser's error when CORS blocks it. */
function priceFromPage(rpcUrl: string) {
  return browser.page.evaluate(async (url) => {
    try {
      const res = await fetch(url, {
        method: "POST",
        // OnchainKit's headers: they make the request a preflighted one.
        headers: { "content-type": "application/json", "OnchainKit-Version": "1.1.3", "OnchainKit-Context": "api" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "cdp_getPriceQuote", params: [{ tokens: ["ETH"] }] }),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    } catch (error) {
      return { status: 0, body: String(error) };
    }
  }, rpcUrl);
}

describe.skipIf(!browserFound)("a page on another origin", () => {
  it("calls the node with the client API key, until the key is rotated in the dashboard", async () => {
    const { page } = browser;
    await page.goto(siteUrl);
    const key = sandbox.credentials.clientApiKey;
    const rpcUrl = `${sandbox.url}/rpc/v1/base-sepolia/${key}`;

    const answered = await priceFromPage(rpcUrl);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ result: { priceQuotes: [{ symbol: "ETH", price: "3000" }] } });

    const subscribed = await page.evaluate(
      async (url) => {
        return new Promise<unknown>((resolve) => {
          const ws = new WebSocket(url);
          ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "slotSubscribe" }));
          ws.onmessage = (m) => {
            ws.close();
            resolve(JSON.parse(String(m.data)) as unknown);
          };
          ws.onerror = () => resolve("error");
        });
      },
      `${sandbox.url.replace(/^http/, "ws")}/rpc/v1/solana-devnet/${key}`,
    );
    expect(subscribed).toMatchObject({ id: 1, result: expect.any(Number) });

    // A charge, so the dashboard has one to show.
    const charge = await call(sandbox, "POST", "/_sandbox/charges", {
      body: { network: "base-sepolia", name: "Poster", amount: "2500000", recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" },
    });
    expect(charge.status).toBe(201);

    const dashboard = await browser.page.context().newPage();
    try {
      await openDashboard(dashboard, sandbox.url, "client-rpc");
      await dashboard.getByRole("table", { name: "Charges" }).getByText("Poster").waitFor();
      expect(await dashboard.getByTestId("client-api-key").innerText()).toBe(key);
      await dashboard.screenshot({ path: "test-results/ui/client-rpc.png" });
      await dashboard.getByRole("button", { name: "Rotate the client API key" }).click();
      await dashboard.getByText(/old URL now answers 401/).waitFor();
      const fresh = (await dashboard.getByTestId("client-api-key").innerText()).trim();
      expect(fresh).toMatch(/^[0-9a-f]{32}$/);
      expect(fresh).not.toBe(key);

      const refused = await priceFromPage(rpcUrl);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: { code: -32001 } });
      expect((await priceFromPage(`${sandbox.url}/rpc/v1/base-sepolia/${fresh}`)).status).toBe(200);
    } finally {
      await dashboard.close();
    }
  });
});
