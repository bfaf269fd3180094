import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRandom } from "./random.js";

describe("seeded randomness", () => {
  // Drawn from the stream as it was when every draw copied the rest of its pool: ids stored by a seeded sandbox
  // (and scripts that expect them) stay what they were.
  it("draws the same stream as before, whatever the sizes of the draws", () => {
    const r = createRandom("golden");
    const drawn = [r.hex(8), r.uuid(), r.hex(3), Buffer.from(r.bytes(40)).toString("hex"), r.float(), r.int(1000), r.hex(8), r.fork("x").hex(8), r.uuid()];
    expect(drawn).toEqual([
      "08c9692a6cf87a3b",
      "3ff68f4a-ba33-46a0-bb35-81528cd3bb7f",
      "4bf782",
      "456f0341d8bab6862c37b655e38034d35c798bce42d1812761252f3f9a0f14af6398475b6d94367e",
      0.5771787019756864,
      590,
      "f2723c09a2235588",
      "6f5b6906772518eb",
      "836ba7f4-7180-422e-9306-cf4d05692df8",
    ]);
    const ids = createRandom("golden/correlation");
    expect(Array.from({ length: 10 }, () => ids.hex(8))).toEqual([
      "48f7df1af799f0d4",
      "9a30bffd519652de",
      "718886f977cdf296",
      "062f3d94964784e2",
      "4a7b94e32e767f52",
      "86e3488cb33ed16c",
      "5669150c1e2a15fd",
      "fc4d163d68f28d15",
      "e73ac886f5f39663",
      "ae5b71e2dd29b67a",
    ]);
  });

  it("is SHA-256 of the seed, a NUL and the block's number in UTF-8, block after block, for any seed", () => {
    // Past 9, 99 and 999 blocks the number gains a digit; seeds with non-ASCII text and a lone surrogate (which
    // UTF-8 writes as U+FFFD).
    for (const seed of ["bench-init", "", "naïve/日本/🙂", "half \ud800 pair", "x".repeat(300)]) {
      const drawn = Buffer.from(createRandom(seed).bytes(32 * 1001 + 7));
      const expected = Buffer.concat(Array.from({ length: 1002 }, (_, i) => createHash("sha256").update(`${seed}\u0000${i}`, "utf8").digest()));
      expect(drawn.equals(expected.subarray(0, drawn.length))).toBe(true);
    }
  });

  it("hands out bytes the caller may change without changing later draws", () => {
    const a = createRandom("mutate");
    const b = createRandom("mutate");
    const first = a.bytes(4);
    first.fill(0);
    b.bytes(4);
    expect(a.hex(28)).toBe(b.hex(28));
  });

  it("draws fresh bytes from the operating system when unseeded", () => {
    const r = createRandom();
    expect(r.hex(16)).not.toBe(r.hex(16));
    expect(r.bytes(8)).toBeInstanceOf(Uint8Array);
  });
});
