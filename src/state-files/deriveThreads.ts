/**
 * The curve work of an init file's server accounts, on helper threads: each EVM key's address (a secp256k1
 * multiplication and two Keccak hashes), each Solana seed's address (an ed25519 multiplication) and its associated
 * token accounts (SHA-256 and an on-curve check per bump tried). That was about half the CPU of a start with
 * 100,000 accounts, all of it on the event loop. The keys themselves are drawn on the main thread, in the order
 * the operations draw them, so the same seed gives the same keys; only what follows from a key moves.
 *
 * A thread runs deriver.ts, the same steps as crypto/evm.ts (evmAddressOf), crypto/ed25519.ts and
 * chain/solana/addresses.ts, with the same libraries (the `secp256k1` package, libsodium) but for Keccak-256 (the
 * `keccak` package's native code where it loads, else @noble/hashes' as there) and base-58 (crypto/base58.ts, bs58's
 * text, faster), so it gives the same bytes; deriveThreads.test.ts holds it to them. The main thread runs deriver.ts
 * too, on the next job of the queue while it waits for a thread's answer. A few accounts are derived on the main thread
 * alone (starting threads costs more), and so is everything when a thread cannot start or dies: no work is lost.
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Hex } from "viem";
import { nextTurn } from "../byTurns.js";
import { associatedTokenAddress } from "../chain/solana/addresses.js";
import { ASSOCIATED_TOKEN_PROGRAM } from "../chain/solana/tokens.js";
import { evmAddressOf } from "../crypto/evm.js";
import { base58Of32Bytes } from "../crypto/base58.js";
import { ed25519PublicKey } from "../crypto/ed25519.js";
import { fromBase58, toBase58 } from "../crypto/solana.js";
import { type DerivedJob, type Deriver, type DeriverLibraries, makeDeriver } from "./deriver.js";

/** A token account to derive for a Solana account: its mint and the token program that owns the mint. */
export interface TokenAccountKey {
  mint: string;
  program: string;
}

export interface SolanaDerived {
  address: string;
  /** The address's 32 bytes (what a token account of this owner holds). */
  publicKey: Uint8Array;
  /** The associated token accounts asked for, in the order asked. */
  tokenAccounts: string[];
}

/** What to derive: undefined entries are skipped (a fixed key the operations will refuse). */
export interface DerivationRequest {
  evmKeys: ReadonlyArray<Hex | undefined>;
  solanaSeeds: ReadonlyArray<Uint8Array | undefined>;
  /** Per Solana seed, the token accounts to derive for its address. */
  tokenAccounts: ReadonlyArray<readonly TokenAccountKey[]>;
}

export interface Derivations {
  evmAddress(i: number): Promise<string>;
  solana(i: number): Promise<SolanaDerived>;
  /** The same once derived, else undefined: no promise per account while the answers are in already. */
  evmAddressNow(i: number): string | undefined;
  solanaNow(i: number): SolanaDerived | undefined;
  /** Stops the threads (the caller is done, or failed half way). */
  close(): void;
  /** How many accounts the threads derived (the rest, the main thread). */
  derivedOnThreads(): number;
}

/**
 * Keccak-256 through the `keccak` package's native state, one reused (~4 µs a hash here against ~14 µs for noble's,
 * two hashes an EVM address), or undefined where the addon cannot load (noble's then). Self-contained: the threads
 * run its source text.
 */
function nativeKeccak(require: (id: string) => unknown, modules: { keccak?: string; nodeGypBuild?: string }): ((bytes: Uint8Array) => Uint8Array) | undefined {
  if (!modules.keccak || !modules.nodeGypBuild) return undefined;
  try {
    type KeccakState = {
      initialize(rate: number, capacity: number): void;
      absorb(data: Buffer): void;
      absorbLastFewBits(bits: number): void;
      squeeze(length: number): Buffer;
    };
    const KeccakState = (require(modules.nodeGypBuild) as (dir: string) => new () => KeccakState)(modules.keccak);
    const state = new KeccakState();
    return (bytes) => {
      state.initialize(1088, 512);
      state.absorb(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      state.absorbLastFewBits(0x01);
      return state.squeeze(32);
    };
  } catch {
    return undefined;
  }
}

/** Below this many accounts, starting threads (~50 ms each) costs more than it saves. */
const MIN_ACCOUNTS_FOR_THREADS = 64;
/** Accounts per message: large enough that messaging is noise, small enough that the first answers come soon. */
const CHUNK = 512;
/** Jobs a thread holds at once: the next one is there when it answers, and few are left to it alone at the end. */
const IN_FLIGHT = 2;
/** The same at first, while the main thread draws the Solana seeds without a turn to send more (deriveAccounts). */
const IN_FLIGHT_BEFORE_SOLANA = 8;
/**
 * The same for derivations started ahead, until the first answer is asked for: meanwhile the main thread loads the
 * rest of the sandbox (~1 s at 100,000 accounts, seldom a turn to send more), and a thread with two jobs idled
 * through most of it. 64 jobs are ~32,000 accounts, ~3 s of a thread's work here.
 */
const IN_FLIGHT_AHEAD = 64;

const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const secp256k1 = require(workerData.secp256k1);
const sodium = require(workerData.sodium);
const base58 = ${base58Of32Bytes.toString()};
const makeDeriver = ${makeDeriver.toString()};
${nativeKeccak.toString()}
import(workerData.sha3).then(({ keccak_256 }) => {
  const derive = makeDeriver({
    secp256k1,
    sodium,
    keccak256: nativeKeccak(require, workerData) ?? keccak_256,
    base58,
    associatedTokenProgram: workerData.associatedTokenProgram,
  });
  const stopped = new Int32Array(workerData.stop);
  parentPort.on("message", (job) => {
    if (Atomics.load(stopped, 0) === 1) process.exit(0); // stopThread: between jobs, never inside a native call
    const answer = derive(job);
    parentPort.postMessage({ id: job.id, ...answer }, answer.publicKeys ? [answer.publicKeys.buffer] : []);
  });
});
`;

function deriveSolana(seed: Uint8Array, tokenAccounts: readonly TokenAccountKey[]): SolanaDerived {
  const publicKey = ed25519PublicKey(seed);
  const address = toBase58(publicKey);
  return { address, publicKey, tokenAccounts: tokenAccounts.map((t) => associatedTokenAddress(address, t.mint, t.program)) };
}

/** Derives on the calling thread, when asked. */
function onMainThread(request: DerivationRequest): Derivations {
  return {
    evmAddress: async (i) => evmAddressOf(request.evmKeys[i]!),
    solana: async (i) => deriveSolana(request.solanaSeeds[i]!, request.tokenAccounts[i]!),
    evmAddressNow: (i) => evmAddressOf(request.evmKeys[i]!),
    solanaNow: (i) => deriveSolana(request.solanaSeeds[i]!, request.tokenAccounts[i]!),
    close: () => undefined,
    derivedOnThreads: () => 0,
  };
}

/** The files a thread loads by path: a thread of a bundle cannot import the bundle's modules. */
function threadModules(): Record<string, string> | undefined {
  try {
    const require = createRequire(import.meta.url);
    return {
      secp256k1: require.resolve("secp256k1"),
      sodium: require.resolve("sodium-native"),
      sha3: pathToFileURL(require.resolve("@noble/hashes/sha3.js")).href,
      ...nativeKeccakModules(require),
    };
  } catch {
    return undefined;
  }
}

/** The main thread's deriver, for the jobs it takes (undefined: a library does not load; then the steps one by one). */
let mainDeriver: Deriver | null | undefined;
function deriverHere(modules: Record<string, string>): Deriver | undefined {
  if (mainDeriver === undefined) {
    try {
      const require = createRequire(import.meta.url);
      mainDeriver = makeDeriver({
        secp256k1: require(modules.secp256k1!) as DeriverLibraries["secp256k1"],
        sodium: require(modules.sodium!) as DeriverLibraries["sodium"],
        keccak256: nativeKeccak(require, modules) ?? keccak_256,
        base58: base58Of32Bytes,
        associatedTokenProgram: fromBase58(ASSOCIATED_TOKEN_PROGRAM),
      });
    } catch {
      mainDeriver = null;
    }
  }
  return mainDeriver ?? undefined;
}

/**
 * One thread per core beside the main thread's (at least one, at most four): the main thread writes the records
 * and derives the next job of the queue while it waits, so a thread more would only take turns with it on a core
 * (with two threads on two cores, the main thread, the start's critical path, ran at two thirds of a core).
 */
const threadCount = () => Math.max(1, Math.min(4, availableParallelism() - 1));

/** Each thread's stop flag (one Int32 in shared memory), read by the thread before each job. */
const stopFlags = new WeakMap<Worker, Int32Array>();

/** The helper threads that have not exited yet. */
const alive = new Set<Worker>();

/** How many helper threads have not exited yet (a start's threads all exit once it is done with them). */
export const aliveDeriveThreads = (): number => alive.size;

function startThread(modules: Record<string, string>): Worker {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { ...modules, associatedTokenProgram: fromBase58(ASSOCIATED_TOKEN_PROGRAM), stop } });
  stopFlags.set(worker, new Int32Array(stop));
  alive.add(worker);
  worker.on("exit", () => alive.delete(worker));
  return worker;
}

/**
 * Stops a thread, the only way threads are stopped here: it exits before its next job, or once it has loaded its
 * libraries when it is still loading them. Terminated inside a call into a native library (the `keccak` package's),
 * a thread can abort the whole process ("FATAL ERROR: Error::Error napi_create_reference"), as it did once when a
 * start closed the derivations it had begun ahead; a thread started ahead may be inside one while it loads.
 */
function stopThread(worker: Worker): void {
  Atomics.store(stopFlags.get(worker)!, 0, 1);
  worker.postMessage({}); // wakes an idle thread to read the flag
  worker.unref();
}

/** Threads started ahead by warmDeriveThreads, still alive, not yet taken. */
const warm = new Set<Worker>();
/** How long threads started ahead wait to be taken before they stop (a start that failed, or had no accounts after all). */
const WARM_FOR_MS = 30_000;

/**
 * Starts the helper threads ahead, so that they load their libraries (~0.1 s each, several times that on a busy
 * machine) while the main thread reads and checks the file rather than after; deriveAccounts takes them. `accounts`,
 * about how many the file holds, says how many threads it will use (one for a few thousand).
 */
export function warmDeriveThreads(accounts: number): void {
  const modules = warm.size === 0 ? threadModules() : undefined;
  if (!modules) return;
  for (let t = 0; t < Math.min(threadCount(), Math.ceil(accounts / CHUNK / 4)); t++) {
    const worker = startThread(modules);
    warm.add(worker);
    worker.unref(); // never what keeps the process alive
    worker.on("error", () => undefined); // a thread that cannot start is left out (its exit follows)
    worker.on("exit", () => warm.delete(worker));
    setTimeout(() => {
      if (warm.delete(worker)) stopThread(worker);
    }, WARM_FOR_MS).unref();
  }
}

/** Stops the threads started ahead that were not taken (the file's accounts are written, or it was refused). */
export const stopWarmThreads = (): void => void takeWarmThreads(0);

/** Up to `count` threads started ahead; the others stop. */
function takeWarmThreads(count: number): Worker[] {
  const taken = [...warm].slice(0, count);
  for (const worker of warm) if (!taken.includes(worker)) stopThread(worker);
  warm.clear();
  for (const worker of taken) worker.ref();
  return taken;
}

/** Where the `keccak` package's addon lies (the folder node-gyp-build loads it from), when it can be found. */
function nativeKeccakModules(require: NodeJS.Require): { keccak?: string; nodeGypBuild?: string } {
  try {
    const keccak = dirname(require.resolve("keccak"));
    return { keccak, nodeGypBuild: createRequire(join(keccak, "index.js")).resolve("node-gyp-build") };
  } catch {
    return {};
  }
}

interface Job {
  id: number;
  kind: "evm" | "solana";
  start: number;
  message: unknown;
  resolve: () => void;
  done: Promise<void>;
}

/** The Solana part of a request, made once the EVM jobs went out (see deriveAccounts). */
export interface SolanaLater {
  /** How many seeds `make` gives. */
  count: number;
  make(): Pick<DerivationRequest, "solanaSeeds" | "tokenAccounts">;
}

/**
 * Starts deriving everything `request` names, in order, on up to four threads (on two cores, two threads and the
 * event loop share them: the loop writes the records while the threads derive the next accounts). The answers are
 * awaited account by account. With `later`, the Solana part is `later.make()`'s (the request's is then ignored),
 * called once the first EVM jobs went out: a thread derives them while the main thread draws the Solana seeds,
 * which the seeded stream gives after the EVM keys (at 100,000 accounts, ~0.2-0.5 s the threads waited).
 */
export function deriveAccounts(request: DerivationRequest, later?: SolanaLater, options: { ahead?: boolean } = {}): Derivations {
  const solanaCount = later ? later.count : request.solanaSeeds.length;
  const count = request.evmKeys.length + solanaCount;
  const modules = count >= MIN_ACCOUNTS_FOR_THREADS ? threadModules() : undefined;
  if (!modules) return onMainThread(later ? { evmKeys: request.evmKeys, ...later.make() } : request);
  let { solanaSeeds, tokenAccounts: tokenAccountKeys } = request;
  const evmAddresses: Array<string | undefined> = new Array(request.evmKeys.length);
  const solana: Array<SolanaDerived | undefined> = new Array(solanaCount);
  // Mints and programs go over once per job as bytes; a handful recur in every account.
  const bytes = new Map<string, Uint8Array>();
  const bytesOf = (address: string) => {
    let found = bytes.get(address);
    if (!found) {
      found = fromBase58(address);
      bytes.set(address, found);
    }
    return found;
  };
  const jobs: Job[] = [];
  const addJob = (kind: Job["kind"], start: number, message: unknown) => {
    let resolve!: () => void;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    jobs.push({ id: jobs.length, kind, start, message, resolve, done });
  };
  for (let start = 0; start < request.evmKeys.length; start += CHUNK)
    addJob("evm", start, { keys: request.evmKeys.slice(start, start + CHUNK).map((k) => k ?? null) });
  const addSolanaJobs = () => {
    for (let start = 0; start < solanaSeeds.length; start += CHUNK) {
      // The seeds in one array (a view of a larger one would be copied whole, once per view); no token accounts
      // (null) for a seed to skip.
      const chunk = solanaSeeds.slice(start, start + CHUNK);
      const seeds = new Uint8Array(32 * chunk.length);
      for (const [i, seed] of chunk.entries()) if (seed) seeds.set(seed, 32 * i);
      const tokenAccounts = chunk.map((seed, i) => (seed ? tokenAccountKeys[start + i]!.map((t) => [bytesOf(t.mint), bytesOf(t.program)]) : null));
      addJob("solana", start, { seeds, tokenAccounts });
    }
  };
  if (!later) addSolanaJobs();

  /** A job's answers, from a thread or, when none can give them, the main thread. */
  let onThreads = 0;
  const settle = (job: Job, answer?: DerivedJob, fromThread = true) => {
    if (fromThread) for (const derived of answer?.addresses ?? answer?.solana ?? []) if (derived !== null) onThreads++;
    if (job.kind === "evm") {
      const keys = request.evmKeys;
      for (let i = job.start; i < Math.min(job.start + CHUNK, keys.length); i++)
        evmAddresses[i] = keys[i] === undefined ? undefined : (answer?.addresses?.[i - job.start] ?? evmAddressOf(keys[i]!));
    } else {
      const seeds = solanaSeeds;
      for (let i = job.start; i < Math.min(job.start + CHUNK, seeds.length); i++) {
        const k = i - job.start;
        const derived = answer?.solana?.[k];
        if (seeds[i] === undefined) solana[i] = undefined;
        else if (!derived) solana[i] = deriveSolana(seeds[i]!, tokenAccountKeys[i]!);
        else solana[i] = { address: derived[0]!, publicKey: answer!.publicKeys!.subarray(32 * k, 32 * k + 32), tokenAccounts: derived.slice(1) };
      }
    }
    job.resolve();
  };

  /** A job derived on the main thread, with the threads' code where its libraries load (else step by step, slower). */
  const takeHere = (job: Job) => {
    let answer: DerivedJob | undefined;
    try {
      answer = deriverHere(modules)?.(job.message as Parameters<Deriver>[0]);
    } catch {
      answer = undefined;
    }
    settle(job, answer, false);
  };

  const threads = new Set<Worker>();
  const size = Math.max(1, Math.min(threadCount(), Math.ceil((jobs.length + Math.ceil(solanaCount / CHUNK) * (later ? 1 : 0)) / 2)));
  const started = takeWarmThreads(size);
  // Jobs go out in order to whichever thread is free (IN_FLIGHT each): on a busy machine one thread may get
  // far less of a core than another, and a fixed share would leave the loop waiting on the slow one. The main
  // thread takes the next job itself while it waits for an answer (waitFor).
  let next = 0;
  let closed = false;
  /** Jobs a thread holds: deep while nobody has asked for an answer yet (derived ahead), then two. */
  let depth = options.ahead ? IN_FLIGHT_AHEAD : IN_FLIGHT;
  /** Per thread: sends it jobs until `depth` are in flight. */
  const fillers: Array<() => void> = [];
  for (let t = 0; t < size; t++) {
    const pending = new Map<number, Job>();
    const worker = started[t] ?? startThread(modules);
    const feed = () => {
      if (next >= jobs.length) return;
      const job = jobs[next]!;
      next++;
      pending.set(job.id, job);
      worker.postMessage({ id: job.id, ...(job.message as object) });
    };
    // A thread that fails leaves its jobs to the main thread (the same steps, only slower), and the queue's too
    // when it was the last.
    const lost = () => {
      threads.delete(worker);
      for (const job of pending.values()) takeHere(job);
      pending.clear();
      if (threads.size === 0) while (next < jobs.length) takeHere(jobs[next++]!);
    };
    worker.on("message", (answer: DerivedJob & { id: number }) => {
      if (closed) return;
      const job = pending.get(answer.id);
      if (!job) return;
      pending.delete(answer.id);
      settle(job, answer);
      while (pending.size < depth && next < jobs.length) feed();
      if (pending.size === 0) stopThread(worker);
    });
    worker.on("error", lost);
    worker.on("exit", () => {
      if (!closed) lost();
    });
    const fill = (upTo = depth) => {
      while (pending.size < upTo && next < jobs.length) feed();
    };
    // Before the Solana part is made the main thread answers no message for a while (~0.3 s at 100,000 accounts:
    // drawing the seeds, building the jobs): the thread gets enough to go on meanwhile.
    fill(later ? Math.max(depth, IN_FLIGHT_BEFORE_SOLANA) : depth);
    fillers.push(fill);
    threads.add(worker);
  }
  if (later) {
    ({ solanaSeeds, tokenAccounts: tokenAccountKeys } = later.make());
    if (solanaSeeds.length !== solanaCount) throw new Error(`expected ${solanaCount} Solana seeds, got ${solanaSeeds.length}`);
    addSolanaJobs();
    for (const fill of fillers) fill();
  }

  /**
   * Waits for `job`'s answers, meanwhile deriving on the main thread the next job no thread took yet, one at a time
   * (the threads' answers come in between): the waiting is the threads' share of the cores, not lost. The next
   * job, not the last: the accounts the main thread derives are written in order like the others, soon after;
   * taking the last jobs left all of theirs to write once the threads had stopped (~1.3 s of the main thread alone
   * at 100,000 accounts on two cores, ~a third of the accounts).
   */
  const waitFor = async (job: Job) => {
    let settled = false;
    void job.done.then(() => {
      settled = true;
    });
    while (!settled && next < jobs.length) {
      takeHere(jobs[next++]!);
      await nextTurn();
    }
    await job.done;
  };
  const evmJobs = jobs.filter((j) => j.kind === "evm");
  const solanaJobs = jobs.filter((j) => j.kind === "solana");
  return {
    async evmAddress(i) {
      depth = IN_FLIGHT;
      if (evmAddresses[i] === undefined) await waitFor(evmJobs[Math.floor(i / CHUNK)]!);
      return evmAddresses[i]!;
    },
    async solana(i) {
      depth = IN_FLIGHT;
      if (solana[i] === undefined) await waitFor(solanaJobs[Math.floor(i / CHUNK)]!);
      return solana[i]!;
    },
    evmAddressNow(i) {
      depth = IN_FLIGHT;
      return evmAddresses[i];
    },
    solanaNow(i) {
      depth = IN_FLIGHT;
      return solana[i];
    },
    close() {
      closed = true;
      for (const worker of threads) stopThread(worker);
    },
    derivedOnThreads: () => onThreads,
  };
}
