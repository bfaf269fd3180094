/**
 * Timing for the transaction benches (evm.mjs, solana.mjs): calls one at a time, their median and p99, the CPU
 * the process spent in them, and, with BENCH_PROFILE=DIR, a CPU profile of each scenario's timed calls alone
 * (`DIR/<scenario>.cpuprofile`, open it in Chrome DevTools) taken through the inspector, without the set-up.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

const PROFILE_DIR = process.env.BENCH_PROFILE;
// BENCH_WINDOWS=DIR writes each scenario's timed calls as [start, end] in monotonic µs (`DIR/<scenario>.windows.json`),
// so a profile of all threads (`node --cpu-prof`, which covers the signature thread too) can keep those alone.
const WINDOWS_DIR = process.env.BENCH_WINDOWS;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
let session;
async function profiler() {
  if (!session) {
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
  }
  return session;
}

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** "median … ms, p99 … ms, CPU … ms/call (n calls)" of a `timed` result. */
export function stats({ ms, cpuMs }) {
  const sorted = [...ms].sort((a, b) => a - b);
  return `median ${at(sorted, 0.5).toFixed(2)} ms, p99 ${at(sorted, 0.99).toFixed(2)} ms, CPU ${(cpuMs / ms.length).toFixed(2)} ms/call (${ms.length} calls)`;
}

/**
 * `n` calls, one at a time: `make(i)` prepares call i (tokens, signatures) untimed and returns the call to time.
 * `name` names the profile file.
 */
export async function timed(name, n, make) {
  const ms = [];
  const windows = [];
  let cpuMs = 0;
  const prof = PROFILE_DIR ? await profiler() : undefined;
  if (prof) await prof.post("Profiler.start");
  for (let i = 0; i < n; i++) {
    const send = await make(i);
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const w0 = nowUs();
    await send();
    windows.push([w0, nowUs()]);
    ms.push(performance.now() - t0);
    const used = process.cpuUsage(cpu);
    cpuMs += (used.user + used.system) / 1000;
  }
  if (prof) {
    const { profile } = await prof.post("Profiler.stop");
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
  }
  if (WINDOWS_DIR) {
    mkdirSync(WINDOWS_DIR, { recursive: true });
    writeFileSync(join(WINDOWS_DIR, `${name}.windows.json`), JSON.stringify(windows));
  }
  return { ms, cpuMs };
}
