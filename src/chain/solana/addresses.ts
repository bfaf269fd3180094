/**
 * Program-derived addresses, computed synchronously (the clients' helpers are async): the associated token
 * account of an owner and a mint, and any other address a program derives from seeds.
 */
import { createHash } from "node:crypto";
import { isOnEd25519Curve } from "../../crypto/ed25519.js";
import { fromBase58, toBase58 } from "../../crypto/solana.js";
import { ASSOCIATED_TOKEN_PROGRAM, TOKEN_PROGRAM } from "./tokens.js";

const programBytes = new Map<string, Uint8Array>();

/**
 * The bytes of a program id or mint, decoded once: a handful of them recur in every derivation and every token
 * account written (the same array each time: never change it).
 */
export function bytesOf(address: string): Uint8Array {
  let found = programBytes.get(address);
  if (!found) {
    found = fromBase58(address);
    if (programBytes.size > 1_000) programBytes.clear(); // bounded: mints are whatever callers name
    programBytes.set(address, found);
  }
  return found;
}

/** The address of `seeds` + `bump` under `program`, or undefined when it lies on the ed25519 curve (no program address). */
export function createProgramAddress(seeds: readonly Uint8Array[], bump: number, program: string): string | undefined {
  const hash = createHash("sha256");
  for (const seed of seeds) hash.update(seed);
  const digest = hash.update(Uint8Array.of(bump)).update(bytesOf(program)).update("ProgramDerivedAddress").digest();
  return isOnEd25519Curve(digest) ? undefined : toBase58(digest);
}

/** The canonical program address of `seeds`: the first bump from 255 down that is off the curve. */
function findProgramAddress(seeds: readonly Uint8Array[], program: string): string {
  for (let bump = 255; bump >= 0; bump--) {
    const found = createProgramAddress(seeds, bump, program);
    if (found) return found;
  }
  throw new Error("no program address for these seeds"); // never happens for 32-byte seeds in practice
}

const ataCache = new Map<string, string>();

/** The associated token account of `owner` for `mint` under the token program that owns the mint. */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram = TOKEN_PROGRAM): string {
  const key = `${owner}|${mint}|${tokenProgram}`;
  let found = ataCache.get(key);
  if (!found) {
    found = findProgramAddress([fromBase58(owner), bytesOf(tokenProgram), bytesOf(mint)], ASSOCIATED_TOKEN_PROGRAM);
    // The cache only saves hashing; a bounded size keeps a long-running sandbox's memory flat.
    if (ataCache.size > 50_000) ataCache.clear();
    ataCache.set(key, found);
  }
  return found;
}
