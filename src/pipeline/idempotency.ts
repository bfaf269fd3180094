/**
 * X-Idempotency-Key: the same key with the same method, path and body replays
 * the first response byte for byte; with different parameters it is a 422
 * idempotency_error. Keys are per project and live 24 h of sandbox time.
 * Two concurrent requests with one key never run the handler twice: the
 * second waits for the first and then replays it.
 *
 * 5xx answers are not remembered (the operation's outcome is unknown, so a
 * retry must be allowed to run); everything else is. Keys past their 24 h are
 * dropped when the project next records one, so the records a project keeps
 * are those of the last 24 h of sandbox time, not every key it ever sent.
 */
import { hash } from "node:crypto";
import { canonicalSha256 } from "../auth/reqHash.js";
import type { Clock } from "../clock.js";
import { apiError } from "../errors/catalogue.js";
import type { PendingTx } from "../store/store.js";
import { declareCollection } from "../store/collections.js";
import type { Exchange, Outgoing } from "./exchange.js";

const IDEMPOTENCY = declareCollection<IdempotencyRecord>("_idempotency", { dueAt: (r) => r.expiresAt });
const LIFETIME_MS = 24 * 60 * 60 * 1000;

interface IdempotencyRecord {
  key: string;
  fingerprint: string;
  expiresAt: number;
  response: Outgoing;
}

function fingerprintOf(ex: Exchange): Promise<string> {
  const head = `${ex.method}\n${ex.path}\n`;
  return ex.rawBody.length === 0 ? Promise.resolve(hash("sha256", head, "hex")) : canonicalSha256(ex.body, head);
}

/** Carries out the operation; on failure it must have discarded its writes and still resolve to the error response. */
export type Run = (tx: PendingTx) => Promise<Outgoing>;

export class Idempotency {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly clock: Clock) {}

  /**
   * Runs `run` at most once per (project, key) and commits `tx`, the request's
   * store transaction: the remembered response is committed together with the
   * handler's own writes, before any waiting duplicate is let through.
   */
  async around(ex: Exchange, tx: PendingTx, run: Run): Promise<Outgoing> {
    const key = ex.headers["x-idempotency-key"];
    if (key === undefined || !ex.projectId) {
      const response = await run(tx);
      await tx.commit();
      return response;
    }
    const slot = `${ex.projectId}\n${key}`;
    // Before the wait: from the wait's end to the in-flight mark below nothing may yield, or two could run at once.
    const fingerprint = await fingerprintOf(ex);
    // Wait for a request already running with this key, then look again.
    for (let pending = this.inFlight.get(slot); pending; pending = this.inFlight.get(slot)) await pending.catch(() => undefined);

    const records = tx.collection(IDEMPOTENCY);
    const previous = records.get(key);
    if (previous && previous.expiresAt > this.clock.now()) {
      if (previous.fingerprint !== fingerprint) {
        throw apiError("idempotency_error", `Idempotency key '${key}' was already used with a different request (method, path or body).`);
      }
      ex.idempotentReplay = true;
      return { ...previous.response, headers: { ...previous.response.headers, "x-sandbox-idempotent-replay": "true" } };
    }

    const running = run(tx).then(async (response) => {
      if (response.status < 500) {
        const now = this.clock.now();
        for (const expired of records.dueBy(now)) records.delete(expired.key);
        records.put(key, { key, fingerprint, expiresAt: now + LIFETIME_MS, response });
      }
      await tx.commit();
      return response;
    });
    this.inFlight.set(slot, running);
    try {
      return await running;
    } finally {
      this.inFlight.delete(slot);
    }
  }
}
