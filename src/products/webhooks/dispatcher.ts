/**
 * The sandbox's webhook dispatcher: one per sandbox, started with it and
 * stopped by `close()`. A pass reads what requests have committed — newly
 * mined ledger blocks become activity events, due deliveries are attempted —
 * and runs every 250 ms of real time (an unref'd timer, so it never keeps the
 * process alive), whenever the sandbox clock is moved, and on
 * `POST /_sandbox/webhooks/flush`, which also waits for the attempts.
 *
 * Retries follow Hook0's built-in backoff on the sandbox clock (3 s, 10 s,
 * 3 min, 30 min, 1 h, 3 h, 5 h, then every 10 h), at most 60 retries.
 */
import { setMaxListeners } from "node:events";
import type { Clock } from "../../clock.js";
import type { Store } from "../../store/store.js";
import {
  deliveries,
  subscriptions,
  WEBHOOK_DELIVERIES,
  WEBHOOK_SUBSCRIPTIONS,
  type DeliveryRecord,
  type SubscriptionRecord,
} from "../../wallet/events/model.js";
import { scanActivity } from "./onchain.js";
import type { ListeningPorts } from "./selfTarget.js";
import { postDelivery, type AttemptOutcome } from "./send.js";
import { SIGNATURE_HEADER, signDelivery } from "./signature.js";
import { WALLET_TRANSACTIONS } from "../../wallet/events/walletEvents.js";

const RETRY_DELAYS_MS = [3_000, 10_000, 180_000, 1_800_000, 3_600_000, 10_800_000, 18_000_000, 36_000_000];
const MAX_RETRIES = 60;
const PASS_INTERVAL_MS = 250;
// The delivery sets these; a target header of the same name is replaced, as Hook0 does.
const DELIVERY_HEADERS = new Set(["content-type", "x-event-id", "x-event-type"]);

const retryDelayMs = (retriesSoFar: number) => RETRY_DELAYS_MS[Math.min(retriesSoFar, RETRY_DELAYS_MS.length - 1)]!;

/** Where the deliveries stand once a flush is done (passes also run on their own, so this is a state, not a count of one pass's work). */
interface FlushSummary {
  succeeded: number;
  retrying: number;
  failed: number;
  /** Waiting for a first attempt: only possible while the dispatcher is stopping. */
  pending: number;
  /** When the earliest retry is due, on the sandbox clock. */
  nextRetryAt?: string;
}

export interface WebhookDispatcher {
  /** Runs a pass now and waits for every attempt it (or an earlier pass) started. */
  flush(projectId?: string): Promise<FlushSummary>;
  stop(): Promise<void>;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  /** The machine's clock, for the signature's `t`: receivers compare it with their own clock (replay window), never with sandbox time. */
  wallNow: () => number;
  log: (message: string) => void;
  /** The ports the sandbox listens on (empty until it listens): deliveries never reach them. */
  listeningPorts: ListeningPorts;
  /** False: deliveries to loopback, link-local and private addresses are refused (a sandbox bound off loopback). */
  privateWebhookTargets?: boolean;
}

/** Headers of one attempt, before the signature is added (the signature covers all of them). */
function deliveryHeaders(sub: SubscriptionRecord, d: DeliveryRecord): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sub.target.headers ?? {})) if (!DELIVERY_HEADERS.has(name.toLowerCase())) headers[name] = value;
  return { ...headers, "Content-Type": "application/json", "X-Event-Id": d.eventId, "X-Event-Type": d.eventType };
}

export function startWebhookDispatcher(deps: DispatcherDeps): WebhookDispatcher {
  const { store, clock } = deps;
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();
  // Every attempt in flight listens to this signal; a pass may start many at once.
  setMaxListeners(0, abort.signal);
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Writes an attempt's outcome, unless the delivery or its subscription went away meanwhile (deleted, reset, restored). */
  async function record(projectId: string, id: string, outcome: AttemptOutcome, headers: Record<string, string>): Promise<void> {
    if (!store.project(projectId)) return;
    const tx = store.begin(projectId);
    const current = deliveries(tx).get(id);
    if (current?.status !== "processing") return;
    const sub = subscriptions(tx).get(current.subscriptionId);
    if (!sub) {
      deliveries(tx).delete(id);
      await tx.commit();
      return;
    }
    const { ok, ...detail } = outcome;
    current.attempts.push({ at: clock.iso(), ...detail, headers });
    current.retryCount = current.attempts.length - 1;
    if (ok) {
      current.status = "succeeded";
      current.succeededAt = clock.iso();
    } else if (current.retryCount < MAX_RETRIES && sub.isEnabled) {
      current.status = "retrying";
      current.nextAttemptAtMs = clock.now() + retryDelayMs(current.retryCount);
    } else {
      current.status = "failed";
    }
    deliveries(tx).put(id, current);
    await tx.commit();
  }

  function launch(projectId: string, d: DeliveryRecord, sub: SubscriptionRecord): void {
    const headers = deliveryHeaders(sub, d);
    const signature = signDelivery(sub.secret, headers, d.payload, Math.floor(deps.wallNow() / 1000));
    const key = `${projectId}|${d.id}`;
    const sent = { ...headers, [SIGNATURE_HEADER]: signature, "User-Agent": "cdp-sandbox-webhooks" };
    const attempt = postDelivery(sub.target.url, sent, d.payload, abort.signal, deps.listeningPorts(), deps.privateWebhookTargets ?? true)
      .then((outcome) => record(projectId, d.id, outcome, sent))
      .catch((error: Error) => deps.log(`webhook delivery ${d.id} could not be recorded: ${error.message}`))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, attempt);
  }

  /** One project: detect activity, then start every due attempt. */
  async function passProject(projectId: string): Promise<void> {
    // Sends waiting for their block are read even without subscriptions, so they do not pile up.
    const busy =
      store.someCommitted(projectId, WEBHOOK_SUBSCRIPTIONS) ||
      store.someCommitted(projectId, WEBHOOK_DELIVERIES) ||
      store.someCommitted(projectId, WALLET_TRANSACTIONS);
    if (!busy) return;
    const tx = store.begin(projectId);
    scanActivity(tx, clock);
    const now = clock.now();
    const toSend: Array<[DeliveryRecord, SubscriptionRecord]> = [];
    // Read from the due index: the deliveries already sent or given up cost nothing here, however many there are.
    // Unless this pass wrote some, none is due when no committed one is: then the deliveries are not read at all
    // (a start through the data file's index leaves them unparsed until a delivery is due or asked for).
    const due = tx.dirty || store.hasDueCommitted(projectId, WEBHOOK_DELIVERIES, now) ? deliveries(tx).dueBy(now) : [];
    for (const d of due) {
      // "processing" without an attempt in flight was cut short (a restart with --data): it is due again.
      if (inFlight.has(`${projectId}|${d.id}`)) continue;
      const sub = subscriptions(tx).get(d.subscriptionId);
      if (!sub) {
        deliveries(tx).delete(d.id);
      } else if (!sub.isEnabled) {
        // Disabled subscriptions receive nothing: what was waiting for them fails without being sent.
        deliveries(tx).put(d.id, {
          ...d,
          status: "failed",
          attempts: [...d.attempts, { at: clock.iso(), elapsedTimeMs: 0, errorName: "subscription_disabled" }],
          retryCount: d.attempts.length,
        });
      } else {
        d.status = "processing";
        deliveries(tx).put(d.id, d);
        toSend.push([d, sub]);
      }
    }
    await tx.commit();
    if (!stopped) for (const [d, sub] of toSend) launch(projectId, d, sub);
  }

  async function pass(): Promise<void> {
    // Until the sandbox listens its own ports are unknown, so no target could be checked against them: nothing is sent.
    if (deps.listeningPorts().length === 0) return;
    for (const project of store.projects()) await passProject(project.id);
  }

  /** Passes never overlap: a new one waits for the one running. */
  function runPass(): Promise<void> {
    const next = (running ?? Promise.resolve(undefined)).catch(() => undefined).then(pass);
    running = next;
    void next
      .finally(() => {
        if (running === next) running = undefined;
      })
      .catch(() => undefined);
    return next;
  }

  const kick = () => {
    if (stopped || running) return;
    runPass().catch((error: Error) => deps.log(`webhook dispatcher pass failed: ${error.message}`));
  };
  const timer = setInterval(kick, PASS_INTERVAL_MS);
  timer.unref();
  const unsubscribe = clock.onChange(() => setImmediate(kick).unref());

  return {
    async flush(projectId) {
      await runPass();
      await Promise.all([...inFlight.values()]);
      const all = (projectId === undefined ? store.projects().map((p) => p.id) : [projectId]).flatMap((id) => deliveries(store.begin(id)).list());
      const count = (status: DeliveryRecord["status"]) => all.filter((d) => d.status === status).length;
      const nextRetry = Math.min(...all.filter((d) => d.status === "retrying").map((d) => d.nextAttemptAtMs));
      return {
        succeeded: count("succeeded"),
        retrying: count("retrying"),
        failed: count("failed"),
        pending: count("pending") + count("processing"),
        ...(Number.isFinite(nextRetry) ? { nextRetryAt: new Date(nextRetry).toISOString() } : {}),
      };
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      abort.abort();
      await running?.catch(() => undefined);
      await Promise.all([...inFlight.values()]);
    },
  };
}
