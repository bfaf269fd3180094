/**
 * Recording events for delivery. Any domain can emit an event inside its
 * request: the deliveries are written to the same transaction as the rest of
 * the request, so they exist only if the request succeeds, and the dispatcher
 * sends them once it has committed (within a fraction of a second, or at once
 * with `POST /_sandbox/webhooks/flush`).
 *
 * @example
 *   // after a grant is stored (a flat body):
 *   emitWebhookEvent(ctx, { eventType: "wallet.delegation.revoked", data: { delegation_id, user_id, revoked_at: ctx.clock.iso() } });
 *   // an envelope that repeats the event id:
 *   emitWebhookEvent(ctx, { eventType, data: (eventId) => ({ eventId, eventType, timestamp, data: { customerId } }) });
 */
import type { Clock } from "../../clock.js";
import type { Random } from "../../random.js";
import type { ProjectTx } from "../../store/store.js";
import { deliveries, deliveryId, subscriptions, usesLabels, type DeliveryRecord, type EventType, type SubscriptionRecord } from "./model.js";

/** What emitting needs: the project's transaction, the sandbox clock and randomness (for event ids). */
export interface EmitContext {
  store: ProjectTx;
  clock: Clock;
  random: Random;
}

export interface WebhookEvent {
  eventType: EventType;
  /**
   * The JSON body the receiver gets, exactly (its shape is the event type's documented payload),
   * or a function of the event id for the payloads that carry it in their envelope.
   */
  data: unknown;
  /** Only for the activity event types, which subscriptions filter by labels; the platform ignores labels for the others. */
  labels?: Record<string, string>;
  /** Defaults to a new UUID; the receiver sees it in the X-Event-Id header. */
  eventId?: string;
}

const HEX_ADDRESS_OR_HASH = /^0x[0-9a-fA-F]+$/;

/** Label values compare exactly, except hex addresses and hashes, which compare case-insensitively (checksummed or not). */
function sameValue(wanted: string, actual: string): boolean {
  if (HEX_ADDRESS_OR_HASH.test(wanted) && HEX_ADDRESS_OR_HASH.test(actual)) return wanted.toLowerCase() === actual.toLowerCase();
  return wanted === actual;
}

/**
 * Total overlap: every label of the subscription is on the event with the same value;
 * the event may carry more. `event_signature` also matches the signature's hash (topic 0).
 */
export function labelsMatch(wanted: Record<string, string> | undefined, event: Record<string, string>): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => {
    const actual = event[key];
    if (actual !== undefined && sameValue(value, actual)) return true;
    return key === "event_signature" && event.event_signature_hash !== undefined && sameValue(value, event.event_signature_hash);
  });
}

/** Would this subscription receive this event now? */
export function subscriptionWants(sub: SubscriptionRecord, eventType: EventType, labels: Record<string, string> | undefined): boolean {
  if (!sub.isEnabled || !sub.eventTypes.includes(eventType)) return false;
  return !usesLabels(eventType) || labelsMatch(sub.labels, labels ?? {});
}

/** Queues one event for one subscription (first attempt due now). */
export function queueDelivery(store: ProjectTx, clock: Clock, sub: SubscriptionRecord, eventType: EventType, eventId: string, payload: string): DeliveryRecord {
  const now = clock.now();
  const record: DeliveryRecord = {
    id: deliveryId(sub.subscriptionId, eventId),
    subscriptionId: sub.subscriptionId,
    eventId,
    eventType,
    payload,
    status: "pending",
    createdAt: new Date(now).toISOString(),
    createdAtMs: now,
    retryCount: 0,
    nextAttemptAtMs: now,
    attempts: [],
  };
  deliveries(store).put(record.id, record);
  return record;
}

/**
 * Records `event` for every enabled subscription of the project that takes its
 * type (and, for activity events, whose labels it carries). Returns the event id
 * and the subscriptions it will be delivered to. With none, nothing is recorded
 * and no id is drawn (so emitting costs a project without subscriptions nothing,
 * and does not move the seeded id stream).
 */
export function emitWebhookEvent(ctx: EmitContext, event: WebhookEvent): { eventId?: string; subscriptionIds: string[] } {
  const targets = subscriptions(ctx.store).filter((sub) => subscriptionWants(sub, event.eventType, event.labels));
  if (targets.length === 0) return { subscriptionIds: [] };
  const eventId = event.eventId ?? ctx.random.uuid();
  const payload = JSON.stringify(typeof event.data === "function" ? (event.data as (id: string) => unknown)(eventId) : event.data);
  for (const sub of targets) queueDelivery(ctx.store, ctx.clock, sub, event.eventType, eventId, payload);
  return { eventId, subscriptionIds: targets.map((s) => s.subscriptionId) };
}
