#!/usr/bin/env node
/**
 * What `--init FILE` costs as the file grows. For each size N (BENCH_INIT_SIZES, default 1000,10000,100000) it
 * writes an init file of N accounts, half EVM and half Solana, every one with two balances (the native token and
 * USDC), starts `dist/cli.js --init FILE --seed bench-init` and times the start to the ready line: the wall time
 * and the process's CPU time (user + system from /proc, steadier than the wall time on a shared machine), its main
 * thread's apart from the rest (the derivation threads, the collector's helpers). It
 * prints one line per size and the ratio to the smallest, so a step that is not linear shows. A measurement,
 * never a test. Run `npm run build` first.
 *
 * BENCH_INIT_KEYS=1 gives every account a fixed private key (the import path rather than the create path);
 * BENCH_INIT_PROFILE=DIR runs the sandbox under `--cpu-prof` into DIR; BENCH_INIT_REPEATS (1) starts each size
 * more than once and keeps the fastest; BENCH_INIT_NODE_FLAGS="--flag …" starts Node with these flags (the collector's
 * settings, say); BENCH_INIT_CLI=FILE starts another build of the command than dist/cli.js (a copy
 * of an earlier build, measured back to back with this one). It prints the host's speed before and after
 * (bench/lib/hostSpeed.mjs): the same start takes several times as long in the shared machine's slow spells.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bareLoopSeconds } from "./lib/hostSpeed.mjs";
import { startCommand, stop } from "./lib/stateFile.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SIZES = (process.env.BENCH_INIT_SIZES ?? "1000,10000,100000").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_INIT_REPEATS ?? 1);
const WITH_KEYS = process.env.BENCH_INIT_KEYS === "1";
const PROFILE = process.env.BENCH_INIT_PROFILE;
const NODE_FLAGS = (process.env.BENCH_INIT_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const CLI = resolve(process.env.BENCH_INIT_CLI ?? join(root, "dist", "cli.js"));

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function base58(bytes) {
  let n = BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** A fixed 32-byte key for account i (a valid secp256k1 scalar and ed25519 seed with overwhelming odds). */
const keyOf = (kind, i) => createHash("sha256").update(`bench-init/${kind}/${i}`).digest();

function initFile(n) {
  const evmAccounts = [];
  const solanaAccounts = [];
  for (let i = 0; i < n / 2; i++) {
    evmAccounts.push({
      name: `evm-${i}`,
      ...(WITH_KEYS ? { privateKey: `0x${keyOf("evm", i).toString("hex")}` } : {}),
      balances: { "base-sepolia": { ETH: "1.5", USDC: "250" } },
    });
    solanaAccounts.push({
      name: `sol-${i}`,
      ...(WITH_KEYS ? { privateKey: base58(keyOf("solana", i)) } : {}),
      balances: { "solana-devnet": { SOL: "2", USDC: "10" } },
    });
  }
  return { evmAccounts, solanaAccounts };
}

/** User + system CPU seconds of a running process. */
async function start(file, dir) {
  const nodeFlags = [...(PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE}`] : []), ...NODE_FLAGS];
  const { child, startMs, startCpuMs, startMainCpuMs } = await startCommand({ args: ["--init", file, "--seed", "bench-init"], nodeFlags, cli: CLI, cwd: dir });
  return { child, wallS: startMs / 1000, cpuS: startCpuMs / 1000, mainS: startMainCpuMs / 1000 };
}

const hostSpeed = async (when) => console.log(`host ${when}: the EVM library's bare 10M-gas loop in ${(await bareLoopSeconds()).toFixed(2)} s`);
await hostSpeed("before");
const dir = mkdtempSync(join(tmpdir(), "bench-init-"));
const rows = [];
try {
  for (const n of SIZES) {
    const file = join(dir, `init-${n}.json`);
    writeFileSync(file, JSON.stringify(initFile(n)));
    let best;
    for (let r = 0; r < REPEATS; r++) {
      const { child, wallS, cpuS, mainS } = await start(file, dir);
      await stop(child);
      if (!best || cpuS < best.cpuS) best = { wallS, cpuS, mainS };
    }
    rows.push({ n, ...best });
    const first = rows[0];
    const perK = (s) => ((s * 1000) / n).toFixed(3);
    console.log(
      `init ${String(n).padStart(7)} accounts${WITH_KEYS ? " (fixed keys)" : ""}: ready after ${best.wallS.toFixed(2)} s wall, ${best.cpuS.toFixed(2)} s CPU` +
        ` (main thread ${best.mainS.toFixed(2)} s, other threads ${(best.cpuS - best.mainS).toFixed(2)} s)` +
        ` (${perK(best.cpuS)} s CPU per 1,000; x${(best.cpuS / first.cpuS).toFixed(1)} the CPU of ${first.n} for x${n / first.n} the accounts)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
await hostSpeed("after");
