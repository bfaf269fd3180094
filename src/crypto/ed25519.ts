/**
 * The two ed25519 operations every Solana account costs: the public key of a
 * seed, and whether 32 bytes decode to a point of the curve (a program-derived
 * address must not). Both go through libsodium (`sodium-native`, prebuilt;
 * ~20x faster than the JavaScript curve, which an init file of 50,000 Solana
 * accounts with token balances spent most of its start on) and fall back to
 * @noble/curves where the binding cannot load. The results are the same bytes.
 */
import { createRequire } from "node:module";
import { ed25519 } from "@noble/curves/ed25519.js";

interface Sodium {
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  crypto_core_ed25519_add(result: Uint8Array, p: Uint8Array, q: Uint8Array): void;
}

let loaded: Sodium | null | undefined;
/** Loaded by file at run time (a native addon cannot be bundled); null where it cannot load. */
function sodium(): Sodium | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)("sodium-native") as Sodium;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** The 32-byte public key of a 32-byte seed (RFC 8032). */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const native = sodium();
  if (!native) return ed25519.getPublicKey(seed);
  const publicKey = new Uint8Array(32);
  native.crypto_sign_seed_keypair(publicKey, new Uint8Array(64), seed);
  return publicKey;
}

// The neutral element (x = 0, y = 1): adding it checks the other operand decodes, and nothing else.
const IDENTITY = Uint8Array.of(1, ...new Array<number>(31).fill(0));
const scratch = new Uint8Array(32);

/**
 * Whether `bytes` is the compressed form of a curve point, as the Solana runtime decides it for a program address
 * (curve25519-dalek's decompression): the sign bit aside, `y` is read modulo p and must give a square x². libsodium's
 * point addition checks exactly that of its operands; noble's decoding does too with ZIP 215's rules.
 */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  const native = sodium();
  // A point that does not decode is an exception, half the tries of a program address: it needs no stack trace
  // (building one cost more than the curve check itself).
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    if (native) native.crypto_core_ed25519_add(scratch, bytes, IDENTITY);
    else ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
