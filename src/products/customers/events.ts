/**
 * The customers.* webhook events, in the platform's envelope (`eventId`, the
 * same id as the X-Event-Id header; `eventType`; `timestamp`, when the change
 * happened on the sandbox clock; `data`).
 *
 * - customers.capability.changed: the statuses of one or more capabilities
 *   changed, `data: {customerId, capabilities: [{code, status}]}` listing only
 *   those. The sandbox compares each capability's status with the one it last
 *   announced (a new customer starts from `unrequested`) after every create,
 *   update and delete, and when the clock alone changes one (the customer
 *   turns 18, a Terms of Service deadline passes: checked in the step before every platform request).
 * - customers.customer.deleted: `data: {customerId}`, after the change that
 *   made every requested capability `inactive`.
 */
import type { Store } from "../../store/store.js";
import { emitWebhookEvent, type EmitContext } from "../../wallet/events/emit.js";
import {
  adultAtMs,
  CAPABILITIES,
  CUSTOMERS,
  capabilityStatus,
  customers,
  nextTermsDeadlineMs,
  type CapabilityName,
  type CapabilityStatus,
  type CustomerRecord,
} from "./model.js";
import { termsOf, type TermsVersion } from "./terms.js";

type Statuses = Partial<Record<CapabilityName, CapabilityStatus>>;

const statusesOf = (c: CustomerRecord, nowMs: number, terms: readonly TermsVersion[]): Statuses =>
  Object.fromEntries(CAPABILITIES.map((cap) => [cap, capabilityStatus(c, cap, nowMs, terms)]));

function emitCustomerEvent(ctx: EmitContext, eventType: "customers.capability.changed" | "customers.customer.deleted", atMs: number, data: unknown): void {
  emitWebhookEvent(ctx, { eventType, data: (eventId: string) => ({ eventId, eventType, timestamp: new Date(atMs).toISOString(), data }) });
}

/**
 * When the clock alone may change this customer's statuses, while something is requested: their 18th birthday
 * or a Terms of Service deadline passing, whichever is ahead first.
 */
function reviewAt(c: CustomerRecord, nowMs: number, terms: readonly TermsVersion[]): number | undefined {
  if (c.deleted || !CAPABILITIES.some((cap) => c.requested[cap])) return undefined;
  const adult = adultAtMs(c);
  const ahead = [adult !== undefined && adult > nowMs ? adult : undefined, nextTermsDeadlineMs(c, nowMs, terms)].filter((t) => t !== undefined);
  return ahead.length > 0 ? Math.min(...ahead) : undefined;
}

/**
 * Announces what changed in `after`'s capability statuses at `atMs` and returns
 * the record to store. `before` is the record as it was (undefined for a new
 * customer); its last announced statuses are the baseline.
 */
export function announceCapabilityChanges(ctx: EmitContext, before: CustomerRecord | undefined, after: CustomerRecord, atMs = ctx.clock.now()): CustomerRecord {
  // Customers stored before webhooks existed have no baseline: their statuses as they were stand for it.
  const terms = termsOf(ctx.store);
  const baseline: Statuses = before ? (before.announcedCapabilities ?? statusesOf(before, atMs, terms)) : {};
  const now = statusesOf(after, atMs, terms);
  const changed = CAPABILITIES.filter((cap) => (baseline[cap] ?? "unrequested") !== now[cap]).map((cap) => ({ code: cap, status: now[cap]! }));
  if (changed.length > 0) emitCustomerEvent(ctx, "customers.capability.changed", atMs, { customerId: after.customerId, capabilities: changed });
  const { reviewAtMs: _old, ...rest } = after;
  const review = reviewAt(after, atMs, terms);
  return { ...rest, announcedCapabilities: now, ...(review !== undefined ? { reviewAtMs: review } : {}) };
}

/** The deletion itself, announced after the capability changes it caused. */
export function announceDeletion(ctx: EmitContext, customerId: string): void {
  emitCustomerEvent(ctx, "customers.customer.deleted", ctx.clock.now(), { customerId });
}

/** Whether a customer's statuses changed with the clock since the last announcement (committed state, no transaction). */
export function hasDueCustomerReviews(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, CUSTOMERS, nowMs);
}

/** Announces the changes the clock made (customers who turned 18), at the time they happened. */
export function reviewDueCustomers(ctx: EmitContext, nowMs: number): void {
  // One review at a time: a customer whose next review is also due (two deadlines passed) comes back in the loop.
  for (let round = 0; round < 16; round++) {
    const due = customers(ctx.store).dueBy(nowMs);
    if (due.length === 0) return;
    for (const c of due) customers(ctx.store).put(c.customerId, announceCapabilityChanges(ctx, c, c, c.reviewAtMs!));
  }
}
