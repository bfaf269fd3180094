/**
 * When a sent transaction is mined, and so what the head of each chain is.
 *
 * Blocks follow the sandbox clock (`blocks.ts`): the block the clock is in is always mined. The mining
 * mode of the sandbox says where a sent transaction goes:
 *
 * - `auto` (the default, as Anvil mines): into a new block of its own, mined at once, so its receipt,
 *   status and logs exist when the send returns. The project's chain head moves to that block, ahead of
 *   the clock when transactions come faster than the block time, as Anvil's blocks do; the clock's blocks
 *   take over again once it passes them. A mined block never takes a later transaction, so whoever has read
 *   a block (a client, the webhook scanner) has seen all of it.
 * - `interval`: into the next block on the clock, as on a live chain: the receipt appears once the clock
 *   reaches it (`POST /_sandbox/clock {"advance": "2s"}` in tests).
 *
 * The mode belongs to a sandbox, and every call that records a transaction carries that sandbox's clock,
 * so the mode is bound to the clock instead of being handed down through every caller. The heads are
 * per project and network, in the project's store, like the ledger they order.
 */
import type { Clock } from "../clock.js";
import { declareCollection } from "../store/collections.js";
import type { ProjectTx } from "../store/store.js";
import { blockNumberAt, blockTimestampOf } from "./blocks.js";

export type MiningMode = "auto" | "interval";

export const MINING_MODES: readonly MiningMode[] = ["auto", "interval"];

const modes = new WeakMap<Clock, MiningMode>();

/** Makes `mode` the mining mode of the sandbox whose clock this is. */
export function bindMiningMode(clock: Clock, mode: MiningMode): void {
  modes.set(clock, mode);
}

/** The mining mode of the sandbox whose clock this is; `auto` unless one was bound. */
export const miningModeOf = (clock: Clock): MiningMode => modes.get(clock) ?? "auto";

/** The newest block mined for a transaction, per network (automine only; keyed by network). */
const MINED_HEADS = declareCollection<{ block: number }>("chainMinedHeads");

/**
 * The latest block of a network: the clock's, or a newer one automine made for a transaction.
 *
 * @example headBlock(ctx.store, "base", ctx.clock.now()) // what eth_blockNumber answers
 */
export function headBlock(store: ProjectTx, network: string, nowMs: number): number {
  return Math.max(blockNumberAt(network, nowMs), store.collection(MINED_HEADS).get(network)?.block ?? 0);
}

/** Mines a new block for one transaction: the one after the head, which becomes the head. */
function mineBlock(store: ProjectTx, network: string, nowMs: number): number {
  const block = headBlock(store, network, nowMs) + 1;
  store.collection(MINED_HEADS).put(network, { block });
  return block;
}

/**
 * The block a transaction sent now lands in: a new block mined at once (`auto`), or the next block on the
 * clock (`interval`). A payout the sandbox records when it falls due passes that time as `atMs`.
 *
 * @example inclusionBlock(ctx.store, ctx.clock, "base") // the block of a transaction sent now on Base
 */
export function inclusionBlock(store: ProjectTx, clock: Clock, network: string, atMs: number = clock.now()): number {
  // In `interval` mode, after blocks mined at once (automine before, or a test node's `mine`): the block after those.
  return miningModeOf(clock) === "auto" ? mineBlock(store, network, clock.now()) : headBlock(store, network, atMs) + 1;
}

/**
 * The block of a transaction the platform answers for only once it is mined (an x402 settlement, a
 * delivery that fell due at `atMs`): a new block mined at once (`auto`), or the block the clock was in
 * (`interval`).
 */
export function settlementBlock(store: ProjectTx, clock: Clock, network: string, atMs: number = clock.now()): number {
  // In `interval` mode after blocks mined at once (automine before `evm_setAutomine(false)`): the head, not a block
  // before those, which a client may have read already (as a send lands after them).
  return miningModeOf(clock) === "auto" ? mineBlock(store, network, clock.now()) : headBlock(store, network, atMs);
}

/**
 * Mines `count` empty blocks on a network (a test node's `mine`): the head moves `count` blocks on, and since blocks
 * are the clock's, the sandbox clock moves to the new head's start when it is behind it (on every network, for every
 * project: there is one clock). Transactions waiting for a block in `interval` mode are mined on the way.
 *
 * @example mineBlocks(ctx.store, ctx.clock, "base", 10) // the new head
 */
export function mineBlocks(store: ProjectTx, clock: Clock, network: string, count: number): number {
  const target = headBlock(store, network, clock.now()) + count;
  const startsAt = blockTimestampOf(network, target);
  if (clock.now() < startsAt) clock.set(startsAt);
  store.collection(MINED_HEADS).put(network, { block: target });
  return target;
}
