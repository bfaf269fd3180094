/**
 * Webhook tests' side of the wire: subscribe a path of a local receiver,
 * flush the dispatcher, read what arrived (checking each signature the way a
 * receiver does, with node:crypto), and the order the sandbox emitted events in.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Sandbox, SandboxOptions } from "cdp-sandbox";
import { afterAll } from "vitest";
import { type Received, type Receiver, startReceiver } from "./receiver.js";
import { call, type Credentials, withSandbox } from "./sandbox.js";

const SUBSCRIPTIONS = "/platform/v2/data/webhooks/subscriptions";

export interface Subscription {
  subscriptionId: string;
  secret: string;
  path: string;
}

let paths = 0;

/** An enabled subscription to `eventTypes`, delivering to a fresh path of `receiver`. */
export async function subscribe(sandbox: Sandbox, receiver: Receiver, eventTypes: string[], credentials?: Credentials): Promise<Subscription> {
  const path = `/hooks/${++paths}`;
  const res = await call(sandbox, "POST", SUBSCRIPTIONS, { body: { eventTypes, isEnabled: true, target: { url: receiver.url(path) } }, credentials });
  if (res.status !== 201) throw new Error(`subscription failed: ${res.status} ${res.text}`);
  return { subscriptionId: res.body.subscriptionId, secret: res.body.secret, path };
}

/** Delivers everything due now and waits for the attempts. */
export async function flush(sandbox: Sandbox): Promise<void> {
  const res = await call(sandbox, "POST", "/_sandbox/webhooks/flush", { anonymous: true });
  if (res.status !== 200) throw new Error(`flush failed: ${res.status} ${res.text}`);
}

/** Whether a delivery carries a valid X-Hook0-Signature for `secret`. */
function signedWith(r: Received, secret: string): boolean {
  const parts = Object.fromEntries(
    String(r.headers["x-hook0-signature"])
      .split(",")
      .map((p) => p.split("=") as [string, string]),
  );
  const values = parts
    .h!.split(" ")
    .map((n) => String(r.headers[n] ?? ""))
    .join(".");
  const expected = createHmac("sha256", secret).update(`${parts.t}.${parts.h}.${values}.${r.rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(expected, given);
}

export interface Delivered {
  eventType: string;
  eventId: string;
  body: any;
}

/** What a subscription received, signature checked; sorted into the order the sandbox emitted the events (see `emitted`). */
export async function deliveredTo(sandbox: Sandbox, receiver: Receiver, sub: Subscription, credentials?: Credentials): Promise<Delivered[]> {
  const got = receiver.received(sub.path).map((r) => {
    if (!signedWith(r, sub.secret)) throw new Error(`delivery ${String(r.headers["x-event-id"])} is not signed with the subscription's secret`);
    return { eventType: String(r.headers["x-event-type"]), eventId: String(r.headers["x-event-id"]), body: JSON.parse(r.rawBody) };
  });
  const order = (await emitted(sandbox, sub, credentials)).map((e) => e.eventId);
  return got.sort((a, b) => order.indexOf(a.eventId) - order.indexOf(b.eventId));
}

/**
 * The subscription's events in the order the sandbox emitted them, oldest first (from
 * /_sandbox/webhooks/deliveries). The dispatcher sends a pass's deliveries concurrently,
 * so arrival order at the receiver is not the emission order.
 */
async function emitted(
  sandbox: Sandbox,
  sub: Subscription,
  credentials?: Credentials,
): Promise<Array<{ eventId: string; eventTypeName: string; status: string }>> {
  const res = await call(
    sandbox,
    "GET",
    `/_sandbox/webhooks/deliveries?subscriptionId=${sub.subscriptionId}`,
    credentials ? { credentials } : { anonymous: true },
  );
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return [...res.body.deliveries].reverse();
}

/**
 * A sandbox checked against the contract, its clock frozen (exact event and
 * retry times), and a receiver for its webhooks; both close after the file's
 * tests. Await it at the top of a test file.
 */
export async function sandboxWithReceiver(options: SandboxOptions): Promise<{ sandbox: Sandbox; receiver: Receiver }> {
  const sandbox = await withSandbox(options);
  sandbox.clock.freeze(true);
  const receiver = await startReceiver();
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });
  return { sandbox, receiver };
}
