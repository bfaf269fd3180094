#!/usr/bin/env node
/**
 * `node bench/cpuprofile.mjs FILE [TOP] [FROM TO | WINDOWS.json]`: where a V8 CPU profile (`--cpu-prof`,
 * BENCH_CPU_PROF, BENCH_PROFILE) spent its time: self time by file (a package counts as one) and by function, as
 * shares of the samples that were not idle, then inclusive time by the sandbox's own file: each sample counts for
 * the innermost file of `dist/` on its stack, so a library's time goes to the file that called it (the client's
 * fetch and node's HTTP server, outside any of them, count apart). FROM and TO (monotonic microseconds, the clock of
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
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (!inWindow(at) || nodes.get(profile.samples[i]).callFrame.functionName === "(idle)") continue;
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

// The innermost file of the sandbox on a sample's stack; outside any, the client's fetch or node's own machinery.
const byOwnFile = new Map();
const shortUrl = (url) => url.replace(/^file:\/\//, "").replace(/.*\/dist\//, "dist/");
for (const [id, t] of selfTime) {
  let key;
  for (let at = id; at !== undefined && !key; at = parents.get(at)) {
    const { url } = nodes.get(at).callFrame;
    if (url.includes("/dist/") && !url.includes("node_modules")) key = shortUrl(url);
    else if (url.includes("/bench/")) key = "client: bench script and its fetch";
  }
  if (!key) {
    const { url, functionName } = nodes.get(id).callFrame;
    key = url.includes("undici") || url.includes("webstreams") ? "client: fetch (undici)" : `outside: ${url ? shortUrl(url) : functionName}`;
  }
  add(byOwnFile, key, t);
}

function show(title, map) {
  console.log(`\n${title} (${(busy / 1000).toFixed(0)} ms not idle)`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
show("self time by file", byFile);
show("self time by function", byFunction);
show("inclusive time by the sandbox's innermost file", byOwnFile);
