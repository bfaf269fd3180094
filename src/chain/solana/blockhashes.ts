/**
 * The recent blockhashes of a Solana network: one per slot of the sandbox clock, derived from the slot (so
 * nothing needs storing), valid for 150 slots as on a cluster. The runtime's own check is off; this is the check.
 */
import { fromBase58, toBase58 } from "../../crypto/solana.js";
import { blockNumberAt } from "../blocks.js";
import { blockhashAt } from "./ledger.js";

/** Slots a blockhash stays valid for after its own. */
export const BLOCKHASH_VALID_SLOTS = 150;

/** The slot of the sandbox clock on `network`: the one whose blockhash is the latest. */
const clockSlot = (network: string, nowMs: number): number => blockNumberAt(network, nowMs);

/** The latest blockhash and the last block height it stays valid at. */
export function latestBlockhash(network: string, nowMs: number): { blockhash: string; lastValidBlockHeight: number; slot: number } {
  const slot = clockSlot(network, nowMs);
  return { blockhash: toBase58(blockhashAt(network, slot)), lastValidBlockHeight: slot + BLOCKHASH_VALID_SLOTS, slot };
}

/** The slot whose blockhash `hash` is, when it is one of the last 150; undefined when it is unknown or too old. */
export function recentBlockhashSlot(network: string, nowMs: number, hash: string): number | undefined {
  // A blockhash is 32 bytes, at most 44 base58 characters: base58 decoding is quadratic, and 100,000 characters held
  // the event loop 40 s.
  if (hash.length > 44) return undefined;
  let wanted: Buffer;
  try {
    wanted = Buffer.from(fromBase58(hash));
  } catch {
    return undefined;
  }
  const slot = clockSlot(network, nowMs);
  for (let s = slot; s >= Math.max(0, slot - BLOCKHASH_VALID_SLOTS); s--) if (blockhashAt(network, s).equals(wanted)) return s;
  return undefined;
}

/** The blockhash of a recent slot (`age` slots before the clock's), for a transaction the platform signs anew. */
export function recentBlockhash(network: string, nowMs: number, age: number): string {
  return toBase58(blockhashAt(network, Math.max(0, clockSlot(network, nowMs) - age)));
}
