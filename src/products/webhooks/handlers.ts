/**
 * Webhooks: subscriptions (create, get, list newest first, replace, delete)
 * and the deliveries of one subscription (the 50 most recent, filtered by
 * event id, time range or event type). Deliveries themselves are made by the
 * dispatcher (dispatcher.ts) after the requests that caused them commit.
 */
import { apiError } from "../../errors/catalogue.js";
import { paginate } from "../../wallet/shared/pagination.js";
import type { Handler, Handlers, QueryParams } from "../../wallet/types.js";
import {
  deliveries,
  eventView,
  findSubscription,
  isEventType,
  scanCursors,
  subscriptions,
  subscriptionView,
  type SubscriptionRecord,
} from "../../wallet/events/model.js";
import { startScanAt } from "./onchain.js";
import { activityNetworkOf, checkSubscriptionInput, type SubscriptionInput } from "./rules.js";

const MAX_EVENTS_LISTED = 50;

/** The caller's fields, without the optional ones they left out (a PUT replaces them all). */
function configOf(
  body: SubscriptionInput,
  labels: Record<string, string> | undefined,
): Omit<SubscriptionRecord, "subscriptionId" | "secret" | "createdAt" | "createdAtMs" | "seq"> {
  return {
    ...(body.description !== undefined ? { description: body.description } : {}),
    eventTypes: body.eventTypes,
    isEnabled: body.isEnabled,
    target: body.target.headers !== undefined ? { url: body.target.url, headers: body.target.headers } : { url: body.target.url },
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(labels !== undefined ? { labels } : {}),
  };
}

const createWebhookSubscription: Handler<"createWebhookSubscription"> = (req, ctx) => {
  const body = req.body;
  const labels = checkSubscriptionInput(body, ctx.listeningPorts(), ctx.privateWebhookTargets ?? true);
  const all = subscriptions(ctx.store).list();
  const record: SubscriptionRecord = {
    subscriptionId: ctx.random.uuid(),
    ...configOf(body, labels),
    secret: ctx.random.secrets().uuid(), // signs deliveries: never from the seed off loopback
    createdAt: ctx.clock.iso(),
    createdAtMs: ctx.clock.now(),
    seq: all.reduce((max, s) => Math.max(max, s.seq), 0) + 1,
  };
  subscriptions(ctx.store).insert(record.subscriptionId, record);
  startScanAt(ctx.store, ctx.clock, record);
  return { status: 201, body: subscriptionView(record) };
};

const getWebhookSubscription: Handler<"getWebhookSubscription"> = (req, ctx) => ({
  status: 200,
  body: subscriptionView(findSubscription(ctx.store, req.pathParams.subscriptionId)),
});

const listWebhookSubscriptions: Handler<"listWebhookSubscriptions"> = (req, ctx) => {
  const newestFirst = subscriptions(ctx.store)
    .list()
    .sort((a, b) => b.createdAtMs - a.createdAtMs || b.seq - a.seq);
  const page = paginate(newestFirst, req.query, "webhook-subscriptions");
  return { status: 200, body: { subscriptions: page.items.map(subscriptionView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const updateWebhookSubscription: Handler<"updateWebhookSubscription"> = (req, ctx) => {
  const existing = findSubscription(ctx.store, req.pathParams.subscriptionId);
  const body = req.body;
  const labels = checkSubscriptionInput(body, ctx.listeningPorts(), ctx.privateWebhookTargets ?? true);
  const { subscriptionId, secret, createdAt, createdAtMs, seq } = existing;
  const updated: SubscriptionRecord = { subscriptionId, ...configOf(body, labels), secret, createdAt, createdAtMs, seq, updatedAt: ctx.clock.iso() };
  subscriptions(ctx.store).put(subscriptionId, updated);
  // Blocks mined while it was disabled, or on another network, are not delivered: reading restarts from now.
  if (activityNetworkOf(updated) !== activityNetworkOf(existing) || (!existing.isEnabled && updated.isEnabled)) startScanAt(ctx.store, ctx.clock, updated);
  return { status: 200, body: subscriptionView(updated) };
};

const deleteWebhookSubscription: Handler<"deleteWebhookSubscription"> = (req, ctx) => {
  const { subscriptionId } = findSubscription(ctx.store, req.pathParams.subscriptionId);
  subscriptions(ctx.store).delete(subscriptionId);
  scanCursors(ctx.store).delete(subscriptionId);
  for (const d of deliveries(ctx.store).filter((r) => r.subscriptionId === subscriptionId)) deliveries(ctx.store).delete(d.id);
  return { status: 204 };
};

function timeFilter(query: QueryParams<"listWebhookSubscriptionEvents">, name: "minCreatedAt" | "maxCreatedAt"): number | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw apiError("invalid_request", `${name} must be a valid RFC 3339 timestamp, e.g. 2025-01-15T00:00:00Z.`);
  return ms;
}

const listWebhookSubscriptionEvents: Handler<"listWebhookSubscriptionEvents"> = (req, ctx) => {
  const { subscriptionId } = findSubscription(ctx.store, req.pathParams.subscriptionId);
  const min = timeFilter(req.query, "minCreatedAt");
  const max = timeFilter(req.query, "maxCreatedAt");
  const rawNames = req.query.eventTypeNames;
  const names =
    typeof rawNames === "string"
      ? rawNames
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean)
      : [];
  const unknown = names.filter((n) => !isEventType(n));
  if (unknown.length > 0) throw apiError("invalid_request", `Unknown event type names: ${unknown.join(", ")}.`);
  const eventId = typeof req.query.eventId === "string" ? req.query.eventId : undefined;
  const matching = deliveries(ctx.store)
    .filter((d) => d.subscriptionId === subscriptionId)
    .filter(
      (d) => (eventId === undefined || d.eventId === eventId) && (min === undefined || d.createdAtMs >= min) && (max === undefined || d.createdAtMs <= max),
    )
    .filter((d) => names.length === 0 || names.includes(d.eventType));
  // Newest first; records are kept in creation order, so equal times (a frozen clock) keep it reversed.
  const newestFirst = matching.reverse().sort((a, b) => b.createdAtMs - a.createdAtMs);
  return { status: 200, body: { events: newestFirst.slice(0, MAX_EVENTS_LISTED).map(eventView) } };
};

export const handlers: Handlers = {
  createWebhookSubscription,
  getWebhookSubscription,
  listWebhookSubscriptions,
  updateWebhookSubscription,
  deleteWebhookSubscription,
  listWebhookSubscriptionEvents,
};
