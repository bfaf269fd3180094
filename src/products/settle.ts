/**
 * State that moves with the sandbox clock on its own: onramp deliveries
 * landing on the ledger, transfers settling to completed or failed and
 * quotes expiring, onramp orders reaching their next status, customers
 * turning 18, payment-session actions and disbursements landing. There are no timers: before every platform operation and every
 * node call the project is brought up to date, under the project's write lock
 * when there is something due (`hasDueWork`), so whatever reads next sees it.
 * The webhook events of those transitions are emitted here, in the same
 * transaction, stamped with the time each transition happened.
 */
import { hasDueDeliveries, settleDueDeliveries } from "../chain/index.js";
import type { ProjectTx, Store } from "../store/store.js";
import { hasDueCustomerReviews, reviewDueCustomers } from "./customers/events.js";
import { hasDueDisbursements, settleDueDisbursements } from "./disbursements/settle.js";
import { announceDueOrders, hasDueOrderAnnouncements } from "./onramp/events.js";
import { hasDuePaymentSessions, settleDuePaymentSessions } from "./payment-sessions/settle.js";
import { hasDueTransfers, settleDueTransfers } from "./transfers/settle.js";
import type { EmitContext } from "../wallet/events/emit.js";

export function settleProject(tx: ProjectTx, env: Omit<EmitContext, "store">): void {
  const ctx: EmitContext = { store: tx, clock: env.clock, random: env.random };
  const nowMs = env.clock.now();
  settleDueDeliveries(tx, env.clock);
  settleDueTransfers(ctx, nowMs);
  settleDuePaymentSessions(ctx, nowMs);
  settleDueDisbursements(ctx, nowMs);
  announceDueOrders(ctx, nowMs);
  reviewDueCustomers(ctx, nowMs);
}

/** Cheap check on committed state, so reads with nothing due stay lock-free. */
export function hasDueWork(store: Store, projectId: string, nowMs: number): boolean {
  return (
    hasDueDeliveries(store, projectId, nowMs) ||
    hasDueTransfers(store, projectId, nowMs) ||
    hasDuePaymentSessions(store, projectId, nowMs) ||
    hasDueDisbursements(store, projectId, nowMs) ||
    hasDueOrderAnnouncements(store, projectId, nowMs) ||
    hasDueCustomerReviews(store, projectId, nowMs)
  );
}
