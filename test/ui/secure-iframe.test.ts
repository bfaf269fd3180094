/**
 * The key-export iframe the sandbox serves for the React kit (`secureIframeBasePath` = <sandbox>/_sandbox/secure-iframe),
 * in Debian's Chromium: an app page on another origin frames it and speaks the kit's postMessage protocol as
 * @coinbase/cdp-react's useKeyExportPostMessage does (LISTENING → GET_PRIVATE_KEY with the access token → STATUS).
 * The signed-in state comes from the admin shortcut POST /_sandbox/end-users/{userId}/token (the kit's export
 * components cannot mount without a sign-in, whose endpoints are not part of this test).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { ed25519 } from "@noble/curves/ed25519.js";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox } from "#test/helpers/sandbox.js";
import { type Browser, browserFound, openBrowser } from "./browser.js";

let sandbox: Sandbox;
let browser: Browser;
let app: Server;
let appUrl: string;

/** The app's page: frames the export iframe and relays the protocol, recording every status it is told. */
const APP_PAGE = `<!doctype html><html><body><div id="slot"></div><script>
const PREFIX = "CDP_WEB_SECURE_IFRAME_";
window.statuses = [];
window.startExport = (frameUrl, payload) => {
  const frame = document.createElement("iframe");
  frame.setAttribute("allow", "clipboard-read; clipboard-write");
  frame.src = frameUrl;
  frame.style.cssText = "border:none;width:320px;height:60px";
  const origin = new URL(frameUrl).origin;
  window.addEventListener("message", (event) => {
    if (event.source !== frame.contentWindow || event.origin !== origin) return;
    if (event.data.type === PREFIX + "LISTENING") frame.contentWindow.postMessage({ type: PREFIX + "GET_PRIVATE_KEY", payload }, origin);
    if (event.data.type === PREFIX + "STATUS") window.statuses.push(event.data.payload);
  });
  document.getElementById("slot").appendChild(frame);
};
</script></body></html>`;

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "secure-iframe" });
  app = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(APP_PAGE));
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  // Another origin than the sandbox's (another port), as a developer's app is.
  appUrl = `http://localhost:${(app.address() as AddressInfo).port}/`;
  browser = await openBrowser();
  await browser.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => app?.close(resolve));
  await sandbox?.close();
});

let n = 0;
async function signedInUser() {
  const userId = `frame-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: {}, solanaAccount: {} },
    wallet: true,
  });
  expect(created.status, created.text).toBe(201);
  const session = await endUserSession(sandbox, userId);
  return { userId, session, evm: created.body.evmAccounts[0] as string, sol: created.body.solanaAccounts[0] as string };
}

const frameUrl = () =>
  `${sandbox.url}/_sandbox/secure-iframe?fullWidth&projectId=${sandbox.credentials.projectId}&label=${encodeURIComponent("Copy key")}&icon`;

async function openApp(payload: object) {
  const page = browser.page;
  await page.goto(appUrl);
  await page.evaluate(
    ([url, p]) => (window as unknown as { startExport: (u: string, p: object) => void }).startExport(url as string, p as object),
    [frameUrl(), payload],
  );
  return page;
}
const statuses = () => browser.page.evaluate(() => (window as unknown as { statuses: Array<{ status: string; message?: string }> }).statuses);

/** Whether the sandbox serves the registration of a client's own Temporary Wallet Secret (the sign-in work adds it). */
describe.skipIf(!browserFound)("the key-export iframe", () => {
  it("is framed by another origin, says it is listening, turns ready on the access token, and reports an expired session", async () => {
    const u = await signedInUser();
    const page = await openApp({
      address: u.evm,
      type: "evm",
      authState: { accessToken: u.session.accessToken, expiresAt: Math.floor(Date.now() / 1000) - 1, user: { userId: u.userId } },
      theme: { buttonBg: "#123456" },
    });
    await expect.poll(statuses).toEqual([{ status: "ready" }]);
    const button = page.frameLocator("iframe").getByRole("button", { name: "Copy key" });
    await expect.poll(() => button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(18, 52, 86)");
    await browser.screenshot("secure-iframe-ready");
    await button.click();
    await expect.poll(statuses).toEqual([{ status: "ready" }, { status: "expired" }]);
  });

  it("exports the EVM key to the clipboard: its address is the user's", async () => {
    const u = await signedInUser();
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const page = await openApp({ address: u.evm, type: "evm", authState: { accessToken: u.session.accessToken, expiresAt, user: { userId: u.userId } } });
    await expect.poll(statuses).toEqual([{ status: "ready" }]);
    await page.frameLocator("iframe").getByRole("button", { name: "Copy key" }).click();
    await expect.poll(statuses, { timeout: 10_000 }).toEqual([{ status: "ready" }, { status: "success" }]);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(privateKeyToAddress(copied as `0x${string}`)).toBe(u.evm);
    await browser.screenshot("secure-iframe-copied");
  });

  it("exports the Solana key as base58 of seed and public key", async () => {
    const u = await signedInUser();
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const page = await openApp({ address: u.sol, type: "solana", authState: { accessToken: u.session.accessToken, expiresAt, user: { userId: u.userId } } });
    await expect.poll(statuses).toEqual([{ status: "ready" }]);
    await page.frameLocator("iframe").getByRole("button", { name: "Copy key" }).click();
    await expect.poll(statuses, { timeout: 10_000 }).toEqual([{ status: "ready" }, { status: "success" }]);
    const copied = new Uint8Array(getBase58Encoder().encode(await page.evaluate(() => navigator.clipboard.readText())));
    expect(copied).toHaveLength(64);
    expect(getBase58Decoder().decode(ed25519.getPublicKey(copied.slice(0, 32)))).toBe(u.sol);
  });
});
