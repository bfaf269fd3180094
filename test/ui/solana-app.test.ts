/**
 * @solana/web3.js in Debian's Chromium, given only the node's HTTP URL: its Connection finds the WebSocket at the
 * port plus one, which the sandbox serves, so confirmTransaction resolves through signatureSubscribe.
 */
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fund, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";
import { buildApp, serveApp } from "./viteApp.js";
import { type Browser, browserFound, openBrowser } from "./browser.js";

let sandbox: Sandbox;
let browser: Browser;
let app: Server;
let outDir: string;
const webSockets: string[] = [];

beforeAll(async () => {
  [browser, outDir] = await Promise.all([openBrowser(), buildApp(join(import.meta.dirname, "solana-app"))]);
  // Port + 1 of a port picked at random is free but for a rare race with another program: then try another.
  sandbox = await withSandbox({ wsPort: "next" });
  for (let i = 0; i < 5 && sandbox.wsPort === undefined; i++) {
    await sandbox.close();
    sandbox = await withSandbox({ wsPort: "next" });
  }
  app = await serveApp(outDir);
  browser.page.on("websocket", (ws) => webSockets.push(ws.url()));
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  await sandbox?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe.skipIf(!browserFound)("@solana/web3.js in Chromium with no wsEndpoint", () => {
  it("confirms a transfer through the WebSocket on port + 1", async () => {
    const payer = Keypair.generate();
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: String(LAMPORTS_PER_SOL) });
    const rpcUrl = await nodeUrlFor(sandbox, "solana-devnet");
    const query = new URLSearchParams({ rpcUrl, payer: Array.from(payer.secretKey).join(",") });
    await browser.page.goto(`http://127.0.0.1:${(app.address() as AddressInfo).port}/?${query}`);
    await expect.poll(() => browser.page.locator("#status").innerText(), { timeout: 30_000 }).toMatch(/^(confirmed|failed|error)/);
    expect(await browser.page.locator("#status").innerText()).toMatch(/^confirmed \w+/);
    const port = Number(new URL(sandbox.url).port);
    expect(webSockets.some((url) => url.startsWith(`ws://127.0.0.1:${port + 1}/rpc/v1/solana-devnet/`))).toBe(true);
  }, 60_000);
});
