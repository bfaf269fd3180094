/**
 * Which policy rule decided a signing, for whoever runs the handler to show
 * (the request journal, the dashboard). A rejection throws and discards the
 * request's transaction, so the decision cannot be a record of the store: it is
 * reported as it is made to a listener bound to the request's transaction.
 * The transaction is the one object every signing helper already carries
 * (`ctx.store`), so no signature along the way has to change; the map is weak,
 * so a listener goes away with its transaction.
 */
import type { ProjectTx } from "../../store/store.js";

export interface PolicyDecision {
  policyId: string;
  scope: "project" | "account";
  /** The rule operation checked, e.g. signEvmTransaction. */
  operation: string;
  /** The deciding rule, 1-based; absent when no rule for the operation matched (the policy rejects). */
  rule?: number;
  action: "accept" | "reject";
}

const listeners = new WeakMap<ProjectTx, (decision: PolicyDecision) => void>();

/** Calls `listener` with every policy decision made in `tx`. */
export function onPolicyDecision(tx: ProjectTx, listener: (decision: PolicyDecision) => void): void {
  listeners.set(tx, listener);
}

export function reportPolicyDecision(tx: ProjectTx, decision: PolicyDecision): void {
  listeners.get(tx)?.(decision);
}
