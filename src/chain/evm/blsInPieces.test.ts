/**
 * BLS12-381's MSMs and pairing check in pieces answer exactly as the EVM library's own precompiles do (the same
 * bytes, the same gas, the same error) on valid inputs and on inputs spoiled in every way the library checks, and a
 * large call pauses between its pieces. Counted, not timed.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { getActivePrecompiles, NobleBLS, type PrecompileInput, paramsEVM } from "@ethereumjs/evm";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { describe, expect, it } from "vitest";
import { countingBudget, resultShape } from "#test/helpers/precompiles.js";
import { blsPairingInPieces, g1MsmInPieces, g2MsmInPieces } from "./blsInPieces.js";

const common = createCustomCommon({ chainId: 84532 }, Mainnet, { hardfork: Hardfork.Prague });
common.updateParams(paramsEVM);
const library = (n: number) => getActivePrecompiles(common).get(n.toString(16).padStart(40, "0"))!;
const evm = { _bls: new NobleBLS() } as unknown as PrecompileInput["_EVM"];
const input = (data: Uint8Array, gasLimit = 30_000_000n): PrecompileInput => ({ data, gasLimit, common, _EVM: evm });
const shape = resultShape;
const budget = countingBudget;

/** A deterministic 256-bit source (xorshift on 64-bit words), so a failure repeats. */
function randomFrom(seed: number) {
  let x = BigInt(seed) | 1n;
  const word = () => {
    x ^= (x << 13n) & 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffffffffffffffffn;
    return x;
  };
  return () => (word() << 192n) | (word() << 128n) | (word() << 64n) | word();
}

const fp = (n: bigint) => Buffer.from(n.toString(16).padStart(128, "0"), "hex");
const g1 = (p: InstanceType<typeof bls12_381.G1.Point>) => (p.is0() ? Buffer.alloc(128) : Buffer.concat([fp(p.toAffine().x), fp(p.toAffine().y)]));
const g2 = (p: InstanceType<typeof bls12_381.G2.Point>) => {
  if (p.is0()) return Buffer.alloc(256);
  const { x, y } = p.toAffine();
  return Buffer.concat([fp(x.c0), fp(x.c1), fp(y.c0), fp(y.c1)]);
};
const scalar = (n: bigint) => Buffer.from(n.toString(16).padStart(64, "0"), "hex");
const G1 = bls12_381.G1.Point.BASE;
const G2 = bls12_381.G2.Point.BASE;
const ORDER = bls12_381.fields.Fr.ORDER;

/** A point on the G1 curve outside the prime-order subgroup: x = 0 gives y² = 4 (BLS12-381's b). */
const G1_OFF_SUBGROUP = Buffer.concat([fp(0n), fp(2n)]);

async function both(address: number, inPieces: typeof g1MsmInPieces, data: Uint8Array, gasLimit?: bigint) {
  const theirs = shape(await library(address)(input(data, gasLimit)));
  const { spend, counts } = budget();
  const ours = shape(await inPieces(input(data, gasLimit), library(address), spend));
  return { theirs, ours, pauses: counts.pauses };
}

/** Copies of `valid` with one way the library refuses, each. */
function spoiled(valid: Buffer, itemBytes: number): Array<[string, Buffer]> {
  const at = (i: number, b: number) => {
    const copy = Buffer.from(valid);
    copy[i] = b;
    return copy;
  };
  return [
    ["empty", Buffer.alloc(0)],
    ["a byte short", valid.subarray(0, valid.length - 1)],
    ["a byte over", Buffer.concat([valid, Buffer.alloc(1)])],
    ["padding of the last item", at(valid.length - itemBytes + 3, 1)],
    ["x not a field element", at(valid.length - itemBytes + 16, 0xff)],
    ["off the curve", at(valid.length - itemBytes + 63, valid[valid.length - itemBytes + 63]! ^ 1)],
  ];
}

describe("BLS12-381 G1 and G2 MSM in pieces", () => {
  const g1Items = (n: number) =>
    Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.concat([g1(G1.multiply(BigInt(i + 3))), scalar(BigInt(i) * 0x1234567n ** 5n + 11n)])));
  const g2Items = (n: number) =>
    Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.concat([g2(G2.multiply(BigInt(i + 3))), scalar(BigInt(i) * 0x7654321n ** 5n + 5n)])));

  it("answers as the library does: a sum of points, zero and out-of-range scalars, infinity, and every refusal", async () => {
    const cases: Array<[string, number, typeof g1MsmInPieces, Buffer, bigint?]> = [
      ["G1, 5 points", 0x0c, g1MsmInPieces, g1Items(5)],
      ["G1, one point, scalar 0", 0x0c, g1MsmInPieces, Buffer.concat([g1(G1), scalar(0n)])],
      ["G1, scalar over the order", 0x0c, g1MsmInPieces, Buffer.concat([g1(G1), scalar(ORDER + 5n)])],
      ["G1, a sum at infinity", 0x0c, g1MsmInPieces, Buffer.concat([g1(G1), scalar(1n), g1(G1.negate()), scalar(1n)])],
      ["G1, the point at infinity", 0x0c, g1MsmInPieces, Buffer.concat([g1(bls12_381.G1.Point.ZERO), scalar(9n), g1(G1), scalar(2n)])],
      ["G1, outside the subgroup", 0x0c, g1MsmInPieces, Buffer.concat([g1(G1), scalar(2n), G1_OFF_SUBGROUP, scalar(3n)])],
      ["G1, short of gas", 0x0c, g1MsmInPieces, g1Items(3), 20_000n],
      ["G2, 3 points", 0x0e, g2MsmInPieces, g2Items(3)],
      ["G2, scalar over the order", 0x0e, g2MsmInPieces, Buffer.concat([g2(G2), scalar(ORDER * 2n + 1n)])],
      ["G2, short of gas", 0x0e, g2MsmInPieces, g2Items(2), 40_000n],
      ...spoiled(g1Items(3), 160).map(([name, data]): [string, number, typeof g1MsmInPieces, Buffer] => [`G1, ${name}`, 0x0c, g1MsmInPieces, data]),
      ...spoiled(g2Items(2), 288).map(([name, data]): [string, number, typeof g1MsmInPieces, Buffer] => [`G2, ${name}`, 0x0e, g2MsmInPieces, data]),
    ];
    const errors = new Set<string | undefined>();
    for (const [name, address, inPieces, data, gas] of cases) {
      const { theirs, ours } = await both(address, inPieces, data, gas);
      expect(ours, name).toEqual(theirs);
      errors.add(theirs.error);
    }
    // The spoiled inputs reach the library's several refusals, not one: out of gas, lengths, points, field elements.
    expect(errors.size).toBeGreaterThanOrEqual(5);
  });

  it("answers as the library does on random points and scalars, and on random bytes flipped", async () => {
    const next = randomFrom(35);
    for (let round = 0; round < 12; round++) {
      const g2Round = round % 3 === 2;
      const n = 1 + Number(next() % 3n);
      const items = Buffer.concat(
        Array.from({ length: n }, () =>
          g2Round
            ? Buffer.concat([g2(G2.multiply(1n + (next() % ORDER))), scalar(next())])
            : Buffer.concat([g1(G1.multiply(1n + (next() % ORDER))), scalar(next())]),
        ),
      );
      // Every other round, one byte of a coordinate's value (not its padding) flipped: off the curve, mostly.
      if (round % 2 === 1) {
        const at = Number(next() % BigInt(items.length));
        if (at % (g2Round ? 288 : 160) < (g2Round ? 256 : 128) && at % 64 >= 16) items[at]! ^= 1 << Number(next() % 8n);
      }
      const { theirs, ours } = g2Round ? await both(0x0e, g2MsmInPieces, items) : await both(0x0c, g1MsmInPieces, items);
      expect(ours, `round ${round}`).toEqual(theirs);
    }
  });

  it("pauses between the points of a large MSM", async () => {
    const g1Run = await both(0x0c, g1MsmInPieces, g1Items(12));
    expect(g1Run.ours).toEqual(g1Run.theirs);
    // 12 points at ~9,000 gas each: a pause every two points or so; in one piece, none.
    expect(g1Run.pauses).toBeGreaterThanOrEqual(5);
    const g2Run = await both(0x0e, g2MsmInPieces, g2Items(4));
    expect(g2Run.ours).toEqual(g2Run.theirs);
    expect(g2Run.pauses).toBeGreaterThanOrEqual(2);
  });
});

describe("BLS12-381 pairing check in pieces", () => {
  const pair = (p: InstanceType<typeof bls12_381.G1.Point>, q: InstanceType<typeof bls12_381.G2.Point>) => Buffer.concat([g1(p), g2(q)]);
  // e(aG1, bG2) · e(-abG1, G2) = 1
  const holds = Buffer.concat([pair(G1.multiply(6n), G2.multiply(7n)), pair(G1.multiply(42n).negate(), G2)]);
  const fails = Buffer.concat([pair(G1.multiply(6n), G2.multiply(7n)), pair(G1.multiply(41n).negate(), G2)]);

  it("answers as the library does: 1, 0, pairs with a point at infinity, and every refusal", async () => {
    const G2_OFF_SUBGROUP = (() => {
      // A point of the G2 curve outside the subgroup: the curve's point with the smallest x whose y² is a square, found by the library's own decoding.
      const { Fp2 } = bls12_381.fields;
      for (let x = 1n; ; x++) {
        const X = Fp2.fromBigTuple([x, 0n]);
        const y2 = Fp2.add(Fp2.mul(Fp2.sqr(X), X), Fp2.fromBigTuple([4n, 4n]));
        try {
          const Y = Fp2.sqrt(y2);
          const point = bls12_381.G2.Point.fromAffine({ x: X, y: Y });
          try {
            point.assertValidity();
          } catch {
            return Buffer.concat([fp(x), fp(0n), fp(Y.c0), fp(Y.c1)]);
          }
        } catch {
          // not a square: the next x
        }
      }
    })();
    const cases: Array<[string, Buffer, bigint?]> = [
      ["holds", holds],
      ["fails", fails],
      ["a pair with G1 at infinity", Buffer.concat([pair(bls12_381.G1.Point.ZERO, G2), holds])],
      ["a pair with G2 at infinity", Buffer.concat([holds, pair(G1, bls12_381.G2.Point.ZERO)])],
      ["only infinity", pair(bls12_381.G1.Point.ZERO, bls12_381.G2.Point.ZERO)],
      ["G1 outside the subgroup", Buffer.concat([holds, G1_OFF_SUBGROUP, g2(G2)])],
      ["G2 outside the subgroup", Buffer.concat([g1(G1), G2_OFF_SUBGROUP, holds])],
      ["short of gas", holds, 100_000n],
      ...spoiled(holds, 384).map(([name, data]): [string, Buffer] => [name, data]),
      [
        "G2 x not a field element",
        (() => {
          const copy = Buffer.from(holds);
          copy[128 + 16] = 0xff;
          return copy;
        })(),
      ],
    ];
    const answers = new Set<string | undefined>();
    for (const [name, data, gas] of cases) {
      const { theirs, ours } = await both(0x0f, blsPairingInPieces, data, gas);
      expect(ours, name).toEqual(theirs);
      answers.add(theirs.error ?? theirs.out);
    }
    expect(answers.size).toBeGreaterThanOrEqual(6);
  });

  it("pauses between the pairs of a large pairing check", async () => {
    const run = await both(0x0f, blsPairingInPieces, Buffer.concat([holds, holds, holds]));
    expect(run.ours).toEqual(run.theirs);
    expect(run.ours.out.endsWith("1")).toBe(true);
    // 6 pairs at ~38,900 gas each (a share of the base gas included), three pieces a pair: at least a pause a
    // pair; in one piece, none (or one, counted after it returned).
    expect(run.pauses).toBeGreaterThanOrEqual(6);
  });
});
