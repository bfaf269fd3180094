/** What an EVM method of the node reads: the network it was called on and the caller's project ledger. */
import { toHex } from "viem";
import { blockNumberAt } from "../../chain/blocks.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";

export interface EvmNodeContext {
  network: string;
  chainId: number;
  /** The caller's project, in the transaction the node call runs in. */
  store: ProjectTx;
  clock: Clock;
}

/** The newest block on the sandbox clock. */
export const latestBlock = (ctx: EvmNodeContext) => blockNumberAt(ctx.network, ctx.clock.now());

/** A JSON-RPC quantity. */
export const hex = (n: bigint | number) => toHex(n);
