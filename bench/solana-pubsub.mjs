#!/usr/bin/env node
/**
 * `node bench/solana-pubsub.mjs`: what an open `programSubscribe` on the Token program costs everyone else when the
 * project holds many token accounts. Starts the built command (`dist/cli.js --auth none`) with an init file of
 * BENCH_ACCOUNTS (10,000) Solana accounts holding USDC on solana-devnet (one token account each), then times 30
 * `GET /_sandbox/health` 50 ms apart with no subscription and again with one open: the median and the slowest, in ms.
 * A measurement, never a test. Run `npm run build` first; BENCH_ROOT points at another build (a "before").
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

const root = process.env.BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), "..");
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-pubsub-"));
const init = join(dir, "init.json");
const solanaAccounts = Array.from({ length: ACCOUNTS }, (_, i) => ({ name: `Holder${i}`, balances: { "solana-devnet": { USDC: "1" } } }));
writeFileSync(init, JSON.stringify({ solanaAccounts }));

const child = spawn(process.execPath, [join(root, "dist", "cli.js"), "--port", "0", "--auth", "none", "--init", init], { stdio: ["ignore", "pipe", "ignore"] });
try {
  const ready = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const origin = new URL(/basePath=(\S+)/.exec(ready)[1]).origin;
  const token = (await (await fetch(`${origin}/apikeys/v1/tokens/active`, { headers: { authorization: "Bearer any" } })).json()).id;

  const health = async (label) => {
    const times = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      await fetch(`${origin}/_sandbox/health`);
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
    times.sort((a, b) => a - b);
    console.log(`${label.padEnd(36)} GET /_sandbox/health median ${times[15].toFixed(1)} ms, slowest ${times[29].toFixed(1)} ms`);
  };

  console.log(`${ACCOUNTS} token accounts of the Token program`);
  await health("no subscription");
  const ws = new WebSocket(`${origin.replace(/^http/, "ws")}/rpc/v1/solana-devnet/${token}`);
  await new Promise((resolve) => ws.once("open", resolve));
  const started = performance.now();
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "programSubscribe", params: [TOKEN_PROGRAM, { encoding: "base64" }] }));
  await new Promise((resolve) => ws.once("message", resolve));
  console.log(`programSubscribe answered in ${(performance.now() - started).toFixed(1)} ms (its first snapshot)`);
  await health("one programSubscribe open");
  ws.close();
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
