/**
 * The native ed25519 operations against @noble/curves: the same public key for every seed, and the same verdict
 * on whether bytes are a curve point (ZIP 215's decoding, which is the Solana runtime's), including the encodings
 * at the edges where strict RFC 8032 decoding and the runtime differ. And the lean EVM address against viem's.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ed25519PublicKey, isOnEd25519Curve } from "./ed25519.js";
import { evmAddressOf } from "./evm.js";

const digests = (label: string, n: number) => Array.from({ length: n }, (_, i) => new Uint8Array(createHash("sha256").update(`${label}/${i}`).digest()));

const nobleOnCurve = (bytes: Uint8Array) => {
  try {
    ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
};

const P = 2n ** 255n - 19n;
const littleEndian = (n: bigint, signBit = false) => {
  const bytes = new Uint8Array(Buffer.from(n.toString(16).padStart(64, "0"), "hex").reverse());
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
};

describe("ed25519 through libsodium", () => {
  it("gives each seed the public key noble gives it", () => {
    for (const seed of digests("seed", 300)) expect(bytesToHex(ed25519PublicKey(seed))).toBe(bytesToHex(ed25519.getPublicKey(seed)));
  });

  it("finds the same hashes on the curve as noble, about half of them", () => {
    const hashes = digests("point", 2000);
    const verdicts = hashes.map(isOnEd25519Curve);
    expect(verdicts).toEqual(hashes.map(nobleOnCurve));
    const on = verdicts.filter(Boolean).length;
    expect(on).toBeGreaterThan(900);
    expect(on).toBeLessThan(1100);
  });

  it("reads y modulo p and allows x = 0 with the sign bit, as the Solana runtime does", () => {
    const edges = [
      littleEndian(1n), // the neutral element
      littleEndian(1n, true), // x = 0 with the sign bit: on the curve for the runtime, refused by strict decoding
      littleEndian(P - 1n, true),
      littleEndian(P), // y = p reads as 0
      littleEndian(P + 1n),
      littleEndian(2n ** 255n - 1n),
      new Uint8Array(32),
      new Uint8Array(32).fill(0xff),
    ];
    for (const bytes of edges) expect(isOnEd25519Curve(bytes)).toBe(nobleOnCurve(bytes));
    expect(isOnEd25519Curve(littleEndian(1n, true))).toBe(true);
  });
});

describe("evmAddressOf", () => {
  it("is the EIP-55 address viem derives from the key", () => {
    for (const key of digests("evm", 300)) {
      const hex = bytesToHex(key);
      expect(evmAddressOf(hex)).toBe(privateKeyToAccount(hex).address);
    }
  });
});
