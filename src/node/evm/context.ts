/** What an EVM method of the node reads: the network it was called on and the caller's project ledger. */
import { toHex } from "viem";
import { headBlock } from "../../chain/mining.js";
import type { ChainContracts } from "../../chain/evm/executeTransaction.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";

export interface EvmNodeContext {
  network: string;
  chainId: number;
  /** The caller's project, in the transaction the node call runs in. */
  store: ProjectTx;
  clock: Clock;
  /** The chain's contracts beyond tokens (products/sandboxContracts.ts). */
  contracts: ChainContracts;
}

/** The chain's head: the clock's block, or a newer one automine made for a transaction. */
export const latestBlock = (ctx: EvmNodeContext) => headBlock(ctx.store, ctx.network, ctx.clock.now());

/** A JSON-RPC quantity. */
export const hex = (n: bigint | number) => toHex(n);
