/**
 * Where a failed EVM run failed: the frame the failure started in (its call depth, the contract it ran, the EVM's
 * error and the revert data, decoded when it is `Error(string)` or `Panic(uint256)`), followed through frames that
 * passed the same revert data up. The request journal shows it on the entry of the node call or REST operation
 * whose run failed.
 *
 * The door that records the entry (the pipeline, the node) collects the traces of the runs its request caused with
 * `collectEvmReverts`, under the request's store transaction; whoever runs the EVM on a request's behalf holds that
 * transaction and reports a failed run under it with `reportEvmRevert`. Each request has a transaction of its own
 * (and a node batch answers its messages one after the other), so two requests' traces never mix. The transaction is
 * the key rather than the async context: Node 20's AsyncLocalStorage turns on promise hooks for the whole process
 * once used, which cost every request ~12 µs of CPU whether it ran the EVM or not.
 */
import { withScopedValue } from "./scopedValue.js";
import { decodeErrorResult, type Hex } from "viem";

export interface EvmRevertTrace {
  /** 0 for the transaction's (or call's) own frame, 1 for a call it made, and so on. */
  depth: number;
  /** The contract the failing frame ran (a creation's new address). */
  address: `0x${string}`;
  /** The EVM's error: "revert", "out of gas", "invalid opcode", … */
  error: string;
  /** The revert data the frame returned ("0x" for none). */
  data: Hex;
  /** The revert reason, when the data is `Error(string)` or `Panic(uint256)`. */
  reason?: string;
  /** The transaction that was mined reverted (absent for a call: eth_call, eth_estimateGas). */
  transactionHash?: `0x${string}`;
}

const REASON_ABI = [
  { type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] },
  { type: "error", name: "Panic", inputs: [{ name: "code", type: "uint256" }] },
] as const;

/** The reason revert data gives in words: `Error(string)`'s message or `Panic(0x..)`, else none (a custom error). */
export function revertReason(data: Hex): string | undefined {
  if (data.length < 10) return undefined;
  try {
    const decoded = decodeErrorResult({ abi: REASON_ABI, data });
    return decoded.errorName === "Error" ? String(decoded.args[0]) : `Panic(0x${(decoded.args[0] as bigint).toString(16)})`;
  } catch {
    return undefined;
  }
}

/** The traces being gathered, by the store transaction of the request they are gathered for. */
const collectors = new WeakMap<object, EvmRevertTrace[]>();

/**
 * Runs `work`, gathering into `into` the traces of the failed EVM runs reported under `scope` (the request's store
 * transaction) until it ends, those before a throw too.
 */
export function collectEvmReverts<T>(scope: object, into: EvmRevertTrace[], work: () => Promise<T> | T): Promise<T> {
  return withScopedValue(collectors, scope, into, work);
}

/** Hands a failed run's trace to the request whose store transaction ran it (nothing when no door collects). */
export function reportEvmRevert(scope: object, trace: EvmRevertTrace): void {
  collectors.get(scope)?.push(trace);
}

/** Where a node reply carries its traces to the journal: a symbol key, so JSON never writes them on the wire. */
export const EVM_REVERTS: unique symbol = Symbol("evmReverts");
