/**
 * Loaded into the sandbox the fuzzer starts (`node --import`): measures how long the sandbox's event loop was held
 * (a timer due every 10 ms, and how late it fires) and writes lines to stderr that the fuzzer reads:
 *
 *   fuzz-loop-stall ms=<ms> gc=<ms> requests=<JSON>
 *                                             for every stall over 100 ms: how much of it the garbage collector's
 *                                             pauses took, and the HTTP requests that were in flight while the loop
 *                                             was held ("METHOD target")
 *   fuzz-loop max=<ms> over100=<count> gc=<ms> requests=<JSON>
 *                                             as the process exits: the longest stall, with its collector's pauses
 *                                             and requests, and how many passed 100 ms
 *
 * A stall holds every other request, so it is a finding of its own, beside the slowest answer. The fuzzer sends one
 * request at a time, so the request named is the one that held the loop (or, with none named, work of the sandbox's
 * own: a delivery, a timer, the collector).
 */
import http from "node:http";
import { PerformanceObserver } from "node:perf_hooks";

const TICK_MS = 10;
const STALL_MS = 100;
const KEPT = 32;

/** The last requests the server received, with when their answer finished (undefined while in flight). */
const recent = [];
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  const [req, res] = args;
  if (event === "request") {
    const entry = { name: `${req.method} ${req.url}`.slice(0, 600), start: performance.now(), end: undefined };
    recent.push(entry);
    if (recent.length > KEPT) recent.shift();
    const done = () => {
      entry.end ??= performance.now();
    };
    res.once("finish", done);
    res.once("close", done);
  }
  return emit.call(this, event, ...args);
};

/** The garbage collector's last pauses: a stall is the request's own work, or the collector's, or both. */
const pauses = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    if (pauses.length > KEPT) pauses.shift();
  }
}).observe({ entryTypes: ["gc"] });

/** Milliseconds of the collector's pauses between from and to. */
function collectedWithin(from, to) {
  let ms = 0;
  for (const p of pauses) ms += Math.max(0, Math.min(to, p.end) - Math.max(from, p.start));
  return ms;
}

let last = performance.now();
let max = 0;
let over = 0;
let serving = false; // until the fuzzer says the sandbox is ready, a late tick is start-up (loading, compiling)
/** The longest stall's collector pauses and requests, once known (the longest may stay under 100 ms). */
let longest = { gc: 0, requests: [] };
setInterval(() => {
  const now = performance.now();
  const lag = now - last - TICK_MS;
  const isLongest = lag > max;
  if (isLongest) max = lag;
  if ((lag > STALL_MS || isLongest) && serving) {
    if (lag > STALL_MS) over++;
    const heldFrom = last + TICK_MS;
    const during = recent.filter((r) => r.start <= now && (r.end === undefined || r.end >= heldFrom)).map((r) => r.name);
    // The observer hears of a pause a few turns after it ended: report once its entries are in.
    setTimeout(() => {
      const gc = Math.round(collectedWithin(heldFrom, now));
      if (lag === max) longest = { gc, requests: during };
      if (lag > STALL_MS) process.stderr.write(`fuzz-loop-stall ms=${Math.round(lag)} gc=${gc} requests=${JSON.stringify(during)}\n`);
    }, 50);
  }
  last = now;
}, TICK_MS).unref();
// The fuzzer sends SIGUSR2 once the sandbox is ready: the start-up (loading, compiling) is not a stall of serving.
process.on("SIGUSR2", () => {
  serving = true;
  max = 0;
  over = 0;
  last = performance.now();
});
process.on("exit", () => {
  // stderr is a pipe here: on Linux its writes are synchronous, so the line is out before the process is gone.
  process.stderr.write(`fuzz-loop max=${Math.round(max)} over100=${over} gc=${longest.gc} requests=${JSON.stringify(longest.requests)}\n`);
});
