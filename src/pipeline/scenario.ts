/**
 * The scenario hook: the one place where injected behaviour (errors from the
 * catalogue, latency, network faults, "error after the operation succeeded")
 * wraps an operation. The scenarios feature provides the real implementation;
 * the default runs the operation untouched.
 *
 * `run` carries out the operation (idempotency, handler, commit) and resolves
 * to its response. A hook may answer without calling it (phase `before`), call
 * it and then replace its answer (phase `after`), delay, or set `ex.fault`.
 */
import type { Exchange, Outgoing } from "./exchange.js";

export interface ScenarioHook {
  around(ex: Exchange, run: () => Promise<Outgoing>): Promise<Outgoing>;
}
