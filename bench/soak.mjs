#!/usr/bin/env node
/**
 * `npm run soak`: a steady mixed load against the built command for a long
 * while (10 minutes by default), to see memory and latency hold: the sandbox's
 * RSS and the p50/p99 of the answers at the start, every minute and at the
 * end. A measurement, never a test; run `npm run build` first.
 *
 * The sandbox runs as `npm start` runs it (`dist/cli.js` with the same Node
 * flags, state in memory). The load, at a fixed rate: lists and reads of
 * accounts, wallet-signed message signatures, SQL queries, token balances,
 * policies created and deleted again, and a trickle of new accounts (the only
 * state that grows). Every request is signed as the official client signs it.
 *
 *   npm run soak -- [--seconds 600] [--rate 200] [--connections 8] [--fixed-state]
 *   (or SOAK_SECONDS, SOAK_RATE, SOAK_CONNECTIONS, SOAK_FIXED_STATE=true)
 *
 * --fixed-state leaves out the new accounts, so the state keeps its size and a
 * growing RSS would be a leak rather than data.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { makeSigner } from "../scripts/fuzz-tokens.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: process.env.SOAK_SECONDS ?? "600" },
    rate: { type: "string", default: process.env.SOAK_RATE ?? "200" },
    connections: { type: "string", default: process.env.SOAK_CONNECTIONS ?? "8" },
    "fixed-state": { type: "boolean", default: process.env.SOAK_FIXED_STATE === "true" },
  },
});
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const CONNECTIONS = Number(values.connections);
if (![SECONDS, RATE, CONNECTIONS].every((n) => Number.isFinite(n) && n > 0)) throw new Error("--seconds, --rate and --connections must be positive numbers");
const REPORT_EVERY_MS = Math.min(60_000, SECONDS * 1000);
const START_FLAGS = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  .scripts.start.split(" ")
  .filter((a) => a.startsWith("--"));

const child = spawn(process.execPath, [...START_FLAGS, join(root, "dist", "cli.js"), "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
child.once("exit", (code, signal) => {
  if (!stopping) {
    process.stderr.write(`soak: the sandbox exited during the run (${signal ?? `code ${code}`})\n`);
    process.exit(1);
  }
});
let stopping = false;
const ready = await new Promise((resolve) => {
  let text = "";
  child.stdout.on("data", (chunk) => {
    text += chunk;
    const end = text.indexOf("\n");
    if (end >= 0) resolve(text.slice(0, end));
  });
});
const fields = Object.fromEntries([...ready.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
const origin = new URL(fields.basePath);
const host = origin.host;
const signer = await makeSigner(fields, () => randomBytes(16).toString("hex"));
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/** The sandbox process's resident set, in MB (Linux /proc; ps elsewhere). */
function rssMb() {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]);
    return Math.round(kb / 1024);
  } catch {
    return Number.NaN;
  }
}

/** One signed request; resolves with its status (0 when no answer) and body. */
async function send(method, path, body, wallet = false) {
  const p = path.split("?")[0];
  const headers = { Host: host, Authorization: `Bearer ${await signer.bearer({ method, host, path: p })}` };
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text !== undefined) Object.assign(headers, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)) });
  if (wallet) headers["X-Wallet-Auth"] = await signer.walletAuth({ method, host, path: p, body });
  return new Promise((resolve) => {
    const req = http.request({ host: origin.hostname, port: origin.port, method, path, headers, agent, setHost: false }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let parsed;
        try {
          parsed = raw ? JSON.parse(raw) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode, body: parsed });
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: 0 }));
    req.end(text);
  });
}

const ACCOUNTS = "/platform/v2/evm/accounts";
const POLICIES = "/platform/v2/policy-engine/policies";
// A fixed set of accounts to read and sign with, created before the clock starts.
const addresses = [];
for (let i = 0; i < 20; i++) {
  const res = await send("POST", ACCOUNTS, { name: `soak-${i}` }, true);
  if (res.status !== 201) throw new Error(`could not create the soak accounts: ${res.status}`);
  addresses.push(res.body.address);
}
const policiesToDelete = [];
let created = 0;
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** The mix, by weight: each entry sends one request. */
const MIX = [
  [30, () => send("GET", `${ACCOUNTS}?pageSize=20`)],
  [20, () => send("GET", `${ACCOUNTS}/${pick(addresses)}`)],
  [15, () => send("POST", `${ACCOUNTS}/${pick(addresses)}/sign/message`, { message: `soak ${Math.random()}` }, true)],
  [
    8,
    async () => {
      const res = await send("POST", POLICIES, { scope: "account", description: "soak", rules: [{ action: "accept", operation: "signEvmHash" }] });
      if (res.status === 201) policiesToDelete.push(res.body.id);
      return res;
    },
  ],
  [8, () => (policiesToDelete.length ? send("DELETE", `${POLICIES}/${policiesToDelete.shift()}`) : send("GET", POLICIES))],
  [7, () => send("POST", "/platform/v2/data/query/run", { sql: "SELECT count(*) AS n FROM base.blocks" })],
  [7, () => send("GET", `/platform/v2/evm/token-balances/base-sepolia/${pick(addresses)}`)],
  [values["fixed-state"] ? 0 : 5, () => send("POST", ACCOUNTS, { name: `soak-new-${created++}` }, true)],
];
const TOTAL_WEIGHT = MIX.reduce((s, [w]) => s + w, 0);
function nextRequest() {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const [w, run] of MIX) {
    r -= w;
    if (r < 0) return run;
  }
  return MIX[0][1];
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : Number.NaN);
let window = { latencies: [], errors: 0, statuses: new Map() };
const all = [];
let inFlight = 0;
let skipped = 0;
const startedAt = performance.now();
const rssAtStart = rssMb();
const lines = [];
const say = (line) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
say(
  `soak: ${SECONDS} s at ${RATE} req/s, ${CONNECTIONS} connections${values["fixed-state"] ? ", fixed state (no new accounts)" : ""}; ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; sandbox RSS at start ${rssAtStart} MB`,
);

/** The RSS at the first report (after a minute, or the whole run when shorter): what the end is compared with. */
let rssAfterFirstWindow;

/** One line for the window since the last: `label` is "end" for the last one. */
function report(label = "") {
  rssAfterFirstWindow ??= rssMb();
  const sorted = window.latencies.sort((a, b) => a - b);
  all.push(...sorted);
  const statuses = [...window.statuses.entries()].map(([s, n]) => `${s}:${n}`).join(" ");
  const elapsed = Math.round((performance.now() - startedAt) / 1000);
  say(
    `${label.padEnd(3)} t=${String(elapsed).padStart(4)} s  requests ${String(sorted.length).padStart(6)}  p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms  RSS ${rssMb()} MB  non-2xx ${window.errors}  (${statuses})`,
  );
  window = { latencies: [], errors: 0, statuses: new Map() };
}

async function one() {
  inFlight++;
  const t0 = performance.now();
  const res = await nextRequest()();
  window.latencies.push(performance.now() - t0);
  window.statuses.set(res.status, (window.statuses.get(res.status) ?? 0) + 1);
  if (!(res.status >= 200 && res.status < 300)) window.errors++;
  inFlight--;
}

// A fixed rate: every 10 ms the requests due are started, unless CONNECTIONS × 4 are already waiting.
const perTick = RATE / 100;
let due = 0;
const ticker = setInterval(() => {
  due += perTick;
  while (due >= 1) {
    due--;
    if (inFlight >= CONNECTIONS * 4) skipped++;
    else void one();
  }
}, 10);
const reporter = setInterval(() => report(), REPORT_EVERY_MS);
await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
clearInterval(ticker);
clearInterval(reporter);
while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
if (window.latencies.length) report("end");
all.sort((a, b) => a - b);
const rssAtEnd = rssMb();
const growth = ((rssAtEnd - rssAfterFirstWindow) / rssAfterFirstWindow) * 100;
say(
  `overall: ${all.length} requests in ${SECONDS} s, p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, max ${(all.at(-1) ?? Number.NaN).toFixed(1)} ms; RSS ${rssAtStart} MB at start, ${rssAfterFirstWindow} MB after the first report, ${rssAtEnd} MB at the end (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %); ${skipped} requests not sent (too many waiting)`,
);
stopping = true;
agent.destroy();
child.kill("SIGTERM");
