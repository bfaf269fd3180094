/** What an EVM method of the node reads: the network it was called on and the caller's project ledger. */
import { toHex } from "viem";
import { headBlock } from "../../chain/mining.js";
import type { ChainContracts } from "../../chain/evm/executeTransaction.js";
import { type EvmTimeBudget, withinEvmBudget } from "../../chain/evm/evmBudget.js";
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
  /** The time the request's read-only EVM work may take, from its start (evmBudget.ts); none: no limit. */
  evmBudget?: EvmTimeBudget;
}

/**
 * A method that runs code and changes nothing (eth_call, eth_estimateGas, a bundler's estimate): its EVM runs keep to
 * the request's time budget. Methods that mine are never wrapped: a transaction's outcome must not depend on the
 * machine's speed.
 *
 * @example readOnlyEvm(eth_call) // an endless loop answers -32000 "execution aborted (timeout = 400ms)…"
 */
export const readOnlyEvm =
  <C extends EvmNodeContext>(method: (params: unknown[], ctx: C) => unknown) =>
  (params: unknown[], ctx: C): unknown =>
    ctx.evmBudget ? withinEvmBudget(ctx.store, ctx.evmBudget, () => method(params, ctx)) : method(params, ctx);

/** The chain's head: the clock's block, or a newer one automine made for a transaction. */
export const latestBlock = (ctx: EvmNodeContext) => headBlock(ctx.store, ctx.network, ctx.clock.now());

/** A JSON-RPC quantity. */
export const hex = (n: bigint | number) => toHex(n);
