/**
 * `cdp-sandbox trigger <event-type>`: runs the smallest real flow that makes
 * the sandbox emit that webhook event (triggerFlows.ts), delivers what it
 * emitted to the project's subscriptions, and prints each delivery. Against a
 * running sandbox (`--url`) or one it starts (a `--data` or `--init` file
 * gives it subscriptions to deliver to).
 */
import { parseArgs } from "node:util";
import type { Json, ProjectKeys } from "./client.js";
import { RefusedError, type SandboxClient } from "./client.js";
import { connect, START_OPTIONS, UsageError } from "./connect.js";
import { TRIGGERS, triggerFor } from "./triggerFlows.js";

const OPTIONS = {
  ...START_OPTIONS,
  url: { type: "string" },
  project: { type: "string" },
  list: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE =
  "usage: cdp-sandbox trigger <event-type> [--project ID] [--url URL [--admin-token T]]\n" +
  "                           [--data FILE | --init FILE] [--seed S]          (without --url: a sandbox of its own)\n" +
  "       cdp-sandbox trigger --list\n";

/**
 * Event types of the contract the sandbox never emits, and why: `trigger` names the reason instead of a flow.
 * (A test event of any type can still be sent with POST /_sandbox/webhooks/{subscriptionId}/test.)
 */
const NOT_PRODUCED: Record<string, string> = {
  "wallet.activity.multi": "the contract has no field for its address list",
  "wallet.transaction.pending": "the sandbox mines every transaction in the next block: none waits in a mempool",
  "wallet.transaction.replaced": "the sandbox mines every transaction in the next block: none is replaced",
  "offramp.transaction.created": "the sandbox has no offramp",
  "offramp.transaction.updated": "the sandbox has no offramp",
  "offramp.transaction.success": "the sandbox has no offramp",
  "offramp.transaction.failed": "the sandbox has no offramp",
  "health.status.updated": "the sandbox's services have no outages",
  "health.maintenance.scheduled": "the sandbox's services have no maintenance windows",
  "health.maintenance.started": "the sandbox's services have no maintenance windows",
  "health.maintenance.completed": "the sandbox's services have no maintenance windows",
  "health.maintenance.canceled": "the sandbox's services have no maintenance windows",
  "acceptance.payment_session.void_failed":
    "a void has no deadline and the escrow always holds what is still capturable, so no void the sandbox accepts can fail when it lands",
};

/** Every event type `trigger` accepts, in the table's order. */
export function triggerableEventTypes(): string[] {
  return [...new Set(TRIGGERS.flatMap((t) => t.eventTypes))];
}

export async function runTrigger(argv: string[]): Promise<number> {
  const say = (message: string) => process.stderr.write(`cdp-sandbox trigger: ${message}\n`);
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: true }>>["values"];
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }));
  } catch (error) {
    say(`${(error as Error).message} (cdp-sandbox trigger --help lists the options)`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.list) {
    for (const eventType of triggerableEventTypes()) process.stdout.write(`${eventType.padEnd(52)} ${triggerFor(eventType)!.does}\n`);
    return 0;
  }
  const [eventType, ...extra] = positionals;
  if (!eventType || extra.length > 0) {
    say(`give exactly one event type (cdp-sandbox trigger --list shows them)${extra.length ? `, got ${positionals.join(" ")}` : ""}`);
    return 2;
  }
  const trigger = triggerFor(eventType);
  if (!trigger) {
    const why = NOT_PRODUCED[eventType];
    say(
      why
        ? `the sandbox has no flow that produces ${eventType}: ${why}. A test event with your own data: POST /_sandbox/webhooks/{subscriptionId}/test`
        : `unknown event type '${eventType}'. The event types it triggers: ${triggerableEventTypes().join(", ")}`,
    );
    return 2;
  }
  let connected: Awaited<ReturnType<typeof connect>>;
  try {
    connected = await connect(values.url, values, (line) => process.stderr.write(`cdp-sandbox: ${line}\n`));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(error.message);
    return 2;
  }
  try {
    const keys = await connected.client.projectKeys(values.project);
    return await triggerEvent(connected.client, keys, eventType, say);
  } catch (error) {
    say(error instanceof RefusedError ? `the flow was refused: ${error.message}` : (error as Error).message);
    return 1;
  } finally {
    await connected.close();
  }
}

/** Runs the flow of `eventType` for `keys`' project, delivers what it emitted and prints each delivery on stdout. */
export async function triggerEvent(client: SandboxClient, keys: ProjectKeys, eventType: string, say: (line: string) => void): Promise<number> {
  const project = keys.projectId;
  const subscriptions = (await client.adminOk("GET", "/webhooks/subscriptions", { project })).subscriptions as Json[];
  const targets = new Map<string, string>(subscriptions.map((s) => [s.subscriptionId, s.target.url]));
  if (!subscriptions.some((s) => s.isEnabled && s.eventTypes.includes(eventType))) {
    say(`no enabled subscription of project ${project} takes ${eventType}: the flow runs, but nothing is delivered`);
  }
  const before = new Set(((await client.adminOk("GET", "/webhooks/deliveries?limit=200", { project })).deliveries as Json[]).map(deliveryKey));
  await triggerFor(eventType)!.run({ client, keys, say }, eventType);
  await client.adminOk("POST", "/webhooks/flush", { project });
  const delivered = ((await client.adminOk("GET", "/webhooks/deliveries?limit=200", { project })).deliveries as Json[])
    .filter((d) => !before.has(deliveryKey(d)))
    .reverse(); // oldest first: the order the flow emitted them
  for (const d of delivered) {
    const answer = d.response?.httpCode ?? d.response?.errorName ?? "-";
    process.stdout.write(`${d.eventTypeName}  ${d.status} (${answer})  ${targets.get(d.subscriptionId) ?? d.subscriptionId}  ${d.eventId}\n`);
  }
  if (!delivered.some((d) => d.eventTypeName === eventType)) say(`${eventType} was delivered to no subscription`);
  return 0;
}

const deliveryKey = (d: Json) => `${d.subscriptionId}/${d.eventId}`;
