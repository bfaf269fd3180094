import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRandom, drawAhead } from "./random.js";

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

describe("drawing ahead", () => {
  // What a source draws, in the order of `steps`: each step a method and its size.
  const steps = (r: ReturnType<typeof createRandom>) => [
    Buffer.from(r.bytes(40)).toString("hex"),
    r.uuid(),
    r.hex(5),
    r.float(),
    r.int(1000),
    Buffer.from(r.bytes(3)).toString("hex"),
    r.fork("child").hex(8),
    r.secrets().hex(4),
    r.hex(64),
  ];

  it("replays what was drawn ahead, then goes on with the stream, as if nothing had been drawn ahead", () => {
    const expected = steps(createRandom("ahead"));
    // Drawn ahead in pieces that end before, at and across the steps' own boundaries.
    for (const sizes of [[], [40], [32, 8], [45], [7, 7, 7], [1000]]) {
      const drawing = drawAhead(createRandom("ahead"));
      const drawnAhead = sizes.map((n) => Buffer.from(drawing.ahead.bytes(n)).toString("hex"));
      expect(drawnAhead.join("")).toBe(Buffer.from(createRandom("ahead").bytes(sizes.reduce((a, b) => a + b, 0))).toString("hex"));
      expect(steps(drawing.replay())).toEqual(expected);
    }
  });

  it("replays the bytes drawn ahead even when the caller changed its copy of them", () => {
    const drawing = drawAhead(createRandom("changed"));
    drawing.ahead.bytes(16).fill(0);
    expect(drawing.replay().hex(16)).toBe(createRandom("changed").hex(16));
  });

  it("keeps the operating system's secrets of a source off loopback, and refuses a draw ahead once the replay began", () => {
    const base = createRandom("secrets", { secretsFromOs: true });
    const drawing = drawAhead(base);
    drawing.ahead.bytes(8);
    const replay = drawing.replay();
    // Seeded secrets of a source on loopback are the stream itself; these are not, so the seed does not give them.
    expect(replay.secrets()).not.toBe(replay);
    expect(replay.secrets().hex(16)).not.toBe(createRandom("secrets").hex(16));
    const onLoopback = drawAhead(createRandom("secrets")).replay();
    expect(onLoopback.secrets()).toBe(onLoopback);
    expect(() => drawing.ahead.bytes(1)).toThrow(/after the replay/);
  });

  it("unseeded, replays the operating system's bytes it drew ahead", () => {
    const drawing = drawAhead(createRandom());
    const ahead = Buffer.from(drawing.ahead.bytes(24)).toString("hex");
    const replay = drawing.replay();
    expect(replay.hex(24)).toBe(ahead);
    expect(replay.hex(24)).not.toBe(ahead);
  });
});
