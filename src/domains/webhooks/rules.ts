/**
 * What a subscription must satisfy beyond the contract's schema (which has
 * already checked types, the event type enumeration, the URL pattern and the
 * metadata size): non-empty event types, a target that is not the sandbox
 * itself (selfTarget.ts), usable target headers, metadata key length, and
 * labels — at most 20, and for the activity event types only the keys the
 * platform filters on, with `network` required.
 */
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { usesLabels, type EventType, type SubscriptionRecord } from "./model.js";
import { portOf, urlReachesSandbox } from "./selfTarget.js";

const MAX_LABELS = 20;
const MAX_METADATA_KEY_LENGTH = 40;

/** The `network` label values of the activity events, and the ledger network each one reads. */
export const ACTIVITY_NETWORKS: Record<string, string> = { "base-mainnet": "base", "base-sepolia": "base-sepolia" };

const FIXED_LABEL_KEYS = ["network", "contract_address", "event_name", "event_signature", "transaction_from", "transaction_to"];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Set by the delivery itself, or by the HTTP connection: a target header cannot replace them.
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "x-hook0-signature"]);

/** A create or replace body: both carry every field of the subscription. */
export type SubscriptionInput = RequestBody<"createWebhookSubscription"> | RequestBody<"updateWebhookSubscription">;

function checkTarget(target: SubscriptionInput["target"], sandboxPorts: readonly number[]): void {
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

function checkLabels(eventTypes: EventType[], labels: Record<string, string> | undefined): void {
  const entries = Object.entries(labels ?? {});
  if (entries.length > MAX_LABELS) throw apiError("invalid_request", `labels has ${entries.length} entries; a subscription takes at most ${MAX_LABELS}.`);
  const filtered = eventTypes.filter(usesLabels);
  // Labels only filter the activity event types; for the others the platform ignores them.
  if (filtered.length === 0) return;
  for (const [key, value] of entries) {
    const allowed = FIXED_LABEL_KEYS.includes(key) || (key.startsWith("params.") && key.length > "params.".length);
    if (!allowed) {
      throw apiError(
        "invalid_request",
        `labels.${key} is not a label of ${filtered.join(" or ")}; use network, contract_address, event_name, event_signature, transaction_from, transaction_to or params.<name>.`,
      );
    }
    if (value === "") throw apiError("invalid_request", `labels.${key} must not be empty.`);
  }
  const network = labels?.network;
  if (network === undefined)
    throw apiError("invalid_request", `labels.network is required for ${filtered.join(" and ")} (one of ${Object.keys(ACTIVITY_NETWORKS).join(", ")}).`);
  if (!(network in ACTIVITY_NETWORKS))
    throw apiError(
      "invalid_request",
      `labels.network ${JSON.stringify(network)} is not a network with onchain activity events; use ${Object.keys(ACTIVITY_NETWORKS).join(" or ")}.`,
    );
}

/** Checks a create or replace body; throws the platform's 400 naming the first problem. `sandboxPorts`: the ports the sandbox listens on. */
export function checkSubscriptionInput(input: SubscriptionInput, sandboxPorts: readonly number[]): void {
  if (input.eventTypes.length === 0) throw apiError("invalid_request", "eventTypes must name at least one event type.");
  checkTarget(input.target, sandboxPorts);
  checkMetadata(input.metadata);
  checkLabels(input.eventTypes, input.labels);
}

/** The ledger network a subscription's activity events come from, or undefined when it has no activity event type. */
export function activityNetworkOf(record: Pick<SubscriptionRecord, "eventTypes" | "labels">): string | undefined {
  if (!record.eventTypes.some(usesLabels)) return undefined;
  return ACTIVITY_NETWORKS[record.labels?.network ?? ""];
}
