/**
 * Webhook subscriptions and their deliveries, per project.
 *
 * A subscription is created enabled or disabled, replaced by PUT (enabled ⇄
 * disabled any number of times) and deleted, which also deletes its
 * deliveries. A delivery is one event for one subscription:
 *
 *   pending ──attempt──▶ processing ──2xx──▶ succeeded
 *                            │
 *                            └─other──▶ retrying ──(backoff on the sandbox clock)──▶ processing …
 *                                           └── after the last retry, or when the subscription
 *                                               is disabled at attempt time ──▶ failed
 *
 * Every attempt is kept on the delivery; the events list shows the latest.
 */
import type { RequestBody, ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export type EventType = RequestBody<"createWebhookSubscription">["eventTypes"][number];
export type SubscriptionView = ResponseBody<"getWebhookSubscription", 200>;
export type EventView = ResponseBody<"listWebhookSubscriptionEvents", 200>["events"][number];

/** The contract's EventType enumeration at run time (the exhaustiveness check below keeps it in step with the generated types). */
const EVENT_TYPES = [
  "onchain.activity.detected",
  "wallet.activity.detected",
  "wallet.activity.multi",
  "wallet.transaction.created",
  "wallet.transaction.signed",
  "wallet.transaction.broadcast",
  "wallet.transaction.replaced",
  "wallet.transaction.pending",
  "wallet.transaction.confirmed",
  "wallet.transaction.failed",
  "wallet.delegation.created",
  "wallet.delegation.revoked",
  "wallet.typed_data.signed",
  "wallet.message.signed",
  "wallet.hash.signed",
  "payments.transfers.quoted",
  "payments.transfers.processing",
  "payments.transfers.completed",
  "payments.transfers.failed",
  "payments.transfers.expired",
  "payments.transfers.travel_rule_incomplete",
  "payments.transfers.travel_rule_completed",
  "onramp.transaction.created",
  "onramp.transaction.updated",
  "onramp.transaction.success",
  "onramp.transaction.failed",
  "offramp.transaction.created",
  "offramp.transaction.updated",
  "offramp.transaction.success",
  "offramp.transaction.failed",
  "acceptance.payment_session.created",
  "acceptance.payment_session.canceled",
  "acceptance.payment_session.authorization_pending",
  "acceptance.payment_session.authorization_succeeded",
  "acceptance.payment_session.authorization_failed",
  "acceptance.payment_session.capture_pending",
  "acceptance.payment_session.capture_succeeded",
  "acceptance.payment_session.capture_failed",
  "acceptance.payment_session.refund_pending",
  "acceptance.payment_session.refund_succeeded",
  "acceptance.payment_session.refund_failed",
  "acceptance.payment_session.void_pending",
  "acceptance.payment_session.void_succeeded",
  "acceptance.payment_session.void_failed",
  "acceptance.disbursement.pending",
  "acceptance.disbursement.succeeded",
  "acceptance.disbursement.failed",
  "health.status.updated",
  "health.maintenance.scheduled",
  "health.maintenance.started",
  "health.maintenance.completed",
  "health.maintenance.canceled",
  "customers.capability.changed",
  "customers.customer.deleted",
] as const satisfies readonly EventType[];
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const allEventTypesListed: [Missing] extends [never] ? true : Missing = true;
void allEventTypesListed;

export const isEventType = (name: string): name is EventType => (EVENT_TYPES as readonly string[]).includes(name);

/** The event types the sandbox produces from its own ledger, filtered by labels (the others ignore labels, as on the platform). */
const ACTIVITY_TYPES: readonly EventType[] = ["onchain.activity.detected", "wallet.activity.detected"];
export const usesLabels = (eventType: string) => (ACTIVITY_TYPES as readonly string[]).includes(eventType);

/** The health and maintenance events of a platform service, which subscriptions choose by the `service` label. */
export const isHealthEvent = (eventType: string) => eventType.startsWith("health.");

export interface SubscriptionRecord {
  subscriptionId: string;
  description?: string;
  eventTypes: EventType[];
  isEnabled: boolean;
  target: { url: string; headers?: Record<string, string> };
  metadata?: Record<string, string>;
  labels?: Record<string, string>;
  /** Signs every delivery (HMAC key, used as the UTF-8 text of the UUID). */
  secret: string;
  createdAt: string;
  createdAtMs: number;
  updatedAt?: string;
  /** Creation order, for a stable newest-first list when the clock is frozen. */
  seq: number;
}

type DeliveryStatus = EventView["status"];

interface DeliveryAttempt {
  /** Sandbox time of the attempt. */
  at: string;
  httpCode?: number;
  elapsedTimeMs: number;
  body?: string;
  errorName?: DeliveryErrorName;
  /** The headers sent, the signature included; absent on attempts not sent and on those recorded before headers were kept. */
  headers?: Record<string, string>;
}

/** Why an attempt did not deliver (`target_is_sandbox`: the target would reach the sandbox itself; `target_is_private`: its address is on the host's own network and the sandbox is bound off loopback; in both nothing was sent). */
export type DeliveryErrorName =
  | "http_error"
  | "timeout"
  | "connection_refused"
  | "dns_failure"
  | "connection_error"
  | "subscription_disabled"
  | "target_is_sandbox"
  | "target_is_private";

export interface DeliveryRecord {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: EventType;
  /** The JSON body, byte for byte as it is sent and signed. */
  payload: string;
  status: DeliveryStatus;
  createdAt: string;
  createdAtMs: number;
  /** Retries made so far (attempts − 1 once the first attempt is made). */
  retryCount: number;
  nextAttemptAtMs: number;
  succeededAt?: string;
  attempts: DeliveryAttempt[];
}

/** How far the ledger has been read for one subscription's activity events. */
export interface ScanCursor {
  subscriptionId: string;
  network: string;
  block: number;
}

export const WEBHOOK_SUBSCRIPTIONS = declareCollection<SubscriptionRecord>("webhookSubscriptions");
/** A delivery waiting to be sent (or cut short by a restart) is due at once; a retry when its next attempt comes. */
const deliveryDueAt = (d: DeliveryRecord): number | undefined =>
  d.status === "retrying" ? d.nextAttemptAtMs : d.status === "pending" || d.status === "processing" ? 0 : undefined;
export const WEBHOOK_DELIVERIES = declareCollection<DeliveryRecord>("webhookDeliveries", { dueAt: deliveryDueAt });
const WEBHOOK_SCAN_CURSORS = declareCollection<ScanCursor>("webhookScanCursors");

export const subscriptions = (store: ProjectTx): Collection<SubscriptionRecord> => store.collection(WEBHOOK_SUBSCRIPTIONS);
export const deliveries = (store: ProjectTx): Collection<DeliveryRecord> => store.collection(WEBHOOK_DELIVERIES);
export const scanCursors = (store: ProjectTx): Collection<ScanCursor> => store.collection(WEBHOOK_SCAN_CURSORS);

export const deliveryId = (subscriptionId: string, eventId: string) => `${subscriptionId}|${eventId}`;

export function findSubscription(store: ProjectTx, subscriptionId: string): SubscriptionRecord {
  const record = subscriptions(store).get(subscriptionId);
  if (!record) throw apiError("not_found", `Webhook subscription ${subscriptionId} was not found in this project.`);
  return record;
}

/** The metadata the platform answers with: the caller's entries plus the deprecated copy of the secret, when there is room for it. */
function metadataView(record: SubscriptionRecord): Record<string, string> | undefined {
  const own = record.metadata ?? {};
  // The contract caps metadata at 10 entries; the old `metadata.secret` copy is only added within that cap.
  return Object.keys(own).length < 10 ? { ...own, secret: record.secret } : own;
}

export function subscriptionView(record: SubscriptionRecord): SubscriptionView {
  return {
    subscriptionId: record.subscriptionId,
    ...(record.description !== undefined ? { description: record.description } : {}),
    eventTypes: record.eventTypes,
    isEnabled: record.isEnabled,
    target: record.target.headers ? { url: record.target.url, headers: record.target.headers } : { url: record.target.url },
    ...(record.labels !== undefined ? { labels: record.labels } : {}),
    metadata: metadataView(record),
    secret: record.secret,
    createdAt: record.createdAt,
    ...(record.updatedAt !== undefined ? { updatedAt: record.updatedAt } : {}),
  };
}

export function eventView(record: DeliveryRecord): EventView {
  const last = record.attempts.at(-1);
  return {
    eventId: record.eventId,
    eventTypeName: record.eventType,
    status: record.status,
    createdAt: record.createdAt,
    ...(record.succeededAt ? { succeededAt: record.succeededAt } : {}),
    retryCount: record.retryCount,
    ...(last
      ? {
          response: {
            ...(last.httpCode !== undefined ? { httpCode: last.httpCode } : {}),
            elapsedTimeMs: last.elapsedTimeMs,
            ...(last.body !== undefined ? { body: last.body } : {}),
            ...(last.errorName !== undefined ? { errorName: last.errorName } : {}),
          },
        }
      : {}),
  };
}
