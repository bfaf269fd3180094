#!/usr/bin/env node
/**
 * `node bench/cpuprofile.mjs FILE [TOP] [FROM TO]`: where a V8 CPU profile (`--cpu-prof`, BENCH_CPU_PROF,
 * BENCH_PROFILE) spent its time: self time by file (a package counts as one) and by function, as shares of the
 * samples that were not idle. FROM and TO (monotonic microseconds, the clock of `process.hrtime`) keep the samples
 * of one window, so a run's start-up and set-up stay out. The profiler samples wall time: on a busy machine a
 * thread that was descheduled inside a call (a wake-up of another thread, a socket write) counts that time there.
 */
import { readFileSync } from "node:fs";

const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error("usage: node bench/cpuprofile.mjs FILE [TOP] [FROM TO]");
const profile = JSON.parse(readFileSync(file, "utf8"));
const top = Number(topArg ?? 40);
const from = Number(fromArg ?? 0);
const to = Number(toArg ?? Number.POSITIVE_INFINITY);
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));

const selfTime = new Map();
let busy = 0;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (at < from || at > to || nodes.get(profile.samples[i]).callFrame.functionName === "(idle)") continue;
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

function show(title, map) {
  console.log(`\n${title} (${(busy / 1000).toFixed(0)} ms not idle)`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
show("self time by file", byFile);
show("self time by function", byFunction);
