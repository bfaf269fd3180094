/**
 * Loaded into the sandbox the fuzzer starts (`node --import`): measures how long the sandbox's event loop was held
 * (a timer due every 10 ms, and how late it fires) and, as the process exits, writes one line to stderr that the
 * fuzzer reads: `fuzz-loop max=<ms> over100=<count>`. A stall holds every other request, so it is a finding of its
 * own, beside the slowest answer.
 */
const TICK_MS = 10;
let last = performance.now();
let max = 0;
let over100 = 0;
setInterval(() => {
  const now = performance.now();
  const lag = now - last - TICK_MS;
  if (lag > max) max = lag;
  if (lag > 100) over100++;
  last = now;
}, TICK_MS).unref();
// The fuzzer sends SIGUSR2 once the sandbox is ready: the start-up (loading, compiling) is not a stall of serving.
process.on("SIGUSR2", () => {
  max = 0;
  over100 = 0;
  last = performance.now();
});
process.on("exit", () => {
  // stderr is a pipe here: on Linux its writes are synchronous, so the line is out before the process is gone.
  process.stderr.write(`fuzz-loop max=${Math.round(max)} over100=${over100}\n`);
});
