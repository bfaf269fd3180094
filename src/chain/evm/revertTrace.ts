/**
 * Where a failed EVM run failed: the frame the failure started in (its call depth, the contract it ran, the EVM's
 * error and the revert data, decoded when it is `Error(string)` or `Panic(uint256)`), followed through frames that
 * passed the same revert data up. The request journal shows it on the entry of the node call or REST operation
 * whose run failed.
 *
 * The door that records the entry (the pipeline, the node) collects the traces of the runs its request caused with
 * `collectEvmReverts`; whoever runs the EVM on a request's behalf reports a failed run with `reportEvmRevert`. The
 * collector follows the request's async context (AsyncLocalStorage), so the chain need not know which request it
 * runs for, and the EVM queue (promise continuations keep their context) does not mix two requests' traces.
 */
import { AsyncLocalStorage } from "node:async_hooks";
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

const collector = new AsyncLocalStorage<EvmRevertTrace[]>();

/** Runs `work`, gathering into `into` the traces of the failed EVM runs it causes (those before a throw too). */
export function collectEvmReverts<T>(into: EvmRevertTrace[], work: () => T): T {
  return collector.run(into, work);
}

/** Hands a failed run's trace to the request that caused it (nothing when no door collects). */
export function reportEvmRevert(trace: EvmRevertTrace): void {
  collector.getStore()?.push(trace);
}

/** Where a node reply carries its traces to the journal: a symbol key, so JSON never writes them on the wire. */
export const EVM_REVERTS: unique symbol = Symbol("evmReverts");
