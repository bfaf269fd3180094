/**
 * Blocks come from the sandbox clock: block n of a network starts at
 * GENESIS + n × blockTime, and the chain's head is the block the clock is
 * in. Which block a sent transaction lands in (this one, or the next) is the
 * mining mode's choice (`mining.ts`).
 */
import { keccak256, toHex } from "viem";
import { lookupTable } from "../lookup.js";

/** Block times per network, in ms (the real chains' targets). */
const BLOCK_TIME_MS: Record<string, number> = lookupTable({
  base: 2000,
  "base-sepolia": 2000,
  optimism: 2000,
  "optimism-sepolia": 2000,
  world: 2000,
  "world-sepolia": 2000,
  arbitrum: 250,
  "arbitrum-sepolia": 250,
  polygon: 2000,
  avalanche: 2000,
  ethereum: 12000,
  "ethereum-sepolia": 12000,
  "ethereum-hoodi": 12000,
  solana: 400,
  "solana-devnet": 400,
});

/** 2024-01-01T00:00:00Z: block 0 everywhere. */
const GENESIS_MS = Date.UTC(2024, 0, 1);

function blockTimeOf(network: string): number {
  return BLOCK_TIME_MS[network] ?? 2000;
}

export function blockNumberAt(network: string, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - GENESIS_MS) / blockTimeOf(network)));
}

export function blockTimestampOf(network: string, block: number): number {
  return GENESIS_MS + block * blockTimeOf(network);
}

/** The sandbox's hash of block `n` of a network: stable, and distinct per network (what the node reports). */
export const blockHashOf = (network: string, n: number) => keccak256(toHex(`cdp-sandbox:${network}:${n}`));

/**
 * Block `n`'s randomness (`block.prevrandao`, the block's `mixHash`): stable, distinct per block and network, and
 * never zero, as on a chain after the merge.
 */
export const prevRandaoOf = (network: string, n: number) => keccak256(toHex(`cdp-sandbox:${network}:${n}:prevrandao`));

/** Every block's fee recipient (`block.coinbase`, the block's `miner`): the OP Stack's sequencer fee vault, as on Base. */
export const BLOCK_COINBASE = "0x4200000000000000000000000000000000000011";
