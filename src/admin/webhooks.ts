/**
 * /_sandbox/webhooks: drive the webhook dispatcher from tests and tools.
 *
 * - `POST /webhooks/flush`: deliver now — read newly mined blocks, attempt
 *   every due delivery, and answer once the attempts are done.
 * - `POST /webhooks/{subscriptionId}/test`: send one event to one enabled
 *   subscription (`{eventType?, data?}`; for the activity event types a
 *   sample log is built from the subscription's labels) and answer with its
 *   first attempt.
 * - `GET /webhooks/deliveries[?subscriptionId=]`: every delivery with its
 *   payload and all its attempts (the platform's events list shows the last).
 */
import { getAddress, keccak256, toHex } from "viem";
import { blockNumberAt, blockTimestampOf } from "../chain/blocks.js";
import { evmTokenBySymbol } from "../chain/tokens.js";
import type { Clock } from "../clock.js";
import { apiError } from "../errors/catalogue.js";
import type { Random } from "../random.js";
import type { WebhookDispatcher } from "../products/webhooks/dispatcher.js";
import { queueDelivery } from "../wallet/events/emit.js";
import {
  deliveries,
  deliveryId,
  subscriptions,
  eventView,
  findSubscription,
  isEventType,
  usesLabels,
  type DeliveryRecord,
  type EventType,
} from "../wallet/events/model.js";
import { activityPayload, type ActivityFacts } from "../products/webhooks/onchain.js";
import { ACTIVITY_NETWORKS } from "../products/webhooks/rules.js";
import { integerOf } from "./paging.js";
import { type AdminContext, type AdminHandler, callerProject } from "./types.js";

function dispatcher(ctx: AdminContext): WebhookDispatcher {
  if (!ctx.webhooks) throw apiError("not_found", "Webhook delivery is not running in this sandbox.");
  return ctx.webhooks;
}

/** Deliver now: newly mined blocks become activity events, every due delivery is attempted; answers once the attempts are done. */
export const flushSandboxWebhooks: AdminHandler<"flushSandboxWebhooks"> = async ({ projectId }, ctx) => ({
  status: 200,
  body: await dispatcher(ctx).flush(projectId),
});

/** A Transfer-shaped log made from the subscription's labels: it is a sample, not a ledger transaction. */
function sampleFacts(labels: Record<string, string>, clock: Clock, random: Random): ActivityFacts {
  const platformNetwork = labels.network ?? "base-sepolia";
  const network = ACTIVITY_NETWORKS[platformNetwork] ?? "base-sepolia";
  const address = (label: string, fallback: () => string) =>
    labels[label] !== undefined && /^0x[0-9a-fA-F]{40}$/.test(labels[label]!) ? getAddress(labels[label]!) : fallback();
  const randomAddress = () => getAddress(`0x${random.hex(20)}`);
  const eventName = labels.event_name ?? "Transfer";
  const parameters: Record<string, string> =
    eventName === "Transfer" ? { from: address("params.from", randomAddress), to: address("params.to", randomAddress), value: "1000000" } : {};
  for (const [k, v] of Object.entries(labels))
    if (k.startsWith("params.")) parameters[k.slice("params.".length)] = /^0x[0-9a-fA-F]{40}$/.test(v) ? getAddress(v) : v;
  const contractAddress = address("contract_address", () => evmTokenBySymbol(network, "USDC")!.address);
  const block = blockNumberAt(network, clock.now());
  return {
    network: platformNetwork in ACTIVITY_NETWORKS ? platformNetwork : "base-sepolia",
    blockNumber: block,
    blockTimestamp: new Date(blockTimestampOf(network, block)).toISOString().replace(/\.\d{3}Z$/, "Z"),
    transactionHash: `0x${random.hex(32)}`,
    transactionFrom: address("transaction_from", () => parameters.from ?? randomAddress()),
    transactionTo: address("transaction_to", () => contractAddress),
    logIndex: 0,
    contractAddress,
    eventName,
    signatureHash: keccak256(toHex(`${eventName}(address,address,uint256)`)),
    parameters,
  };
}

/**
 * One event to one enabled subscription, answered with its first attempt. Not under the project's lock:
 * it waits for the delivery, and the receiver may call the sandbox back.
 */
export const sendSandboxWebhookTestEvent: AdminHandler<"sendSandboxWebhookTestEvent"> = async (call, ctx) => {
  const webhooks = dispatcher(ctx);
  const projectId = callerProject(call, ctx);
  const { subscriptionId } = call.pathParams;
  const body = call.body;
  const random = ctx.random.webhookTests;
  const tx = ctx.store.begin(projectId);
  const sub = findSubscription(tx, subscriptionId);
  if (!sub.isEnabled)
    throw apiError("invalid_request", `Webhook subscription ${subscriptionId} is disabled and receives nothing; enable it (isEnabled: true) first.`);
  const eventType = body.eventType ?? sub.eventTypes[0];
  if (typeof eventType !== "string" || !isEventType(eventType) || !sub.eventTypes.includes(eventType)) {
    throw apiError("invalid_request", `eventType must be one of the subscription's event types: ${sub.eventTypes.join(", ")}.`);
  }
  const eventId = random.uuid();
  let data = body.data;
  if (data === undefined) {
    if (!usesLabels(eventType))
      throw apiError(
        "invalid_request",
        `Give the payload to send as data: the sandbox builds sample payloads only for onchain.activity.detected and wallet.activity.detected.`,
      );
    data = activityPayload(eventType as EventType, eventId, sampleFacts(sub.labels ?? {}, ctx.clock, random));
  }
  queueDelivery(tx, ctx.clock, sub, eventType, eventId, JSON.stringify(data));
  await tx.commit();
  await webhooks.flush(projectId);
  const sent = deliveries(ctx.store.begin(projectId)).get(deliveryId(subscriptionId, eventId));
  if (!sent) throw apiError("not_found", `Webhook subscription ${subscriptionId} was deleted while the test event was sent.`);
  return { status: 200, body: { subscriptionId, ...eventView(sent), payload: JSON.parse(sent.payload) } };
};

function deliveryDetail(d: DeliveryRecord) {
  return {
    subscriptionId: d.subscriptionId,
    ...eventView(d),
    ...(d.status === "retrying" ? { nextAttemptAt: new Date(d.nextAttemptAtMs).toISOString() } : {}),
    payload: JSON.parse(d.payload),
    attempts: d.attempts,
  };
}

/** Every delivery of the caller's project (else the default project), newest first, with its payload and all attempts. */
export const listSandboxWebhookDeliveries: AdminHandler<"listSandboxWebhookDeliveries"> = (call, ctx) => {
  const subscriptionId = typeof call.query.subscriptionId === "string" ? call.query.subscriptionId : undefined;
  const limit = integerOf(call.query.limit);
  const all = deliveries(ctx.store.begin(callerProject(call, ctx))).filter((d) => subscriptionId === undefined || d.subscriptionId === subscriptionId);
  return {
    status: 200,
    body: {
      deliveries: all
        .reverse()
        .sort((a, b) => b.createdAtMs - a.createdAtMs)
        .slice(0, limit)
        .map(deliveryDetail),
    },
  };
};

/** The project's subscriptions, newest first, with how their deliveries stand. */
export const listSandboxWebhookSubscriptions: AdminHandler<"listSandboxWebhookSubscriptions"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const tally = new Map<string, { total: number; succeeded: number; failed: number; retrying: number; pending: number }>();
  deliveries(tx).filter((d) => {
    const t = tally.get(d.subscriptionId) ?? { total: 0, succeeded: 0, failed: 0, retrying: 0, pending: 0 };
    t.total++;
    if (d.status === "succeeded" || d.status === "failed" || d.status === "retrying") t[d.status]++;
    else t.pending++;
    tally.set(d.subscriptionId, t);
    return false;
  });
  const list = subscriptions(tx)
    .list()
    .sort((a, b) => b.createdAtMs - a.createdAtMs || b.seq - a.seq);
  return {
    status: 200,
    body: {
      subscriptions: list.map((s) => ({
        subscriptionId: s.subscriptionId,
        ...(s.description !== undefined ? { description: s.description } : {}),
        eventTypes: s.eventTypes,
        isEnabled: s.isEnabled,
        target: s.target,
        ...(s.labels ? { labels: s.labels } : {}),
        createdAt: s.createdAt,
        deliveries: tally.get(s.subscriptionId) ?? { total: 0, succeeded: 0, failed: 0, retrying: 0, pending: 0 },
      })),
    },
  };
};

/**
 * One more attempt of a delivery, now: the same payload, signed afresh when sent. Not under the project's lock:
 * it waits for the attempt, and the receiver may call the sandbox back.
 */
export const replaySandboxWebhookDelivery: AdminHandler<"replaySandboxWebhookDelivery"> = async (call, ctx) => {
  const webhooks = dispatcher(ctx);
  const projectId = callerProject(call, ctx);
  const { subscriptionId, eventId } = call.pathParams;
  const tx = ctx.store.begin(projectId);
  const sub = findSubscription(tx, subscriptionId);
  const id = deliveryId(subscriptionId, eventId);
  const delivery = deliveries(tx).get(id);
  if (!delivery) throw apiError("not_found", `Webhook subscription ${subscriptionId} has no delivery of event ${eventId}.`);
  if (!sub.isEnabled)
    throw apiError("invalid_request", `Webhook subscription ${subscriptionId} is disabled; enable it (isEnabled: true) to replay its deliveries.`);
  // A delivery being sent right now is not sent twice: the flush waits for that attempt.
  if (delivery.status !== "processing") {
    deliveries(tx).put(id, { ...delivery, status: "pending", nextAttemptAtMs: ctx.clock.now() });
    await tx.commit();
  }
  await webhooks.flush(projectId);
  const sent = deliveries(ctx.store.begin(projectId)).get(id);
  if (!sent) throw apiError("not_found", `Webhook subscription ${subscriptionId} was deleted while the delivery was replayed.`);
  return { status: 200, body: deliveryDetail(sent) };
};
