/** What a Solana node method runs with (the network, the project's transaction, the clock) and the `context` every value answer carries. */
import { headBlock } from "../../chain/mining.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";

export interface SolanaNodeContext {
  network: string;
  store: ProjectTx;
  clock: Clock;
}

/** The chain's head slot (the clock's, or a newer one automine made). */
export const slotOf = (ctx: SolanaNodeContext): number => headBlock(ctx.store, ctx.network, ctx.clock.now());

export const contextOf = (ctx: SolanaNodeContext) => ({ slot: slotOf(ctx) });
