/**
 * The React kit's own key export against the sandbox: a small app using @coinbase/cdp-react (built with Vite in this
 * file's setup, never committed) signs in by email with the code from the sandbox's inbox, then its
 * CopyEvmKeyButton loads the secure iframe from `secureIframeBasePath` = <sandbox>/_sandbox/secure-iframe, posts the
 * access token to it, and the key lands on the clipboard: its address is the user's. In Debian's Chromium.
 */
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Sandbox } from "cdp-sandbox";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withSandbox } from "#test/helpers/sandbox.js";
import { buildApp, serveApp, signInByEmail } from "./viteApp.js";
import { type Browser, browserFound, openBrowser } from "./browser.js";

const APP_SOURCE = join(import.meta.dirname, "export-key-app");

let sandbox: Sandbox;
let browser: Browser;
let app: Server;
let appUrl: string;
let outDir: string;

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "export-key-app" });
  [browser, outDir] = await Promise.all([openBrowser(), buildApp(APP_SOURCE)]);
  await browser.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  app = await serveApp(outDir);
  const { port } = app.address() as AddressInfo;
  const query = new URLSearchParams({
    projectId: sandbox.credentials.projectId,
    basePath: sandbox.basePath,
    secureIframeBasePath: `${sandbox.url}/_sandbox/secure-iframe`,
  });
  appUrl = `http://127.0.0.1:${port}/?${query}`;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  await sandbox?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe.skipIf(!browserFound)("CopyEvmKeyButton of @coinbase/cdp-react with the sandbox's secure iframe", () => {
  it("copies the signed-in user's EVM key: its address is the one the app shows", async () => {
    const { page } = browser;
    await page.goto(appUrl);
    await signInByEmail(page, sandbox.url, "export@example.com");
    const address = (await page.getByTestId("address").innerText({ timeout: 20_000 })).trim();

    await page.getByTestId("export-status").getByText("ready").waitFor({ timeout: 20_000 });
    await page.frameLocator("iframe").getByRole("button", { name: "Copy key" }).click();
    await page.getByTestId("export-status").getByText("copied").waitFor({ timeout: 20_000 });
    await browser.screenshot("export-key-app-copied");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(privateKeyToAddress(copied as `0x${string}`)).toBe(address);
  }, 90_000);
});
