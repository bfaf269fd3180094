/**
 * The sandbox's Solana keys and signatures (node:crypto, bs58) against independent libraries: @noble/curves for
 * ed25519, @solana/kit for base-58.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromBase58, signSolanaBytes, solanaKeyFromSeed, toBase58, verifySolanaSignature } from "./solana.js";

describe("Solana keys and signatures", () => {
  it("derive the address and sign exactly as noble's ed25519 does", () => {
    for (let round = 0; round < 5; round++) {
      const seed = new Uint8Array(randomBytes(32));
      const key = solanaKeyFromSeed(seed);
      expect(key.address).toBe(getBase58Decoder().decode(ed25519.getPublicKey(seed)));
      const message = new Uint8Array(randomBytes(100 + round));
      const signature = signSolanaBytes(key, message);
      expect(Buffer.from(signature).toString("hex")).toBe(Buffer.from(ed25519.sign(message, seed)).toString("hex"));
      expect(ed25519.verify(signature, message, fromBase58(key.address))).toBe(true);
    }
  });

  it("accept a signature noble made, and refuse it for another message, key or a tampered byte", () => {
    const seed = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(seed);
    const message = new Uint8Array(randomBytes(64));
    const signature = ed25519.sign(message, seed);
    expect(verifySolanaSignature(signature, message, publicKey)).toBe(true);
    expect(verifySolanaSignature(signature, new Uint8Array(randomBytes(64)), publicKey)).toBe(false);
    expect(verifySolanaSignature(signature, message, ed25519.getPublicKey(ed25519.utils.randomSecretKey()))).toBe(false);
    const tampered = signature.slice();
    tampered[10]! ^= 1;
    expect(verifySolanaSignature(tampered, message, publicKey)).toBe(false);
    expect(verifySolanaSignature(signature.subarray(0, 63), message, publicKey)).toBe(false);
    expect(verifySolanaSignature(signature, message, publicKey.subarray(0, 31))).toBe(false);
    expect(verifySolanaSignature(new Uint8Array(64), message, publicKey)).toBe(false);
  });

  it("write and read base-58 as @solana/kit does, leading zero bytes included", () => {
    for (const bytes of [new Uint8Array(32), Uint8Array.of(0, 0, 1, 2), new Uint8Array(randomBytes(32)), new Uint8Array(randomBytes(64))]) {
      const text = toBase58(bytes);
      expect(text).toBe(getBase58Decoder().decode(bytes));
      expect(fromBase58(text)).toEqual(new Uint8Array(getBase58Encoder().encode(text)));
    }
    expect(() => fromBase58("0OIl")).toThrow();
  });
});
