/**
 * The dashboard's request-signing view in headless Chromium: a key registered there makes the project's next
 * unsigned request a 401, and removing it there lets unsigned requests through again.
 */
import { generateKeyPairSync } from "node:crypto";
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { P } from "#test/helpers/money.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { type Browser, browserFound, openBrowser, openDashboard } from "./browser.js";

const WAIT = { timeout: 10_000, interval: 100 };

let sandbox: Sandbox;
let browser: Browser;
beforeAll(async () => {
  [sandbox, browser] = await Promise.all([withSandbox({ seed: "dashboard-signing-keys" }), openBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!browserFound)("the dashboard's request signing", () => {
  it("registers a key, after which unsigned requests are refused, and removes it again", async () => {
    const publicKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const { page } = browser;
    await openDashboard(page, sandbox.url, "signing-keys");
    await page.getByLabel("kid").fill("dashboard-key");
    await page.getByLabel("RSA public key (PEM, 2048 bits or more)").fill(publicKey);
    await page.getByRole("button", { name: "Register" }).click();
    await expect.poll(async () => (await page.getByRole("table", { name: "Request-signing keys" }).innerText()).includes("dashboard-key"), WAIT).toBe(true);
    const refused = await call(sandbox, "GET", `${P}/evm/accounts`);
    expect(refused.status).toBe(401);
    expect(refused.body.errorMessage).toMatch(/X-Signature: missing/);
    await browser.screenshot("signing-keys");

    await page.getByRole("button", { name: "Remove key dashboard-key" }).click();
    await page.getByText("No key: requests need no X-Signature.").waitFor(WAIT);
    expect((await call(sandbox, "GET", `${P}/evm/accounts`)).status).toBe(200);
  });
});
