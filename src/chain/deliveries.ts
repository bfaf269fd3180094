/**
 * Payouts that land on the ledger at a later point of the sandbox clock (an
 * onramp order's delivery of the purchased asset). There are no timers: a
 * delivery waits in the project's store until the first request that sees the
 * clock past its time settles it (`settleDueDeliveries`, run before every
 * platform operation and every node call), so balances, receipts and the SQL
 * tables show it from then on, and never before.
 *
 * @example
 *   scheduleDelivery(store, { id: hash, network: "base", asset: usdc, holder, amount: "5000000", atMs, from: HOT_WALLET });
 *   settleDueDeliveries(store, clock); // credits the holder once atMs has passed
 */
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { chainIdOf } from "./networks.js";
import type { Clock } from "../clock.js";
import type { ProjectTx, Store } from "../store/store.js";
import { declareCollection } from "../store/collections.js";
import { settlementBlock } from "./mining.js";
import { recordPayout } from "./evm/ledger.js";
import { credit } from "./balances.js";
import { solanaTxs } from "./solana/ledger.js";
import { SOLANA_TOKENS } from "./solana/tokens.js";
import { NATIVE_TOKEN_ADDRESS } from "./tokens.js";

export interface ScheduledDelivery {
  /** The delivering transaction: EVM hash, or Solana signature. */
  id: string;
  network: string;
  /** EVM: token contract or NATIVE_TOKEN_ADDRESS. Solana: "native" or the mint. */
  asset: string;
  holder: string;
  /** Smallest unit. */
  amount: string;
  /** Sandbox time at which it lands. */
  atMs: number;
  /** The paying wallet. */
  from: string;
}

const SCHEDULED_DELIVERIES = declareCollection<ScheduledDelivery>("ledgerScheduledDeliveries", { dueAt: (d) => d.atMs });
const deliveries = (store: ProjectTx) => store.collection(SCHEDULED_DELIVERIES);

export function scheduleDelivery(store: ProjectTx, delivery: ScheduledDelivery): void {
  deliveries(store).put(delivery.id, delivery);
}

/** Whether a project has deliveries to land by `nowMs` (read from committed state, without a transaction). */
export function hasDueDeliveries(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, SCHEDULED_DELIVERIES, nowMs);
}

/** Applies every delivery whose time has come, oldest first; settled ones leave the schedule. */
export function settleDueDeliveries(store: ProjectTx, clock: Clock): void {
  const nowMs = clock.now();
  const due = deliveries(store).dueBy(nowMs);
  if (due.length === 0) return;
  for (const d of due.sort((a, b) => a.atMs - b.atMs)) {
    // Mined by the time it is visible: in the block under way when it landed, or (automine) a block of its own.
    const block = settlementBlock(store, clock, d.network, d.atMs);
    if (d.network in SOLANA_TOKENS) settleSolana(store, d, block);
    else settleEvm(store, d, block);
    deliveries(store).delete(d.id);
  }
}

function settleEvm(store: ProjectTx, d: ScheduledDelivery, block: number): void {
  const amount = BigInt(d.amount);
  const isNative = d.asset.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase();
  recordPayout(store, {
    hash: d.id as Hex,
    network: d.network,
    chainId: chainIdOf(d.network) ?? 0,
    from: d.from as `0x${string}`,
    holder: d.holder as `0x${string}`,
    asset: d.asset,
    amount,
    block,
    submittedAtMs: d.atMs,
    input: isNative ? "0x" : encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [d.holder as `0x${string}`, amount] }),
  });
}

function settleSolana(store: ProjectTx, d: ScheduledDelivery, slot: number): void {
  credit(store, d.network, d.asset, d.holder, BigInt(d.amount));
  solanaTxs(store).put(d.id, {
    signature: d.id,
    network: d.network,
    slot,
    feePayer: d.from,
    status: "success",
    submittedAtMs: d.atMs,
  });
}
