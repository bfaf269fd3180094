#!/usr/bin/env node
/**
 * `node bench/ui.mjs`: how fast the dashboard is with a lot of state. A
 * sandbox (dist/cli.js, as `npm start` runs it) is started on a state file
 * holding 10,000 EVM accounts (each with two balances) and 10,000 ledger
 * transactions, and then answers 10,000 requests so its journal is full; the
 * dashboard is opened in headless Chromium (Debian's `chromium`, through
 * playwright-core) at 1280×800. It prints, as the median of BENCH_UI_RUNS
 * (5) fresh page loads: the first view interactive (navigation start to the
 * `dashboard-ready` mark: the accounts page drawn and its controls live),
 * the next page of accounts after a click, and the journal view (10,000
 * entries, the newest 100 drawn) after a click; and the bundle's size, raw
 * and gzipped. A measurement, never a test. Run `npm run build` first.
 * BENCH_UI_ACCOUNTS, BENCH_UI_REQUESTS (10000 each); BENCH_UI_VERBOSE=1 shows the sandbox's stderr.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ACCOUNTS = Number(process.env.BENCH_UI_ACCOUNTS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_UI_REQUESTS ?? 10_000);
const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const USDC = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";

function start(file) {
  const child = spawn(process.execPath, [join(root, "dist", "cli.js"), "--port", "0", "--data", file, "--auth", "none", "--seed", "bench-ui"], {
    cwd: root,
    stdio: ["ignore", "pipe", process.env.BENCH_UI_VERBOSE ? "inherit" : "ignore"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.once("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n") && !child.ready) {
        child.ready = true;
        resolve({ child, origin: new URL(/basePath=(\S+)/.exec(text)[1]).origin });
      }
    });
  });
}

const stop = (child) =>
  new Promise((resolve) => {
    child.removeAllListeners("exit");
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });

const hex = (bytes) => `0x${randomBytes(bytes).toString("hex")}`;

/** Adds the accounts, their balances and as many transactions to the default project of the state file. */
function grow(file) {
  const state = JSON.parse(readFileSync(file, "utf8"));
  const data = state.projects[state.defaultProjectId].data;
  data.evmAccounts ??= {};
  data.ledgerBalances ??= {};
  data.ledgerTxs ??= {};
  const createdAt = "2026-01-01T00:00:00.000Z";
  for (let i = 0; i < ACCOUNTS; i++) {
    const address = hex(20);
    data.evmAccounts[address] = { address, privateKey: hex(32), name: `bench-${i}`, policies: [], createdAt, updatedAt: createdAt };
    data.ledgerBalances[`base-sepolia|native|${address}`] = { network: "base-sepolia", asset: "native", holder: address, amount: "1000000000000000000" };
    data.ledgerBalances[`base-sepolia|${USDC}|${address}`] = { network: "base-sepolia", asset: USDC, holder: address, amount: "2500000" };
    const hash = hex(32);
    data.ledgerTxs[hash] = {
      ...{ hash, network: "base-sepolia", chainId: 84532, from: address, to: address, value: "1", input: "0x", nonce: 0 },
      ...{
        gas: "21000",
        gasUsed: "21000",
        gasPrice: "1000000",
        type: "eip1559",
        block: 1 + i,
        status: "success",
        logs: [],
        submittedAtMs: Date.parse(createdAt) + i,
      },
    };
  }
  writeFileSync(file, JSON.stringify(state));
}

/** Fills the journal: `REQUESTS` reads of the platform API, 16 at a time. */
async function fillJournal(origin) {
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next++;
      const res = await fetch(`${origin}/platform/v2/evm/accounts?pageSize=1`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const script = readFileSync(join(root, "dist", "ui", "app.js"));
  const style = readFileSync(join(root, "dist", "ui", "app.css"));
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-bench-ui-"));
  const file = join(dir, "state.json");
  let sandbox;
  let context;
  try {
    // A first start makes the default project; one account makes it write the state file.
    sandbox = await start(file);
    const first = await fetch(`${sandbox.origin}/platform/v2/evm/accounts`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    if (first.status !== 201) throw new Error(`creating the first account answered ${first.status}: ${await first.text()}`);
    await stop(sandbox.child);
    grow(file);
    sandbox = await start(file);
    const filled = performance.now();
    await fillJournal(sandbox.origin);
    console.log(
      `state: ${ACCOUNTS} accounts, ${2 * ACCOUNTS} balances, ${ACCOUNTS} transactions; ${REQUESTS} requests journaled in ${((performance.now() - filled) / 1000).toFixed(1)} s`,
    );
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 800 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const samples = { ready: [], nextPage: [], journal: [] };
    for (let run = 0; run < RUNS + 1; run++) {
      await page.goto("about:blank");
      await page.goto(`${sandbox.origin}/_sandbox/ui/#/accounts`);
      await page.waitForSelector("body[data-ready=true]");
      const ready = await page.evaluate(() => performance.getEntriesByName("dashboard-ready")[0].startTime);
      const shown = await page.locator("table tbody tr").count();
      let t = performance.now();
      await page.getByRole("button", { name: "Next page" }).click();
      await page.getByText(/^51–100 of \d+$/).waitFor();
      const nextPage = performance.now() - t;
      t = performance.now();
      await page.getByRole("link", { name: "Journal" }).click();
      await page.getByRole("table", { name: "Requests" }).waitFor();
      const journal = performance.now() - t;
      if (run === 0) {
        console.log(`first page shows ${shown} accounts (warm-up run not counted)`);
        continue;
      }
      samples.ready.push(ready);
      samples.nextPage.push(nextPage);
      samples.journal.push(journal);
    }
    const fmt = (xs) => `median ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    console.log(`first view interactive: ${fmt(samples.ready)}`);
    console.log(`next page of accounts: ${fmt(samples.nextPage)}`);
    console.log(`journal view (newest 100 of ${REQUESTS}): ${fmt(samples.journal)}`);
    console.log(
      `bundle: app.js ${script.length} bytes (${gzipSync(script).length} gzipped), app.css ${style.length} bytes (${gzipSync(style).length} gzipped)`,
    );
  } finally {
    await context?.close();
    if (sandbox) await stop(sandbox.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
