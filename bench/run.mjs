#!/usr/bin/env node
/**
 * `npm run bench`: autocannon against (1) a bare Express 5 baseline, (2) an
 * authenticated, validated GET and (3) a wallet-signed, validated POST, all
 * in one run on this machine, with the same connections and duration. Prints
 * req/s, p99 and the ratio to the baseline of the same run, the CPU time the
 * server spent per request, in all and on its event loop (steadier than req/s
 * when other work shares the machine), the start-up time and the sandbox's
 * RSS after the runs. A measurement, never a test.
 *
 * Every server runs in a child process (the sandbox as `npm start` runs it:
 * `dist/cli.js` with the same Node flags), so none shares its event loop with
 * the load generator.
 * Tokens are minted right before each run (bearer tokens live 120 s, wallet
 * tokens 60 s), more than the run can send; each run is preceded by a short
 * warm-up that is not counted. Run `npm run build` first.
 *
 * BENCH_SECONDS (10), BENCH_CONNECTIONS (10), BENCH_STARTS (3: start-ups timed, median printed).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { bearerFactory, walletFactory } from "./tokens.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const STARTS = Number(process.env.BENCH_STARTS ?? 3);
/** BENCH_CPU_PROF=DIR: the sandbox writes a V8 CPU profile of its runs there (open it in Chrome DevTools). */
const PROFILE = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
/** BENCH_HEAPSNAPSHOT=DIR: the sandbox writes a V8 heap snapshot there after the runs (`node bench/heap.mjs FILE` reads it). */
const HEAP_DIR = process.env.BENCH_HEAPSNAPSHOT;
const HEAP = HEAP_DIR ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${HEAP_DIR}`] : [];
const WARMUP_REQUESTS = 500;
/** The Node flags `npm start` runs the sandbox with (package.json), so the figures are those of the shipped command. */
const START_FLAGS = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  .scripts.start.split(" ")
  .filter((a) => a.startsWith("--"));
/**
 * Above any rate these machines reach (the authenticated GET has run at ~9,000 req/s): a token is used once, and
 * a run that runs out answers 401s, which would count as throughput.
 */
const tokensPerRun = DURATION * 16000 + WARMUP_REQUESTS;
if (DURATION > 50) throw new Error("BENCH_SECONDS must be at most 50: wallet tokens minted before a run expire after 60 s (+30 s leeway)");

/** Spawns a server and resolves with its first stdout line, parsed as key=value fields. */
async function spawnServer(args, extraNodeArgs = []) {
  const child = spawn(process.execPath, [...extraNodeArgs, ...args], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    let text = "";
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with code ${code} before it was ready`)));
    // Keep draining stdout after the first line, so the child never blocks or dies on a closed pipe.
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end >= 0) resolve(text.slice(0, end));
    });
  });
  return { child, fields: Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])) };
}

function stop(child) {
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

const mint = (n, make) => Promise.all(Array.from({ length: n }, make));

/**
 * One start of the sandbox as users run it: milliseconds from spawning
 * `node dist/cli.js --port 0` to the ready line, to the first answered
 * `GET /_sandbox/health`, and to the first answered (authenticated, validated)
 * `GET /platform/v2/evm/accounts`.
 */
async function timeStart() {
  const t0 = performance.now();
  const { child, fields } = await spawnServer([join(root, "dist/cli.js"), "--port", "0", "--seed", "bench"], [...START_FLAGS, ...PROFILE, ...HEAP]);
  const ready = performance.now() - t0;
  const url = new URL(fields.basePath).origin;
  const health = await fetch(`${url}/_sandbox/health`);
  const healthMs = performance.now() - t0;
  const bearer = await bearerFactory(fields.apiKeyId, fields.apiKeySecret);
  const path = "/platform/v2/evm/accounts";
  const platform = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${await bearer("GET", new URL(url).host, path)}` } });
  const platformMs = performance.now() - t0;
  if (!health.ok || !platform.ok) throw new Error(`start-up requests failed: health ${health.status}, platform ${platform.status}`);
  return { child, fields, url, host: new URL(url).host, ready, healthMs, platformMs };
}

function run(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/** Not counted: lets the server compile what it compiles on first use, as any long-running server has. */
function warmUp(opts) {
  return new Promise((resolve, reject) =>
    autocannon({ connections: CONNECTIONS, amount: WARMUP_REQUESTS, ...opts }, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU time (user + system, all threads) the process has used, in ms: /proc/PID/stat fields 14 and 15, in clock ticks. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The same for the process's main thread alone: the event loop, which bounds throughput when cores are free. */
function eventLoopMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * A warmed-up run against the server in process `pid`, with the CPU time the
 * server spent per answered request, in all and on its event loop: unlike
 * req/s, these hardly move when other work shares the machine.
 */
async function measured(pid, opts) {
  await warmUp(opts);
  const cpuBefore = cpuMsOf(pid);
  const loopBefore = eventLoopMsOf(pid);
  const result = await run(opts);
  result.cpuUsPerRequest = ((cpuMsOf(pid) - cpuBefore) * 1000) / result.requests.total;
  result.loopUsPerRequest = ((eventLoopMsOf(pid) - loopBefore) * 1000) / result.requests.total;
  return result;
}

function summary(name, r, baseline) {
  const rps = r.requests.average;
  const ratio = baseline ? ` (${((rps / baseline) * 100).toFixed(0)}% of bare Express)` : "";
  const errors = r.non2xx + r.errors + r.timeouts;
  const cpu = `server CPU ${r.cpuUsPerRequest.toFixed(0).padStart(4)} µs/request (event loop ${r.loopUsPerRequest.toFixed(0).padStart(4)})`;
  const invalid = errors > 0 ? "  NOT VALID: answers other than 2xx count as throughput" : "";
  return `${name.padEnd(30)} ${rps.toFixed(0).padStart(6)} req/s  p99 ${String(r.latency.p99).padStart(3)} ms  ${cpu}  non-2xx ${errors}${ratio}${invalid}`;
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadBefore = loadavg()[0];

// Start-up, timed STARTS times; the last start is the one benchmarked.
const starts = [];
for (let i = 0; i < STARTS; i++) {
  const start = await timeStart();
  starts.push(start);
  if (i < STARTS - 1) await stop(start.child);
}
const sandbox = starts[starts.length - 1];
const rssIdle = rssOf(sandbox.child.pid);
const bearer = await bearerFactory(sandbox.fields.apiKeyId, sandbox.fields.apiKeySecret);
const wallet = await walletFactory(sandbox.fields.walletSecret);

// Baseline: bare Express 5 in its own process.
const bare = await spawnServer([join(root, "bench/bare-express.mjs")]);
const bareResult = await measured(bare.child.pid, { url: `http://127.0.0.1:${bare.fields.port}/ping` });
await stop(bare.child);

const GET_PATH = "/platform/v2/evm/accounts";
// The POST signs with a real account, created first like any client would.
const created = await fetch(`${sandbox.url}${GET_PATH}`, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    authorization: `Bearer ${await bearer("POST", sandbox.host, GET_PATH)}`,
    "x-wallet-auth": await wallet("POST", sandbox.host, GET_PATH, { name: "bench" }),
  },
  body: JSON.stringify({ name: "bench" }),
}).then((r) => r.json());
if (!created.address) throw new Error(`could not create the benchmark account: ${JSON.stringify(created)}`);
const POST_PATH = `/platform/v2/evm/accounts/${created.address}/sign/message`;
const postBody = { message: "hello from the benchmark" };

console.log(`minting ${tokensPerRun} bearer tokens for the GET run ...`);
const getTokens = await mint(tokensPerRun, () => bearer("GET", sandbox.host, GET_PATH));
let g = 0;
const getResult = await measured(sandbox.child.pid, {
  url: `${sandbox.url}${GET_PATH}`,
  requests: [{ method: "GET", setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${getTokens[g++]}` } }) }],
});

console.log(`minting ${tokensPerRun} bearer and ${tokensPerRun} wallet tokens for the POST run ...`);
const postTokens = await mint(tokensPerRun, () => bearer("POST", sandbox.host, POST_PATH));
const walletTokens = await mint(tokensPerRun, () => wallet("POST", sandbox.host, POST_PATH, postBody));
let p = 0;
const postResult = await measured(sandbox.child.pid, {
  url: `${sandbox.url}${POST_PATH}`,
  requests: [
    {
      method: "POST",
      body: JSON.stringify(postBody),
      setupRequest: (req) => {
        const i = p++;
        return {
          ...req,
          headers: { ...req.headers, "content-type": "application/json", authorization: `Bearer ${postTokens[i]}`, "x-wallet-auth": walletTokens[i] },
        };
      },
    },
  ],
});
const rss = rssOf(sandbox.child.pid);
if (HEAP_DIR) {
  sandbox.child.kill("SIGUSR2");
  // Written on the sandbox's main thread: once it answers again, the snapshot is complete.
  for (let attempt = 0; attempt < 60; attempt++) {
    if (
      await fetch(`${sandbox.url}/_sandbox/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
await stop(sandbox.child);

const base = bareResult.requests.average;
console.log(
  `\ncdp-sandbox benchmark: ${DURATION} s per run, ${CONNECTIONS} connections, node ${process.version}, ${cpus().length} CPUs, load average ${loadBefore.toFixed(2)} before / ${loadavg()[0].toFixed(2)} after`,
);
console.log(summary("bare Express 5 GET (baseline)", bareResult));
console.log(summary("authenticated, validated GET", getResult, base));
console.log(summary("wallet-signed, validated POST", postResult, base));
const ms = (key) => `${median(starts.map((s) => s[key])).toFixed(0)} ms`;
console.log(
  `start-up (median of ${STARTS}): ready line ${ms("ready")}, first GET /_sandbox/health ${ms("healthMs")}, first authenticated GET /platform ${ms("platformMs")}`,
);
console.log(`sandbox RSS: ${rssIdle.toFixed(0)} MB after start-up, ${rss.toFixed(0)} MB after the runs`);
