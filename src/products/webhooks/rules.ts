/**
 * What a subscription must satisfy beyond the contract's schema (which has
 * already checked types, the event type enumeration, the URL pattern and the
 * metadata size): non-empty event types, a target that is not the sandbox
 * itself (selfTarget.ts) nor, off loopback, on the host's own networks (privateTarget.ts), usable target headers, metadata key length, and
 * labels — at most 20, and for the event types that read them only the keys
 * each takes (LABELS_OF), its required ones present: onchain activity names its
 * `contract_address`, wallet.activity.multi its `wallet_addresses` (at most
 * 100), the health events their `service`; `network` defaults to base-mainnet.
 */
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { isHealthEvent, usesLabels, type EventType, type SubscriptionRecord } from "../../wallet/events/model.js";
import { privateHostOf } from "./privateTarget.js";
import { portOf, urlReachesSandbox } from "./selfTarget.js";

const MAX_LABELS = 20;
const MAX_METADATA_KEY_LENGTH = 40;

/** The `network` label values of the activity events, and the ledger network each one reads. */
export const ACTIVITY_NETWORKS: Record<string, string> = { "base-mainnet": "base", "base-sepolia": "base-sepolia" };

/** The network of activity events when a subscription names none. */
const DEFAULT_ACTIVITY_NETWORK = "base-mainnet";
/** The event of several wallets' activity, whose wallets are listed in the `wallet_addresses` label. */
const MULTI_WALLET_EVENT = "wallet.activity.multi";
const MAX_WALLET_ADDRESSES = 100;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The platform services whose health and maintenance are announced (`service` label of the health.* events). */
const HEALTH_SERVICES = ["payments_acceptance", "webhooks"];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Set by the delivery itself, or by the HTTP connection: a target header cannot replace them.
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "x-hook0-signature"]);

/** A create or replace body: both carry every field of the subscription. */
export type SubscriptionInput = RequestBody<"createWebhookSubscription"> | RequestBody<"updateWebhookSubscription">;

function checkTarget(target: SubscriptionInput["target"], sandboxPorts: readonly number[], privateAllowed: boolean): void {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw apiError("invalid_request", `target.url ${JSON.stringify(target.url)} is not a valid URL.`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw apiError("invalid_request", `target.url must be an http or https URL with a host name; got ${JSON.stringify(target.url)}.`);
  }
  if (urlReachesSandbox(url, sandboxPorts)) {
    throw apiError(
      "invalid_request",
      `target.url ${JSON.stringify(target.url)} is the sandbox itself (port ${portOf(url)} of this machine); webhooks cannot be delivered to the sandbox. Use a receiver on another port.`,
    );
  }
  const privateRange = privateAllowed ? undefined : privateHostOf(url.hostname);
  if (privateRange) {
    throw apiError(
      "invalid_request",
      `target.url ${JSON.stringify(target.url)} is on the sandbox host's own network (${privateRange}); a sandbox reachable from the network delivers only to public addresses unless started with --allow-private-webhook-targets.`,
    );
  }
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) throw apiError("invalid_request", `target.headers: ${JSON.stringify(name)} is not a valid HTTP header name.`);
    if (/[\r\n\0]/.test(value)) throw apiError("invalid_request", `target.headers.${name} must not contain line breaks or NUL characters.`);
    if (RESERVED_HEADERS.has(lower)) throw apiError("invalid_request", `target.headers.${name} cannot be set: the delivery sets it itself.`);
    if (seen.has(lower)) throw apiError("invalid_request", `target.headers names ${name} twice (header names are case-insensitive).`);
    seen.add(lower);
  }
}

function checkMetadata(metadata: Record<string, string> | undefined): void {
  for (const key of Object.keys(metadata ?? {})) {
    if (key.length > MAX_METADATA_KEY_LENGTH)
      throw apiError("invalid_request", `metadata key ${JSON.stringify(key)} is ${key.length} characters long; keys are at most ${MAX_METADATA_KEY_LENGTH}.`);
    if (key === "secret") throw apiError("invalid_request", "metadata.secret is reserved: the platform answers with the subscription's signing secret there.");
  }
}

/** The label keys each event type takes (with `params`: also `params.<name>`), and those it requires. */
const LABELS_OF: Record<string, { keys: string[]; params?: true; required?: string[] }> = {
  "onchain.activity.detected": {
    keys: ["network", "contract_address", "event_name", "event_signature", "transaction_from", "transaction_to"],
    params: true,
    required: ["contract_address"],
  },
  "wallet.activity.detected": { keys: ["network", "params.to", "params.from"] },
  [MULTI_WALLET_EVENT]: { keys: ["network", "wallet_addresses"], required: ["wallet_addresses"] },
};
const HEALTH_LABELS = { keys: ["service"], required: ["service"] };
const labelsOf = (eventType: string) => LABELS_OF[eventType] ?? (isHealthEvent(eventType) ? HEALTH_LABELS : undefined);

/** Checks the labels and returns the subscription's effective ones (the caller's, with `network` defaulted for activity events). */
function checkLabels(eventTypes: EventType[], labels: Record<string, string> | undefined): Record<string, string> | undefined {
  const entries = Object.entries(labels ?? {});
  if (entries.length > MAX_LABELS) throw apiError("invalid_request", `labels has ${entries.length} entries; a subscription takes at most ${MAX_LABELS}.`);
  const typed = eventTypes.flatMap((t) => {
    const spec = labelsOf(t);
    return spec ? [{ eventType: t, ...spec }] : [];
  });
  // Labels only filter the activity and health event types; for the others the platform ignores them.
  if (typed.length === 0) return labels;
  const keys = [...new Set(typed.flatMap((t) => [...t.keys, ...(t.params ? ["params.<name>"] : [])]))];
  for (const [key, value] of entries) {
    const allowed = typed.some((t) => t.keys.includes(key) || (t.params && key.startsWith("params.") && key.length > "params.".length));
    if (!allowed) throw apiError("invalid_request", `labels.${key} is not a label of ${typed.map((t) => t.eventType).join(" or ")}; use ${keys.join(", ")}.`);
    if (value === "") throw apiError("invalid_request", `labels.${key} must not be empty.`);
  }
  for (const t of typed) {
    for (const key of t.required ?? []) {
      if (labels?.[key] !== undefined) continue;
      const hint = key === "service" ? ` (one of ${HEALTH_SERVICES.join(", ")})` : key === "wallet_addresses" ? " (comma-separated 0x addresses)" : "";
      throw apiError("invalid_request", `labels.${key} is required for ${t.eventType}${hint}.`);
    }
  }
  const effective = { ...labels };
  if (typed.some((t) => t.keys.includes("network"))) {
    const network = labels?.network ?? DEFAULT_ACTIVITY_NETWORK;
    if (!(network in ACTIVITY_NETWORKS))
      throw apiError(
        "invalid_request",
        `labels.network ${JSON.stringify(network)} is not a network with onchain activity events; use ${Object.keys(ACTIVITY_NETWORKS).join(" or ")}.`,
      );
    effective.network = network;
  }
  if (labels?.wallet_addresses !== undefined) checkWalletAddresses(labels.wallet_addresses);
  if (labels?.service !== undefined && !HEALTH_SERVICES.includes(labels.service))
    throw apiError(
      "invalid_request",
      `labels.service ${JSON.stringify(labels.service)} is not a service with health events; use ${HEALTH_SERVICES.join(" or ")}.`,
    );
  return effective;
}

/** wallet.activity.multi watches the wallets its `wallet_addresses` label lists: comma-separated EVM addresses, at most 100. */
function checkWalletAddresses(list: string): void {
  const addresses = list.split(",");
  const bad = addresses.find((a) => !EVM_ADDRESS.test(a));
  if (bad !== undefined)
    throw apiError(
      "invalid_request",
      `labels.wallet_addresses: ${JSON.stringify(bad)} is not a 0x address of 40 hex digits (separate addresses by commas, no spaces).`,
    );
  if (addresses.length > MAX_WALLET_ADDRESSES)
    throw apiError("invalid_request", `labels.wallet_addresses lists ${addresses.length} addresses; a subscription watches at most ${MAX_WALLET_ADDRESSES}.`);
}

/**
 * Checks a create or replace body; throws the platform's 400 naming the first problem. `sandboxPorts`: the ports
 * the sandbox listens on. Returns the labels the subscription keeps (defaults filled in).
 */
export function checkSubscriptionInput(input: SubscriptionInput, sandboxPorts: readonly number[], privateAllowed = true): Record<string, string> | undefined {
  if (input.eventTypes.length === 0) throw apiError("invalid_request", "eventTypes must name at least one event type.");
  checkTarget(input.target, sandboxPorts, privateAllowed);
  checkMetadata(input.metadata);
  return checkLabels(input.eventTypes, input.labels);
}

/** The ledger network a subscription's activity events come from, or undefined when it has no activity event type. */
export function activityNetworkOf(record: Pick<SubscriptionRecord, "eventTypes" | "labels">): string | undefined {
  if (!record.eventTypes.some(usesLabels)) return undefined;
  return ACTIVITY_NETWORKS[record.labels?.network ?? ""];
}
