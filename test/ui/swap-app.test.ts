/**
 * OnchainKit's <Swap> under wagmi's `mock` connector, the wallet most component tests use, in Debian's Chromium: the
 * connector's account is the sandbox's first dev account, whose key the node holds, so the kit's quote, trade and
 * `eth_sendTransaction` all go to the sandbox's client URL and the swap settles on the ledger the REST API reads.
 * Outside hosts (OnchainKit's Inter font) are refused, as a test kept offline does.
 */
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";
import { buildApp, serveApp } from "./viteApp.js";
import { type Browser, browserFound, openBrowser } from "./browser.js";

const APP_SOURCE = join(import.meta.dirname, "swap-app");
const DEV_ACCOUNT = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

let sandbox: Sandbox;
let browser: Browser;
let app: Server;
let appUrl: string;
let outDir: string;
const outside: string[] = [];

beforeAll(async () => {
  [sandbox, browser, outDir] = await Promise.all([withSandbox({ seed: "swap-app", devAccounts: 1 }), openBrowser(), buildApp(APP_SOURCE)]);
  app = await serveApp(outDir);
  const { port } = app.address() as AddressInfo;
  const query = new URLSearchParams({ rpcUrl: await nodeUrlFor(sandbox, "base"), account: DEV_ACCOUNT });
  appUrl = `http://127.0.0.1:${port}/?${query}`;
  await browser.page.context().route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  await sandbox?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** The account's USDC on Base as the REST API lists it (smallest unit). */
async function usdcOf(address: string): Promise<bigint> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${address}`);
  const row = (res.body.balances as Array<{ token: { symbol: string }; amount: { amount: string } }>).find((b) => b.token.symbol === "USDC");
  return BigInt(row?.amount.amount ?? "0");
}

describe.skipIf(!browserFound)("OnchainKit's <Swap> with wagmi's mock connector on a dev account, in Chromium", () => {
  it("quotes and settles ETH → USDC through the node, which signs for the dev account", async () => {
    const { page } = browser;
    await page.goto(appUrl);
    await page.getByTestId("account").waitFor({ timeout: 20_000 });
    expect(await usdcOf(DEV_ACCOUNT)).toBe(0n);
    await page.getByPlaceholder("0.0").first().fill("0.01");
    // The quote fills the other amount (0.01 ETH at $3,000, less the 0.1 % fee: about 29.97 USDC).
    await expect.poll(() => page.getByPlaceholder("0.0").nth(1).inputValue(), { timeout: 20_000 }).toMatch(/^29\.9/);
    await browser.screenshot("swap-app-quoted");
    await page.getByRole("button", { name: "Swap" }).last().click();
    const hash = (await page.getByTestId("swapped").innerText({ timeout: 30_000 })).trim();
    await browser.screenshot("swap-app-settled");
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await usdcOf(DEV_ACCOUNT)).toBeGreaterThan(29_000_000n);
    const tx = await call(sandbox, "GET", `/_sandbox/chain/transactions/${hash}`);
    expect(tx.status).toBe(200);
    expect(tx.body.from.toLowerCase()).toBe(DEV_ACCOUNT.toLowerCase());
    expect(outside.some((url) => url.includes("fonts.googleapis.com"))).toBe(true);
  }, 90_000);
});
