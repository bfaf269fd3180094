/**
 * The dashboard at work in headless Chromium, against a sandbox driven over
 * the platform API: what the API did shows up in the explorer and the
 * journal, and what the user does in the dashboard (move the clock, replay a
 * delivery, switch a scenario on) changes how the sandbox answers next.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sandbox } from "cdp-sandbox";
import type { Locator } from "playwright-core";
import { encodeErrorResult, serializeTransaction, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fundAccount, openAccount, P } from "#test/helpers/money.js";
import { type Receiver, startReceiver } from "#test/helpers/receiver.js";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { writeUncheckableContract } from "#test/helpers/uncheckableContract.js";
import { flush, subscribe } from "#test/helpers/webhooks.js";
import { type Browser, browserFound, openBrowser, openDashboard } from "./browser.js";

/** How long the page may take to show what a test waits for (it polls the sandbox once a second). */
const WAIT = { timeout: 10_000, interval: 100 };
/** The visible text of what a locator finds ("" while it finds nothing yet). */
const text = async (l: Locator) => ((await l.count()) === 0 ? "" : (await l.first().innerText()).trim());

let sandbox: Sandbox;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  [sandbox, browser, receiver] = await Promise.all([withSandbox({ seed: "dashboard" }), openBrowser(), startReceiver()]);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await sandbox?.close();
});

describe.skipIf(!browserFound)("the dashboard", () => {
  it("finds an account created and a transaction sent over the API in the explorer", async () => {
    const created = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "explorer-sender" }, wallet: true });
    expect(created.status).toBe(201);
    const from = created.body.address as string;
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" });
    const to = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const transaction = serializeTransaction({ type: "eip1559", chainId: 84532, to, value: 1234n });
    const sent = await call(sandbox, "POST", `${P}/evm/accounts/${from}/send/transaction`, { body: { network: "base-sepolia", transaction }, wallet: true });
    expect(sent.status).toBe(200);
    const hash = sent.body.transactionHash as string;

    const { page } = browser;
    await openDashboard(page, sandbox.url, "accounts");
    await page.getByRole("table", { name: "EVM accounts" }).getByText("explorer-sender").waitFor();

    await page.getByRole("link", { name: "Explorer" }).click();
    const row = page
      .getByRole("table", { name: /Transactions of block/ })
      .getByRole("row")
      .filter({ hasText: "native-transfer" });
    await expect.poll(() => text(row), WAIT).toContain(`Sent 0.000000000000001234 ETH to ${to}`);
    await page.getByLabel("Find a transaction or address").fill(hash);
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByText(hash, { exact: true }).waitFor();
    await expect.poll(() => text(page.locator("dl.facts")), WAIT).toContain("success");
    await page.getByLabel("Find a transaction or address").fill(from);
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByText("EVM account 'explorer-sender'").waitFor();
    await expect.poll(() => text(page.getByRole("table", { name: "Transactions of the address" })), WAIT).toContain("native-transfer");
    await browser.screenshot("explorer");
  });

  it("advances the clock from the header: a quoted transfer expires and a processing one settles", async () => {
    await call(sandbox, "POST", "/_sandbox/clock", { body: { freeze: true }, anonymous: true });
    const a = await openAccount(sandbox, { name: "A" });
    const b = await openAccount(sandbox, { name: "B" });
    await fundAccount(sandbox, a, "usdc", "100");
    const body = (execute: boolean) => ({
      source: { accountId: a, asset: "usdc" },
      target: { accountId: b, asset: "usdc" },
      amount: "10",
      asset: "usdc",
      execute,
    });
    const quoted = await call(sandbox, "POST", `${P}/transfers`, { body: body(false) });
    const processing = await call(sandbox, "POST", `${P}/transfers`, { body: body(true) });
    expect([quoted.body.status, processing.body.status]).toEqual(["quoted", "processing"]);

    const { page } = browser;
    await openDashboard(page, sandbox.url, "transfers");
    const rowOf = (id: string) => page.getByRole("table", { name: "Transfers" }).getByRole("row").filter({ hasText: id });
    await expect.poll(() => text(rowOf(quoted.body.transferId).locator("td").nth(1)), WAIT).toBe("quoted");
    await expect.poll(() => text(rowOf(processing.body.transferId).locator("td").nth(1)), WAIT).toBe("processing");

    await page.getByLabel("Advance by").fill("20m");
    await page.getByRole("button", { name: "Advance", exact: true }).click();
    await expect.poll(() => text(rowOf(quoted.body.transferId).locator("td").nth(1)), WAIT).toBe("expired");
    await expect.poll(() => text(rowOf(processing.body.transferId).locator("td").nth(1)), WAIT).toBe("completed");
    expect((await call(sandbox, "GET", `${P}/transfers/${processing.body.transferId}`)).body.status).toBe("completed");
    await browser.screenshot("transfers-after-advance");
  });

  it("replays a webhook delivery: a second attempt is made and shown", async () => {
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
    const test = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-replay" } }, anonymous: true });
    expect(test.status).toBe(200);
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(1);

    const { page } = browser;
    await openDashboard(page, sandbox.url, "webhooks");
    const delivery = page.locator("details.delivery").filter({ hasText: "onramp.transaction.success" }).first();
    await delivery.locator(":scope > summary").click();
    await expect.poll(() => text(delivery.locator(":scope > summary")), WAIT).toContain("1 attempt");
    await delivery.getByRole("button", { name: /^Replay delivery/ }).click();
    await expect.poll(() => text(page.getByRole("status")), WAIT).toContain("attempt 2");
    await expect.poll(() => text(delivery.locator(":scope > summary")), WAIT).toContain("2 attempts");
    // Each attempt shows the headers it sent, its signature included.
    const signature = String(receiver.received(sub.path)[1]!.headers["x-hook0-signature"]);
    await expect.poll(async () => (await delivery.locator("table").first().textContent()) ?? "", WAIT).toContain(signature);
    expect(receiver.received(sub.path)).toHaveLength(2);
    expect(receiver.received(sub.path)[1]!.rawBody).toBe(receiver.received(sub.path)[0]!.rawBody);
    await browser.screenshot("webhook-replayed");
  });

  it("shows a journal entry with its validation problem, and its request and response", async () => {
    const bad = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "no spaces allowed!" }, wallet: true });
    expect(bad.status).toBe(400);
    const { page } = browser;
    await openDashboard(page, sandbox.url, "journal");
    await page.getByLabel("Status").selectOption("4xx");
    const row = page.getByRole("table", { name: "Requests" }).getByRole("row").filter({ hasText: "createEvmAccount" }).first();
    await expect.poll(() => text(row.locator(".problem")), WAIT).toContain("name");
    await row.getByRole("link").click();
    await expect.poll(() => text(page.getByRole("region", { name: "Request detail" })), WAIT).toContain(bad.body.correlationId);
    await expect.poll(() => text(page.getByRole("region", { name: "Request detail" })), WAIT).toContain("no spaces allowed!");
    await browser.screenshot("journal-problem");
  });

  it("shows a --spec contract's schemas the validator cannot compile above the coverage, and none for the platform's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-ui-unchecked-"));
    const own = await withSandbox({ seed: "dashboard-unchecked", spec: writeUncheckableContract(dir), handlers: {} });
    try {
      const { page } = browser;
      await openDashboard(page, own.url, "coverage");
      const unchecked = page.getByRole("table", { name: "Schemas never checked" });
      await expect.poll(() => text(unchecked), WAIT).toContain("postUncheckedCode query limit");
      expect(await text(unchecked)).toContain("schema is invalid: data/maximum must be number");
      expect(await text(unchecked)).toContain("postUncheckedCode request body application/json");
      await browser.screenshot("coverage-unchecked");
      await openDashboard(page, sandbox.url, "coverage");
      await page.getByRole("table", { name: "Operations" }).or(page.getByText("No operation was called yet.")).first().waitFor();
      expect(await page.getByRole("heading", { name: "Schemas never checked" }).count()).toBe(0);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows contract coverage: the request that broke the contract first, linking to its journal entry, then the operations", async () => {
    const bad = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "coverage view!" }, wallet: true });
    expect(bad.status).toBe(400);
    const missing = await call(sandbox, "GET", `${P}/evm/accounts/0x000000000000000000000000000000000000dEaD`);
    expect(missing.status).toBe(404);
    const { page } = browser;
    await openDashboard(page, sandbox.url, "coverage");
    const violations = page.getByRole("table", { name: "Contract violations" });
    // Requests that broke the contract the same way are one violation, counted, linking to the first of them.
    const row = violations.getByRole("row").filter({ hasText: "createEvmAccount" });
    await expect.poll(() => text(row), WAIT).toContain("validation");
    expect(await text(violations)).not.toContain("getEvmAccount");
    await expect
      .poll(
        () =>
          text(
            page
              .getByRole("table", { name: "Operations" })
              .getByRole("row")
              .filter({ has: page.getByText("getEvmAccount", { exact: true }) }),
          ),
        WAIT,
      )
      .toContain("404 ×1");
    await browser.screenshot("coverage");
    const first = await text(row.getByRole("link"));
    expect(first).toMatch(/^[0-9a-f]{16}-SBX$/);
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: "Request journal" }).waitFor();
    await expect.poll(() => text(page.getByRole("region", { name: "Request detail" })), WAIT).toContain(first);
    expect(await text(page.getByRole("region", { name: "Request detail" }))).toContain("yes: the validation check refused it");
  });

  it("filters the journal by door: a JSON-RPC node call shows with its method and error", async () => {
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const rpc = await fetch(`${sandbox.url}/rpc/v1/base-sepolia/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_notAMethod", params: [] }),
    });
    expect(rpc.status).toBe(200);
    const { page } = browser;
    await openDashboard(page, sandbox.url, "journal");
    await page.getByLabel("Door").selectOption("node");
    const row = page.getByRole("table", { name: "Requests" }).getByRole("row").filter({ hasText: "eth_notAMethod" }).first();
    await expect.poll(() => text(row), WAIT).toContain("-32601");
    // The node row shows under every door too: wait for the filter to have dropped the platform's rows.
    await expect.poll(() => page.getByRole("table", { name: "Requests" }).getByRole("row").filter({ hasText: "createEvmAccount" }).count(), WAIT).toBe(0);
    await browser.screenshot("journal-node");
  });

  it("shows where a node call's EVM run reverted on its journal entry: the contract, the error and the reason", async () => {
    // Init code that reverts with Error("nope"): it copies the revert data that follows it in the code, and returns it.
    const reason = encodeErrorResult({
      abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }],
      errorName: "Error",
      args: ["nope"],
    });
    const size = toHex((reason.length - 2) / 2, { size: 1 }).slice(2);
    const copy = `60${size}600c600039`; // CODECOPY(0, 12, size): the data after these 12 bytes of code
    const revert = `60${size}6000fd`; // REVERT(0, size)
    const initCode = `0x${copy}${revert}${reason.slice(2)}`;
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const rpc = await fetch(`${sandbox.url}/rpc/v1/base-sepolia/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: initCode }, "latest"] }),
    });
    expect((await rpc.json()).error).toMatchObject({ code: 3, message: "execution reverted: nope" });
    const { page } = browser;
    await openDashboard(page, sandbox.url, "journal");
    await page.getByLabel("Door").selectOption("node");
    const row = page.getByRole("table", { name: "Requests" }).getByRole("row").filter({ hasText: "eth_call" }).first();
    await expect.poll(() => text(row), WAIT).toContain("execution reverted");
    await row.getByRole("link").click();
    const reverts = page.getByRole("table", { name: "Where the EVM runs of this request failed" });
    await expect.poll(() => text(reverts), WAIT).toContain("nope");
    expect(await text(reverts)).toMatch(/0\s+0x[0-9a-f]{8}…[0-9a-f]{6}\s+revert\s+nope\s+0x08c379a0… \(100 bytes\)/i);
    expect(await text(reverts)).toContain("a call");
    await browser.screenshot("journal-evm-revert");
  });

  it("shows new requests in the journal as they happen, without reloading", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "journal");
    await page.getByRole("table", { name: "Requests" }).waitFor();
    const created = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "live-journal" }, wallet: true });
    expect(created.status).toBe(201);
    const link = page.locator(`a[href="#/journal/${created.headers["x-correlation-id"]}"]`);
    // The next poll (once a second) brings it in; the page is never reloaded.
    await expect.poll(() => link.count(), WAIT).toBe(1);
    expect(await page.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(1);
    await link.click();
    await expect.poll(() => text(page.getByRole("region", { name: "Request detail" })), WAIT).toContain("live-journal");
    await browser.screenshot("journal-live");
  });

  it("is driven from the keyboard: skip link, views by Tab and Enter, named controls", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "accounts");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.getByRole("link", { name: "Journal" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Request journal" }).waitFor();
    // Every button, field and list has a name a screen reader reads out.
    const unnamed = await page.evaluate(
      () =>
        [...document.querySelectorAll("button, input, select, a")].filter((el) => {
          const labelled = el.id && document.querySelector(`label[for="${el.id}"]`);
          return !labelled && !el.getAttribute("aria-label") && !(el.textContent ?? "").trim();
        }).length,
    );
    expect(unnamed).toBe(0);
    await browser.screenshot("keyboard");
  });

  it("switches a scenario on for the project: the next request fails with its error", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "scenarios");
    await page.getByRole("button", { name: "Switch on rate-limit-exceeded" }).click();
    await expect.poll(() => text(page.getByRole("table", { name: "Active scenarios" })), WAIT).toContain("rate-limit-exceeded");
    const next = await call(sandbox, "GET", `${P}/evm/accounts`);
    expect(next.status).toBe(429);
    expect(next.body.errorType).toBe("rate_limit_exceeded");
    await browser.screenshot("scenario-on");
    await page.getByRole("button", { name: "Switch off rate-limit-exceeded" }).first().click();
    await expect.poll(() => page.getByRole("table", { name: "Active scenarios" }).count(), WAIT).toBe(0);
    expect((await call(sandbox, "GET", `${P}/evm/accounts`)).status).toBe(200);
  });

  it("injects one error into the project's next request of an operation, and only that one", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "scenarios");
    await page.getByLabel("Error case").selectOption("already_exists");
    await page.getByLabel("Only for operation").fill("createEvmAccount");
    await page.getByRole("button", { name: "Inject on next request" }).click();
    await expect.poll(() => text(page.getByRole("status")), WAIT).toContain("answers already_exists");
    expect((await call(sandbox, "GET", `${P}/evm/accounts`)).status).toBe(200);
    const first = await call(sandbox, "POST", `${P}/evm/accounts`, { body: {}, wallet: true });
    expect([first.status, first.body.errorType]).toEqual([409, "already_exists"]);
    expect((await call(sandbox, "POST", `${P}/evm/accounts`, { body: {}, wallet: true })).status).toBe(201);
    await browser.screenshot("inject-next-request");
  });

  it("creates a project and shows it: its accounts are its own", async () => {
    const { page } = browser;
    await openDashboard(page, sandbox.url, "state");
    await page.getByLabel("New project name").fill("ui-made");
    await page.getByRole("button", { name: "Create project" }).click();
    await expect.poll(() => text(page.getByRole("status")), WAIT).toContain("created and shown");
    const project = await page.getByRole("combobox", { name: "Project" }).inputValue();
    expect(project).not.toBe(sandbox.credentials.projectId);
    await page.getByRole("link", { name: "Accounts" }).click();
    await expect.poll(() => text(page.locator("main .empty")), WAIT).toBe("No evm accounts in this project.");
    await browser.screenshot("new-project");
  });
});

describe.skipIf(!browserFound)("the dashboard of a sandbox that requires its admin token", () => {
  it("loads its page without the token, asks for it once, and then shows the data", async () => {
    const guarded = await withSandbox({ seed: "dashboard-guarded", adminToken: "ui-admin-token" });
    const { page } = browser;
    try {
      await page.goto("about:blank");
      await page.goto(`${guarded.url}/_sandbox/ui/#/accounts`);
      const dialog = page.getByRole("dialog", { name: "Admin token" });
      await dialog.getByLabel("Admin token").fill("ui-admin-token");
      await dialog.getByRole("button", { name: "Use token" }).click();
      await page.waitForSelector("body[data-ready=true]");
      await page.getByRole("heading", { name: "Accounts" }).waitFor();
      expect(await page.getByRole("combobox", { name: "Project" }).inputValue()).toBe(guarded.credentials.projectId);
      await browser.screenshot("admin-token");
    } finally {
      await guarded.close();
    }
  });
});
