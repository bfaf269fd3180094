/**
 * The interface through which a contract the sandbox models in TypeScript (a token, the swap settler, a smart
 * wallet) runs inside the EVM: a precompile at its real address, called by bytecode with CALL or STATICCALL.
 * The runtime hands it the frame's caller, value and static flag, and the project's journaled transaction, so
 * what it writes rolls back with the frame that called it.
 */
import type { Hex } from "viem";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";

export interface ModelledCall {
  /** The project, journaled: writes made here are undone if an enclosing frame reverts. */
  store: ProjectTx;
  clock: Clock;
  network: string;
  chainId: number;
  /** `msg.sender` of this call. */
  caller: `0x${string}`;
  value: bigint;
  data: Hex;
  /** A STATICCALL (or a call inside one): the contract must not change anything. */
  isStatic: boolean;
  /** Adds a log to the transaction, in order with the bytecode's logs. */
  emit(topics: Hex[], data: Hex): void;
}

/** A revert of a modelled contract: its ABI-encoded revert data (an `Error(string)`, a custom error, or nothing). */
export class ModelledRevert extends Error {
  constructor(
    readonly data: Hex,
    reason = "execution reverted",
  ) {
    super(reason);
  }
}

export interface ModelledContract {
  address: `0x${string}`;
  /** Gas a call burns (the model's own cost, charged to the calling frame). */
  gas: bigint;
  /** Answers a call with its return data, or throws ModelledRevert; any other throw is turned into a revert too. */
  call(call: ModelledCall): Hex | Promise<Hex>;
}
