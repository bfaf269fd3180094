/**
 * `cdp-sandbox listen --forward-to URL [--events TYPE,…]`: webhook deliveries
 * of a project, forwarded to a local endpoint and printed as they happen.
 *
 * It subscribes the project to the events with a target of its own (a local
 * HTTP server), checks each delivery's signature with that subscription's
 * secret, and forwards it to --forward-to signed again, in the same scheme,
 * with a secret of its own: HMAC-SHA256 of "cdp-sandbox listen" keyed with
 * the project's API key secret. That secret is printed once at start and is
 * the same on every run for the same project (the same --seed, the same state
 * file), so a handler's configuration survives restarts; the sandbox's
 * subscription secret is new each time. The receiver's status and body go
 * back to the sandbox as the delivery's answer, so the delivery log, the
 * retries and `replay` work as for any subscription. The subscription is
 * deleted when listen stops (SIGINT, SIGTERM).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { isEventType } from "../wallet/events/model.js";
import { SIGNATURE_HEADER, signDelivery } from "../products/webhooks/signature.js";
import type { ProjectKeys, SandboxClient } from "./client.js";
import { RefusedError } from "./client.js";
import { connect, START_OPTIONS, UsageError } from "./connect.js";
import { triggerableEventTypes } from "./trigger.js";

const OPTIONS = {
  ...START_OPTIONS,
  url: { type: "string" },
  project: { type: "string" },
  "forward-to": { type: "string" },
  events: { type: "string" },
  label: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE =
  "usage: cdp-sandbox listen --forward-to URL [--events TYPE,...] [--label key=value ...] [--project ID]\n" +
  "                          [--url URL [--admin-token T]] [--seed S] [--data FILE] [--port N]   (without --url: a sandbox of its own)\n";

/** The secret listen signs with for a project: stable across runs, known only to whoever holds the API key secret. */
export function listenSecret(keys: ProjectKeys): string {
  const hex = createHmac("sha256", keys.apiKeySecret).update("cdp-sandbox listen").digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export async function runListen(argv: string[]): Promise<number> {
  const say = (message: string) => process.stderr.write(`cdp-sandbox listen: ${message}\n`);
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    say(`${(error as Error).message} (cdp-sandbox listen --help lists the options)`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let forwardTo: URL;
  try {
    forwardTo = new URL(values["forward-to"] ?? "");
    if (forwardTo.protocol !== "http:" && forwardTo.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    say(
      `--forward-to takes the URL of your webhook endpoint, e.g. http://localhost:3000/webhooks${values["forward-to"] ? `; got '${values["forward-to"]}'` : ""}`,
    );
    return 2;
  }
  const eventTypes = values.events
    ? values.events
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean)
    : defaultEventTypes();
  const unknown = eventTypes.filter((t) => !isEventType(t));
  if (unknown.length > 0 || eventTypes.length === 0) {
    say(`unknown event type ${unknown.map((t) => `'${t}'`).join(", ") || "(none given)"}. The sandbox delivers: ${triggerableEventTypes().join(", ")}`);
    return 2;
  }
  const labels: Record<string, string> = {};
  for (const pair of values.label ?? []) {
    const eq = pair.indexOf("=");
    if (eq < 1) {
      say(`--label takes key=value, got '${pair}'`);
      return 2;
    }
    labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  let connected: Awaited<ReturnType<typeof connect>>;
  try {
    connected = await connect(values.url, values, (line) => process.stderr.write(`cdp-sandbox: ${line}\n`));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(error.message);
    return 2;
  }
  let listener: Listener | undefined;
  // Listening for the signals before the ready lines: a stop that follows them at once still removes the subscription.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  try {
    const keys = await connected.client.projectKeys(values.project);
    listener = await startListener(connected.client, keys, { forwardTo: forwardTo.href, eventTypes, labels });
    process.stdout.write(
      `Ready: forwarding ${eventTypes.length === 1 ? eventTypes[0] : `${eventTypes.length} event types`} of project ${keys.projectId} to ${forwardTo.href}\n` +
        `Your webhook signing secret is ${listener.secret} (X-Hook0-Signature; the same on every run for this project)\n`,
    );
    await stopped;
    return 0;
  } catch (error) {
    say(error instanceof RefusedError ? `the sandbox refused: ${error.message}` : (error as Error).message);
    return error instanceof RefusedError && error.answer.status < 500 ? 2 : 1;
  } finally {
    await listener?.close();
    await connected.close();
  }
}

/** Every event type the sandbox produces that needs no labels (activity subscriptions need theirs: --label). */
function defaultEventTypes(): string[] {
  return triggerableEventTypes().filter((t) => !t.endsWith(".activity.detected"));
}

interface Listener {
  secret: string;
  subscriptionId: string;
  close(): Promise<void>;
}

/** Subscribes `keys`' project to a local forwarder, which forwards each delivery to `forwardTo` and prints it. */
export async function startListener(
  client: SandboxClient,
  keys: ProjectKeys,
  o: { forwardTo: string; eventTypes: string[]; labels?: Record<string, string>; print?: (line: string) => void },
): Promise<Listener> {
  const print = o.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const secret = listenSecret(keys);
  let subscriptionSecret = "";
  const server: Server = createServer((req, res) => {
    void forward(req, subscriptionSecret, secret, o.forwardTo).then(
      ({ status, body, eventType, eventId }) => {
        print(`${new Date().toISOString()}  ${eventType}  ${eventId}  → ${status} ${o.forwardTo}`);
        res.writeHead(status, { "content-type": "text/plain" }).end(body);
      },
      (error: Error) => {
        print(`${new Date().toISOString()}  ${req.headers["x-event-type"] ?? "?"}  → not forwarded: ${error.message}`);
        res.writeHead(502, { "content-type": "text/plain" }).end(error.message);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  let created: { subscriptionId: string; secret: string };
  try {
    created = await client.platformOk(keys, "POST", "/v2/data/webhooks/subscriptions", {
      body: {
        description: "cdp-sandbox listen",
        eventTypes: o.eventTypes,
        isEnabled: true,
        target: { url: target },
        ...(o.labels && Object.keys(o.labels).length ? { labels: o.labels } : {}),
      },
    });
  } catch (error) {
    await closeServer();
    throw error;
  }
  subscriptionSecret = created.secret;
  return {
    secret,
    subscriptionId: created.subscriptionId,
    async close() {
      await client.platform(keys, "DELETE", `/v2/data/webhooks/subscriptions/${created.subscriptionId}`).catch(() => undefined);
      await closeServer();
    },
  };
}

/**
 * Checks the sandbox's signature, forwards the delivery signed with listen's secret, answers with the receiver's
 * answer. What is forwarded is what the sandbox signed: the body and the headers its signature names.
 */
async function forward(req: IncomingMessage, subscriptionSecret: string, secret: string, forwardTo: string) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const signature = String(req.headers[SIGNATURE_HEADER.toLowerCase()] ?? "");
  const parts = Object.fromEntries(signature.split(",").map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  const names = (parts.h ?? "").split(" ").filter(Boolean);
  const headers = Object.fromEntries(names.map((name) => [name, String(req.headers[name] ?? "")]));
  const expected = parts.t ? signDelivery(subscriptionSecret, headers, body, Number(parts.t)) : "";
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
    throw new Error("the delivery does not carry the subscription's signature");
  }
  const resigned = signDelivery(secret, headers, body, Math.floor(Date.now() / 1000));
  const res = await fetch(forwardTo, {
    method: "POST",
    headers: { ...headers, [SIGNATURE_HEADER]: resigned },
    body,
    redirect: "manual",
    signal: AbortSignal.timeout(14_000),
  });
  return { status: res.status, body: await res.text(), eventType: headers["x-event-type"] ?? "?", eventId: headers["x-event-id"] ?? "?" };
}
