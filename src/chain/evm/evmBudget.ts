/**
 * A time budget for EVM work that changes nothing: a node's `eth_call` and `eth_estimateGas`, a bundler's estimate of
 * a user operation. geth bounds such a call with `--rpc.evmtimeout` (5 s by default): the EVM is cancelled and the
 * call answers "execution aborted (timeout = 5s)". Gas caps bound the work, but in this JavaScript EVM a call at the
 * 10M gas cap takes seconds of an endless loop, and the caller waits that long for an answer.
 *
 * The budget is read only where a run already pauses (yieldingWork.ts, every 16,384 gas), never per opcode: a run
 * that finds it spent throws EvmTimeout out of the EVM, and the runtime undoes what it did. Mined transactions never
 * run under a budget (their outcome must not depend on the machine's speed): only the work inside `withinEvmBudget`
 * does, and the doors that answer read-only methods are the only ones that open it.
 *
 * As revertTrace.ts does, the scope is the request's store transaction, not the async context: whoever runs the EVM
 * on the request's behalf (the bundler's estimate goes through the ledger's transaction code) holds it already.
 */
import { withScopedValue } from "./scopedValue.js";

/** The budget when none is configured: a run at the call gas cap then answers within ~0.5 s on a slow two-core machine. */
const DEFAULT_EVM_TIMEOUT_MS = 400;

/** A run's budget was spent: it was aborted, and what it did undone. */
export class EvmTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`execution aborted (timeout = ${goDuration(budgetMs)})`);
    this.name = "EvmTimeout";
  }
}

export interface EvmTimeBudget {
  /** The milliseconds the request may spend, from its start. */
  readonly ms: number;
  /** A run found the budget spent (and was aborted): the request's later calls are not run. */
  readonly exhausted: boolean;
  /** Throws EvmTimeout once the time is spent. Called where a run pauses. */
  check(): void;
}

/**
 * A budget of `ms` milliseconds from now (undefined: the default; 0: none, as geth's 0 means no timeout). `now` reads
 * the machine's monotonic clock: the budget is about the machine's time, not the sandbox's simulated clock.
 *
 * @example const budget = evmTimeBudget(400); // …later, at a pause: budget?.check()
 */
export function evmTimeBudget(ms: number = DEFAULT_EVM_TIMEOUT_MS, now: () => number = () => performance.now()): EvmTimeBudget | undefined {
  if (ms === 0) return undefined;
  const deadline = now() + ms;
  let exhausted = false;
  return {
    ms,
    get exhausted() {
      return exhausted;
    },
    check() {
      if (!exhausted && now() < deadline) return;
      exhausted = true;
      throw new EvmTimeout(ms);
    },
  };
}

/** The budgets in force, by the request's store transaction. */
const budgets = new WeakMap<object, EvmTimeBudget>();

/** Runs `work` with the EVM runs made under `scope` (the request's store transaction) bounded by `budget`. */
export function withinEvmBudget<T>(scope: object, budget: EvmTimeBudget, work: () => Promise<T> | T): Promise<T> {
  return withScopedValue(budgets, scope, budget, work);
}

/** The budget a run under `scope` must keep to, if any. */
export const evmBudgetOf = (scope: object): EvmTimeBudget | undefined => budgets.get(scope);

/** A duration as Go prints a time.Duration (what geth's message shows): 400ms, 5s, 1.5s, 2m0s. */
function goDuration(ms: number): string {
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000) return `${ms / 1_000}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${(ms - minutes * 60_000) / 1_000}s`;
}
