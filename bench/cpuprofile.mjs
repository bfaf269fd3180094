#!/usr/bin/env node
/**
 * `node bench/cpuprofile.mjs FILE [TOP] [FROM TO | WINDOWS.json]`: where a V8 CPU profile (`--cpu-prof`,
 * BENCH_CPU_PROF, BENCH_PROFILE) spent its time: self time by file (a package counts as one) and by function, as
 * shares of the samples that were not idle, then inclusive time by the sandbox's own file: each sample counts for
 * the innermost file of `dist/` on its stack, so a library's time goes to the file that called it (the client's
 * fetch and node's HTTP server, outside any of them, count apart), and those files grouped into a request's stages;
 * with a WINDOWS.json, the same stages in ms per call beside the thread's busy and idle (waiting) time. FROM and TO (monotonic microseconds, the clock of
 * `process.hrtime`) keep the samples of one window, so a run's start-up and set-up stay out; a WINDOWS.json
 * (BENCH_WINDOWS of the transaction benches) keeps those of the timed calls alone. The profiler samples wall time: on a busy machine a
 * thread that was descheduled inside a call (a wake-up of another thread, a socket write) counts that time there.
 */
import { readFileSync } from "node:fs";

const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error("usage: node bench/cpuprofile.mjs FILE [TOP] [FROM TO | WINDOWS.json]");
const profile = JSON.parse(readFileSync(file, "utf8"));
const top = Number(topArg ?? 40);
const windows = fromArg?.endsWith(".json") ? JSON.parse(readFileSync(fromArg, "utf8")) : [[Number(fromArg ?? 0), Number(toArg ?? Number.POSITIVE_INFINITY)]];
let w = 0; // samples come in time order, and so do the windows
const inWindow = (t) => {
  while (w < windows.length && windows[w][1] < t) w++;
  return w < windows.length && windows[w][0] <= t;
};
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parents = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);

const selfTime = new Map();
let busy = 0;
let idle = 0;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (!inWindow(at)) continue;
  if (nodes.get(profile.samples[i]).callFrame.functionName === "(idle)") {
    idle += dt;
    continue;
  }
  selfTime.set(profile.samples[i], (selfTime.get(profile.samples[i]) ?? 0) + dt);
  busy += dt;
}

const byFunction = new Map();
const byFile = new Map();
const add = (map, key, t) => map.set(key, (map.get(key) ?? 0) + t);
for (const [id, t] of selfTime) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const where = url
    .replace(/^file:\/\//, "")
    .replace(/.*node_modules\//, "nm/")
    .replace(/.*\/dist\//, "dist/");
  add(byFunction, `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`, t);
  const pkg = where.startsWith("nm/")
    ? where
        .split("/")
        .slice(0, where.startsWith("nm/@") ? 3 : 2)
        .join("/")
    : where || functionName;
  add(byFile, pkg, t);
}

// The innermost file of the sandbox on a sample's stack; outside any, the client's fetch or node's own machinery
// (a run of the EVM or of LiteSVM resumed after an await has no file of the sandbox on its stack: it counts as the runtime).
const byOwnFile = new Map();
const byStage = new Map();
const STAGES = [
  [/\/bench\/|^client/, "client: the bench's fetch (undici)"],
  [/dist\/auth\/|pipeline\/(authenticate|walletAuth|requestSignature)/, "token checks (the event loop's part)"],
  [/dist\/contract\//, "routing and validation"],
  [/pipeline\/(idempotency|duplicates|locks)/, "idempotency, duplicate effects, the project lock"],
  [/pipeline\/journal|journalRpc/, "journal"],
  [/products\/webhooks|wallet\/events|products\/settle/, "events, webhooks, settling due work"],
  [/wallet\/policies/, "policy evaluation"],
  [/wallet\/evm-accounts\/signing|crypto\/evm|wallet\/records/, "handler and signing (libsecp256k1, viem)"],
  [/dist\/store\//, "store reads and commit (write-ahead log)"],
  [/chain\/solana|crypto\/solana|crypto\/base58|litesvm/, "Solana: decoding, signatures, LiteSVM, ledger"],
  [/dist\/chain\/|@ethereumjs/, "EVM: ledger and runtime (ethereumjs)"],
  [/dist\/node\//, "the node's door and methods"],
  [/pipeline\/|dist\/app\.js/, "HTTP: body, exchange, response write"],
  [/^outside: \(garbage collector\)/, "garbage collection"],
  [/^outside: /, "node: HTTP parser, streams, event loop (both sides)"],
  [/./, "the sandbox's other files"],
];
const shortUrl = (url) => url.replace(/^file:\/\//, "").replace(/.*\/dist\//, "dist/");
for (const [id, t] of selfTime) {
  let key;
  for (let at = id; at !== undefined && !key; at = parents.get(at)) {
    const { url } = nodes.get(at).callFrame;
    if (url.includes("/dist/") && !url.includes("node_modules")) key = shortUrl(url);
    else if (url.includes("/bench/") || url.includes("undici")) key = "client: bench script and its fetch";
  }
  if (!key) {
    const { url, functionName } = nodes.get(id).callFrame;
    key = url.includes("undici") || url.includes("webstreams") ? "client: fetch (undici)" : `outside: ${url ? shortUrl(url) : functionName}`;
  }
  if (key.startsWith("outside: ")) {
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const { url } = nodes.get(at).callFrame;
      if (/@ethereumjs|litesvm/.test(url)) key = url.includes("litesvm") ? "litesvm" : "@ethereumjs";
    }
  }
  add(byOwnFile, key, t);
  add(byStage, STAGES.find(([pattern]) => pattern.test(key))[1], t);
}

function show(title, map) {
  console.log(`\n${title} (${(busy / 1000).toFixed(0)} ms not idle)`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
show("self time by file", byFile);
show("self time by function", byFunction);
show("inclusive time by the sandbox's innermost file", byOwnFile);
show("inclusive time by stage", byStage);
if (windows.length > 1) {
  const n = windows.length;
  const wall = windows.reduce((sum, [from, to]) => sum + to - from, 0);
  const ms = (t) => (t / 1000 / n).toFixed(2);
  console.log(`\nper call (${n} windows): ${ms(wall)} ms of wall time, ${ms(busy)} ms busy, ${ms(idle)} ms idle on this thread`);
  for (const [key, t] of [...byStage].sort((a, b) => b[1] - a[1])) console.log(`${ms(t).padStart(6)} ms  ${key}`);
}
