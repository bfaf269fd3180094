/**
 * A real front-end app on the embedded wallet: a small React app using @coinbase/cdp-react (built with Vite in
 * this file's setup, never committed), served on 127.0.0.1 and driven in Debian's Chromium. Pointed at the
 * sandbox by its base path, it signs in by email with the code read from the sandbox's inbox and shows the
 * address created on login; it signs in with Google through the sandbox's consent page. Screenshots go to
 * test-results/ui/.
 */
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Sandbox } from "cdp-sandbox";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { buildApp, codeSentTo, serveApp, signInByEmail } from "./viteApp.js";
import { type Browser, browserFound, openBrowser, openDashboard } from "./browser.js";
import { signInPage } from "cdp-sandbox/testing";

const APP_SOURCE = join(import.meta.dirname, "embedded-wallet-app");

let sandbox: Sandbox;
let browser: Browser;
let app: Server;
let appUrl: string;
let outDir: string;

beforeAll(async () => {
  [sandbox, browser, outDir] = await Promise.all([withSandbox({ seed: "embedded-wallet-app" }), openBrowser(), buildApp(APP_SOURCE)]);
  app = await serveApp(outDir);
  const { port } = app.address() as AddressInfo;
  const query = new URLSearchParams({ projectId: sandbox.credentials.projectId, basePath: sandbox.basePath });
  appUrl = `http://127.0.0.1:${port}/?${query}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => app?.close(resolve));
  await sandbox?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe.skipIf(!browserFound)("a React app using @coinbase/cdp-react, in Chromium", () => {
  it("signs in by email with the code from the inbox and shows the address created on login", async () => {
    const { page } = browser;
    await page.goto(appUrl);
    await signInByEmail(page, sandbox.url, "browser@example.com", () => browser.screenshot("embedded-wallet-email-code"));
    const address = page.getByTestId("address");
    await address.waitFor({ timeout: 20_000 });
    await browser.screenshot("embedded-wallet-signed-in");
    const shown = (await address.innerText()).trim();
    expect(shown).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // The developer's server sees the same user and account.
    const users = await call(sandbox, "GET", "/platform/v2/end-users");
    const user = (users.body.endUsers as Array<{ evmAccounts: string[]; authenticationMethods: unknown[] }>).find((u) => u.evmAccounts.includes(shown));
    expect(user?.authenticationMethods).toEqual([{ type: "email", email: "browser@example.com" }]);
  });

  it("stays signed in across a reload (the refresh token is an HttpOnly cookie) and signs out", async () => {
    const { page } = browser;
    const before = (await page.getByTestId("address").innerText()).trim();
    expect(await page.evaluate(() => document.cookie)).toBe(""); // HttpOnly: the page's script never sees it
    await page.reload();
    await page.getByTestId("address").waitFor({ timeout: 20_000 });
    expect((await page.getByTestId("address").innerText()).trim()).toBe(before);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("Not signed in.").waitFor();
    await page.reload();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await expect(page.getByTestId("address").count()).resolves.toBe(0);
  });

  it("signs in with Google through the sandbox's consent page and comes back signed in", async () => {
    const { page } = browser;
    await page.goto(appUrl);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await page.waitForURL(/\/_sandbox\/oauth\/authorize/);
    await page.getByLabel("Subject (sub)").fill("google-browser-1");
    await page.getByLabel("Email").fill("oauth@example.com");
    await browser.screenshot("embedded-wallet-oauth-consent");
    await page.getByRole("button", { name: "Continue" }).click();
    const address = page.getByTestId("address");
    await address.waitFor({ timeout: 20_000 });
    await browser.screenshot("embedded-wallet-oauth-signed-in");
    const shown = (await address.innerText()).trim();
    const users = await call(sandbox, "GET", "/platform/v2/end-users");
    const user = (users.body.endUsers as Array<{ evmAccounts: string[]; authenticationMethods: unknown[] }>).find((u) => u.evmAccounts.includes(shown));
    expect(user?.authenticationMethods).toEqual([{ type: "google", sub: "google-browser-1", email: "oauth@example.com" }]);
  });

  it("starts signed in through cdp-sandbox/testing: no sign-in screens, no inbox", async () => {
    const { page } = browser;
    // The app creates an account only in its sign-in flow: this end user gets one from the developer's server first.
    const made = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { authenticationMethods: [{ type: "email", email: "preset@example.com" }], evmAccount: { createSmartAccount: false } },
      wallet: true,
    });
    expect(made.status).toBe(201);
    await page.context().clearCookies();
    const signedIn = await signInPage(page, { sandbox, email: "preset@example.com" });
    expect(signedIn.endUser.userId).toBe(made.body.userId);
    await page.goto(appUrl);
    const address = page.getByTestId("address");
    await address.waitFor({ timeout: 20_000 });
    await browser.screenshot("embedded-wallet-testing-helper");
    expect((await address.innerText()).trim()).toBe(made.body.evmAccounts[0]);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
  });

  it("shows the codes in the dashboard's Inbox and saves the embedded-wallet settings there (needs npm run build)", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "inbox");
    await page.getByLabel("Sent to").fill("browser@example.com");
    await page.getByLabel("Sent to").press("Enter");
    const code = await codeSentTo(sandbox.url, "browser@example.com");
    await page.getByRole("table", { name: "Inbox" }).getByText(code).waitFor();
    await browser.screenshot("dashboard-inbox");

    // The embedded-wallet settings are edited there too.
    await page.getByLabel("settings.embeddedWallets (JSON)").fill(JSON.stringify({ allowedOrigins: ["https://shop.example"] }));
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Embedded-wallet settings saved.").waitFor();
    const project = await request(sandbox.url).get(`/_sandbox/projects/${sandbox.credentials.projectId}`);
    expect(project.body.settings.embeddedWallets).toEqual({ allowedOrigins: ["https://shop.example"] });
  });
});
