/**
 * Loaded into the sandbox the fuzzer starts (`node --import`): measures how long the sandbox's event loop was held
 * (a timer due every 10 ms, and how late it fires) and writes lines to stderr that the fuzzer reads:
 *
 *   fuzz-loop-stall ms=<ms> requests=<JSON>   at once, for every stall over 100 ms, naming the HTTP requests that
 *                                             were in flight while the loop was held ("METHOD target")
 *   fuzz-loop max=<ms> over100=<count>        as the process exits
 *
 * A stall holds every other request, so it is a finding of its own, beside the slowest answer. The fuzzer sends one
 * request at a time, so the request named is the one that held the loop (or, with none named, work of the sandbox's
 * own: a delivery, a timer, the collector).
 */
import http from "node:http";

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

let last = performance.now();
let max = 0;
let over = 0;
let serving = false; // until the fuzzer says the sandbox is ready, a late tick is start-up (loading, compiling)
setInterval(() => {
  const now = performance.now();
  const lag = now - last - TICK_MS;
  if (lag > max) max = lag;
  if (lag > STALL_MS && serving) {
    over++;
    const heldFrom = last + TICK_MS;
    const during = recent.filter((r) => r.start <= now && (r.end === undefined || r.end >= heldFrom)).map((r) => r.name);
    process.stderr.write(`fuzz-loop-stall ms=${Math.round(lag)} requests=${JSON.stringify(during)}\n`);
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
  process.stderr.write(`fuzz-loop max=${Math.round(max)} over100=${over}\n`);
});
