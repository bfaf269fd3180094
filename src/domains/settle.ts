/**
 * State that moves with the sandbox clock on its own: onramp deliveries
 * landing on the ledger, transfers settling to completed or failed. There
 * are no timers: before every platform operation and every node call the
 * project is brought up to date, under the project's write lock when there
 * is something due (`hasDueWork`), so whatever reads next sees it.
 */
import { hasDueDeliveries, settleDueDeliveries } from "../chain/deliveries.js";
import type { ProjectTx, Store } from "../store/store.js";
import { hasDueTransfers, settleDueTransfers } from "./transfers/settle.js";
import type { EmitContext } from "./webhooks/emit.js";

/** `env` gives the step what emitting webhook events needs besides the transaction. */
export function settleProject(tx: ProjectTx, env: Omit<EmitContext, "store">): void {
  const nowMs = env.clock.now();
  settleDueDeliveries(tx, nowMs);
  settleDueTransfers(tx, nowMs);
}

/** Cheap check on committed state, so reads with nothing due stay lock-free. */
export function hasDueWork(store: Store, projectId: string, nowMs: number): boolean {
  return hasDueDeliveries(store, projectId, nowMs) || hasDueTransfers(store, projectId, nowMs);
}
