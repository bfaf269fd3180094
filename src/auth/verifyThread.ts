/**
 * Token signatures checked on one helper thread.
 *
 * A signature check (0.1–0.15 ms of curve arithmetic on these machines) is
 * the largest single cost of a request. On the event loop it would cap
 * throughput at about half; through WebCrypto every check is a libuv job of
 * its own, and the hand-offs between the pool's four threads and the loop
 * cost more CPU than the check. One long-lived thread costs less: when it
 * is busy, checks queue and it drains them without sleeping, and its answers
 * reach the loop together. The checks asked for in one turn of the event loop
 * go over in one message, and the thread answers each as soon as it is done
 * (waiting to answer a batch whole made requests wait for each other, and the
 * signed POST lost ~20 % of its rate under autocannon). Checking on the event
 * loop instead (libsodium and OpenSSL called there) measured worse: event-loop
 * time per signed POST doubled under load.
 *
 * On the thread, Ed25519 goes through libsodium (`sodium-native`, prebuilt
 * binaries): 0.10 ms a check against node:crypto's 0.15 ms when timed alone;
 * under load it made the authenticated GET ~25 % cheaper in CPU. ES256 stays with
 * node:crypto (OpenSSL's P-256 is the fast one). Where the binding does not
 * load, node:crypto does both.
 *
 * The thread starts on first use, holds the process open only while checks
 * are pending, and is replaced if it dies: its pending checks are then done
 * on the event loop, so none is lost.
 */
import { verify, type KeyObject } from "node:crypto";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export type SignatureAlg = "EdDSA" | "ES256";

/** Keys the thread keeps at most (API keys, wallet secrets, end users' Temporary Wallet Secrets). */
export const MAX_THREAD_KEYS = 1024;

/** The check itself; the helper thread runs the same steps (THREAD_SOURCE). */
export function verifyNow(alg: SignatureAlg, key: KeyObject, signingInput: string, signature: string): boolean {
  const input = Buffer.from(signingInput, "latin1");
  const sig = Buffer.from(signature, "base64url");
  try {
    if (alg === "ES256") return sig.length === 64 && verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, sig);
    return verify(null, input, key, sig);
  } catch {
    return false; // a key of another type, or a malformed signature
  }
}

/**
 * The helper thread's program. A key arrives once, as base64 SPKI DER with
 * its number, in the first check that uses it; a check is
 * [keyNumber, alg, signingInput, signature, keyDer?, forgetKeyNumber?] and its
 * answer a boolean. A message carries the checks asked for in one turn of the
 * event loop, the answers come back one by one.
 * Strings, not Buffers, cross the thread boundary: a pooled Buffer would be
 * copied with its whole 8 KB pool.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createPublicKey, verify } = require("node:crypto");
let sodium = null;
try { sodium = workerData.sodiumPath ? require(workerData.sodiumPath) : null; } catch {}
// An Ed25519 SPKI is this 12-byte header and the 32-byte key.
const ED25519_SPKI_HEADER = "302a300506032b6570032100";
const keys = new Map();
// A message is the checks of one turn of the event loop; each is answered as soon as it is done.
parentPort.on("message", (checks) => { for (const check of checks) answer(check); });
function answer([n, alg, signingInput, signature, der, forget]) {
  if (forget !== undefined) keys.delete(forget);
  if (der) {
    const bytes = Buffer.from(der, "base64");
    const raw = bytes.length === 44 && bytes.subarray(0, 12).toString("hex") === ED25519_SPKI_HEADER ? bytes.subarray(12) : null;
    keys.set(n, { key: createPublicKey({ key: bytes, format: "der", type: "spki" }), raw });
  }
  const { key, raw } = keys.get(n);
  const input = Buffer.from(signingInput, "latin1");
  const sig = Buffer.from(signature, "base64url");
  let valid = false;
  try {
    if (alg === "ES256") valid = sig.length === 64 && verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, sig);
    else if (sodium && raw) valid = sig.length === 64 && sodium.crypto_sign_verify_detached(sig, input, raw);
    else valid = verify(null, input, key, sig);
  } catch {}
  parentPort.postMessage(valid);
}
`;

/** Where libsodium's binding is, for the thread to load; undefined when it is not installed. */
export function sodiumPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("sodium-native");
  } catch {
    return undefined;
  }
}

interface Check {
  alg: SignatureAlg;
  key: KeyObject;
  signingInput: string;
  signature: string;
  resolve: (valid: boolean) => void;
}

export class VerifyThread {
  private worker: Worker | undefined;
  /** Checks sent and not yet answered, oldest first: the thread answers in order. */
  private pending: Check[] = [];
  /**
   * Checks asked for in this turn of the event loop, sent together at its end (setImmediate): under load several
   * requests ask in one turn, and each message costs the loop more than the check's data (serializing, waking the
   * thread). The thread still answers check by check, so no request waits for another's check.
   */
  private outbox: unknown[][] = [];
  private readonly flush = () => {
    const checks = this.outbox;
    this.outbox = [];
    if (checks.length > 0) this.worker?.postMessage(checks);
  };
  private keyNumbers = new WeakMap<KeyObject, number>();
  private nextKeyNumber = 0;
  /**
   * The keys the thread holds, oldest first. Every end user's sign-in brings a
   * Temporary Wallet Secret of its own, so the thread forgets the oldest key
   * past MAX_THREAD_KEYS (sent again if it is used again).
   */
  private threadKeys = new Map<number, WeakRef<KeyObject>>();
  /** Threads started so far: one dies only on a defect (a key it was never sent), and is then replaced. */
  threadsStarted = 0;

  check(alg: SignatureAlg, key: KeyObject, signingInput: string, signature: string): Promise<boolean> {
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch {
      return Promise.resolve(verifyNow(alg, key, signingInput, signature));
    }
    return new Promise((resolve) => {
      let n = this.keyNumbers.get(key);
      let message: unknown[];
      if (n === undefined) {
        n = this.nextKeyNumber++;
        this.keyNumbers.set(key, n);
        this.threadKeys.set(n, new WeakRef(key));
        message = [n, alg, signingInput, signature, key.export({ type: "spki", format: "der" }).toString("base64"), this.forgetOldestKey()];
      } else {
        message = [n, alg, signingInput, signature];
      }
      if (this.pending.length === 0) worker.ref();
      this.pending.push({ alg, key, signingInput, signature, resolve });
      if (this.outbox.push(message) === 1) setImmediate(this.flush);
    });
  }

  /** The key number the thread may drop once it holds more than MAX_THREAD_KEYS, or undefined. */
  private forgetOldestKey(): number | undefined {
    if (this.threadKeys.size <= MAX_THREAD_KEYS) return undefined;
    const [oldest, ref] = this.threadKeys.entries().next().value!;
    this.threadKeys.delete(oldest);
    const key = ref.deref();
    if (key) this.keyNumbers.delete(key);
    return oldest;
  }

  /** How many keys the thread holds now. */
  get keysHeld(): number {
    return this.threadKeys.size;
  }

  /** Boots the thread now, so that the first request does not wait for it. */
  warm(): void {
    try {
      this.worker ??= this.start();
    } catch {
      // checks will be done on the event loop
    }
  }

  /** Stops the thread; checks still pending are done on the event loop. A later check starts a new thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.lose(worker);
    await worker.terminate();
  }

  private lose(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.keyNumbers = new WeakMap();
    this.threadKeys = new Map();
    this.outbox = []; // its checks are pending, answered below; its key numbers meant the lost thread's keys
    const pending = this.pending;
    this.pending = [];
    for (const c of pending) c.resolve(verifyNow(c.alg, c.key, c.signingInput, c.signature));
  }

  private start(): Worker {
    this.threadsStarted++;
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { sodiumPath: sodiumPath() },
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    });
    worker.on("message", (valid: boolean) => {
      if (this.worker !== worker) return; // closed: its checks were already answered
      const check = this.pending.shift();
      if (this.pending.length === 0) worker.unref();
      check?.resolve(valid === true);
    });
    worker.on("error", () => this.lose(worker));
    worker.on("exit", () => this.lose(worker));
    // After the listeners: adding a 'message' listener refs the worker's port again, and an idle thread must not keep
    // the process alive (a script that closes its sandbox would never exit).
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/** One per process: every sandbox in it shares the thread, which holds nothing but public keys. */
const shared = new VerifyThread();

/** Boots the shared thread (~50 ms on its own thread) while the caller's start-up goes on. */
export function warmVerifyThread(): void {
  shared.warm();
}

/** Resolves true when `signature` (base64url) is valid for `signingInput` under `key`. */
export function verifyOffLoop(alg: SignatureAlg, key: KeyObject, signingInput: string, signature: string): Promise<boolean> {
  return shared.check(alg, key, signingInput, signature);
}
