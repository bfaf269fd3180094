/** The fast base-58 of 32 bytes writes what `bs58` writes, leading zero bytes, all zeros and the largest key included. */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { getBase58Decoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { base58Of32Bytes } from "./base58.js";

describe("base-58 of 32 bytes", () => {
  it("is bs58's text (and @solana/kit's) for random keys and the edge cases", () => {
    const cases: Uint8Array[] = [new Uint8Array(32), new Uint8Array(32).fill(0xff), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0))];
    for (let zeros = 1; zeros < 32; zeros++) {
      const key = randomBytes(32);
      key.fill(0, 0, zeros);
      cases.push(key);
    }
    for (let i = 0; i < 20_000; i++) cases.push(randomBytes(32));
    const kit = getBase58Decoder();
    for (const [i, key] of cases.entries()) {
      expect(base58Of32Bytes(key)).toBe(bs58.encode(key));
      if (i % 100 === 0) expect(base58Of32Bytes(key)).toBe(kit.decode(key));
    }
  });
});
