/**
 * MODEXP and the BN254 pairing check in pieces answer exactly as the EVM library's own precompiles do (the same
 * bytes, the same gas, the same error) on the EIPs' examples and on random inputs, valid and spoiled, and a large
 * call pauses between its pieces. Counted, not timed.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { getActivePrecompiles, NobleBN254, type PrecompileInput, paramsEVM } from "@ethereumjs/evm";
import { bn254 } from "@noble/curves/bn254.js";
import { describe, expect, it } from "vitest";
import { countingBudget, resultShape } from "#test/helpers/precompiles.js";
import { modexpInPieces } from "./modexpInPieces.js";
import { pairingInPieces } from "./pairingInPieces.js";

const common = createCustomCommon({ chainId: 84532 }, Mainnet, { hardfork: Hardfork.Prague });
common.updateParams(paramsEVM);
const MODEXP = getActivePrecompiles(common).get("0000000000000000000000000000000000000005")!;
const PAIRING = getActivePrecompiles(common).get("0000000000000000000000000000000000000008")!;
const evm = { _bn254: new NobleBN254() } as unknown as PrecompileInput["_EVM"];

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s|0x/g, ""), "hex"));
const input = (data: Uint8Array, gasLimit = 30_000_000n): PrecompileInput => ({ data, gasLimit, common, _EVM: evm });
const shape = resultShape;
const budget = countingBudget;

/** A deterministic byte source (xorshift), so a failure repeats. */
function bytesFrom(seed: number) {
  let x = seed;
  return (n: number) =>
    Uint8Array.from({ length: n }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xff;
    });
}

const word = (n: number) => Buffer.from(n.toString(16).padStart(64, "0"), "hex");

async function bothModexp(data: Uint8Array, gasLimit?: bigint) {
  const library = shape(await MODEXP(input(data, gasLimit)));
  const ours = shape(await modexpInPieces(input(data, gasLimit), MODEXP, budget().spend));
  return { library, ours };
}

describe("MODEXP in pieces", () => {
  it("answers EIP-198's examples: 3^(p-2) mod p is 1, 0^(p-2) mod p is 0", async () => {
    const fermat = await bothModexp(
      hex(`${"00".repeat(31)}01 ${"00".repeat(31)}20 ${"00".repeat(31)}20 03
        fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2e
        fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f`),
    );
    expect(fermat.ours).toEqual({ gas: 1360n, out: `${"00".repeat(31)}01`, error: undefined });
    expect(fermat.ours).toEqual(fermat.library);
    const zeroBase = await bothModexp(
      hex(`${"00".repeat(32)} ${"00".repeat(31)}20 ${"00".repeat(31)}20
        fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2e
        fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f`),
    );
    expect(zeroBase.ours).toEqual({ gas: 1360n, out: "00".repeat(32), error: undefined });
    expect(zeroBase.ours).toEqual(zeroBase.library);
  });

  it("answers as the library on 400 random inputs: lengths, short data, huge lengths, zero moduli, too little gas", async () => {
    const random = bytesFrom(198);
    for (let i = 0; i < 400; i++) {
      const [r0, r1, r2, r3] = random(4);
      const b = r0! % 70;
      const e = i % 7 === 0 ? 200 + r1! : r1! % 40;
      const m = i % 11 === 0 ? 0 : i % 5 === 0 ? 1 + (r2! % 3) : r2! % 80;
      let body = Buffer.concat([word(b), word(e), word(m), random(b + e + m)]);
      if (i % 13 === 0) body = body.subarray(0, r3! % body.length); // cut short: the rest reads as zeros
      if (i % 17 === 0) body = Buffer.concat([Buffer.alloc(31), Buffer.from([0xff]), body.subarray(32)]); // a length past every bound
      if (i % 19 === 0) body = Buffer.concat([body.subarray(0, 64), Buffer.alloc(32), body.subarray(96)]); // zero modulus length
      const gasLimit = i % 9 === 0 ? BigInt(r3! * 10) : undefined;
      const { library, ours } = await bothModexp(Uint8Array.from(body), gasLimit);
      expect(ours, `input ${i}: ${body.toString("hex")}`).toEqual(library);
    }
  });

  it("pauses a 512-byte modexp (5.6M gas) many times, with the library's answer", async () => {
    const random = bytesFrom(512);
    const data = Uint8Array.from(Buffer.concat([word(512), word(512), word(512), random(512), random(512), random(512)]));
    const { spend, counts } = budget();
    const ours = shape(await modexpInPieces(input(data), MODEXP, spend));
    expect(ours.gas).toBeGreaterThan(5_500_000n);
    expect(counts.pauses).toBeGreaterThanOrEqual(200);
    expect(ours).toEqual(shape(await MODEXP(input(data))));
  });

  it("pauses a 64 KiB exponent with a one-byte modulus (the library's run is quadratic in it)", async () => {
    const random = bytesFrom(64);
    const data = Uint8Array.from(Buffer.concat([word(1), word(65_536), word(1), Buffer.from([7]), random(65_536), Buffer.from([251])]));
    const { spend, counts } = budget();
    const ours = shape(await modexpInPieces(input(data), MODEXP, spend));
    // The expected power, the slow way but linear: Fermat reduces the exponent mod 250 (251 is prime).
    let e = 0n;
    for (const byte of data.subarray(97, 97 + 65_536)) e = (e * 256n + BigInt(byte)) % 250n;
    let expected = 1n;
    for (let k = 0n; k < e; k++) expected = (expected * 7n) % 251n;
    expect(ours.out).toBe(expected.toString(16).padStart(2, "0"));
    expect(ours.error).toBeUndefined();
    expect(counts.pauses).toBeGreaterThanOrEqual(10);
  });

  it("reduces a modulus over 8 KiB in pieces, each a pause", async () => {
    const random = bytesFrom(9);
    const data = Uint8Array.from(Buffer.concat([word(9_000), word(1), word(9_000), random(9_000), Buffer.from([3]), random(9_000)]));
    const { spend, counts } = budget();
    const ours = shape(await modexpInPieces(input(data), MODEXP, spend));
    expect(ours).toEqual(shape(await MODEXP(input(data))));
    // Two steps (a square, a multiply by the base) of a 18-piece product each, and a square for the leading bit.
    expect(counts.pauses).toBeGreaterThanOrEqual(20);
  });
});

// EIP-197's G2 generator: each coordinate's imaginary part, then its real part.
const G2_GENERATOR = hex(`
  198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2
  1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed
  090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b
  12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa`);
const G1_GENERATOR = hex(`${"00".repeat(31)}01 ${"00".repeat(31)}02`);
const P = 21888242871839275222246405745257275088696311157297823662689037894645226208583n; // the field's prime
const G1_NEGATED = hex(`${"00".repeat(31)}01 ${(P - 2n).toString(16).padStart(64, "0")}`);

async function bothPairing(data: Uint8Array, gasLimit?: bigint) {
  const library = shape(await PAIRING(input(data, gasLimit)));
  const ours = shape(await pairingInPieces(input(data, gasLimit), PAIRING, budget().spend));
  return { library, ours };
}

const g1Bytes = (k: bigint) => {
  const { x, y } = bn254.G1.Point.BASE.multiply(k).toAffine();
  return Buffer.from(x.toString(16).padStart(64, "0") + y.toString(16).padStart(64, "0"), "hex");
};
const g2Bytes = (k: bigint) => {
  const { x, y } = bn254.G2.Point.BASE.multiply(k).toAffine();
  const f = (n: bigint) => n.toString(16).padStart(64, "0");
  return Buffer.from(f(x.c1) + f(x.c0) + f(y.c1) + f(y.c0), "hex");
};

describe("the BN254 pairing check in pieces", () => {
  it("answers EIP-197's identity e(P, Q) · e(−P, Q) = 1, and e(P, Q) ≠ 1, as the library does", async () => {
    expect(P).toBe(bn254.fields.Fp.ORDER);
    const one = await bothPairing(Uint8Array.from(Buffer.concat([G1_GENERATOR, G2_GENERATOR, G1_NEGATED, G2_GENERATOR])));
    expect(one.ours).toEqual({ gas: 113_000n, out: `${"00".repeat(31)}01`, error: undefined });
    expect(one.ours).toEqual(one.library);
    const notOne = await bothPairing(Uint8Array.from(Buffer.concat([G1_GENERATOR, G2_GENERATOR])));
    expect(notOne.ours).toEqual({ gas: 79_000n, out: "00".repeat(32), error: undefined });
    expect(notOne.ours).toEqual(notOne.library);
    expect(await bothPairing(new Uint8Array())).toMatchObject({ ours: { gas: 45_000n, out: `${"00".repeat(31)}01` } });
  });

  it("answers as the library on random pairs: products that are 1 and not, zero points, spoiled bytes, odd lengths, too little gas", async () => {
    const random = bytesFrom(197);
    for (let i = 0; i < 24; i++) {
      const [r0, r1, r2] = random(3);
      const a = BigInt(1 + r0!);
      const b = BigInt(1 + r1!);
      // e(aG1, bG2) · e(−abG1, G2) = 1; a third pair of zero points changes nothing.
      const pairs = [g1Bytes(a), g2Bytes(b), g1Bytes(bn254.fields.Fr.neg(a * b)), g2Bytes(1n)];
      if (i % 3 === 0) pairs.push(Buffer.alloc(64), g2Bytes(5n));
      if (i % 4 === 1) pairs[2] = g1Bytes(a * b); // no longer 1
      let data = Buffer.concat(pairs);
      if (i % 5 === 2) data[r2! % data.length] ^= 1 + (r0! % 255); // off the curve, out of the field or out of the group
      if (i % 7 === 3) data = data.subarray(0, data.length - 1); // not a multiple of 192
      const gasLimit = i % 6 === 5 ? 100_000n : undefined;
      const { library, ours } = await bothPairing(Uint8Array.from(data), gasLimit);
      expect(ours, `input ${i}: ${data.toString("hex")}`).toEqual(library);
    }
  });

  it("pauses after every pair's checks and its Miller loop", async () => {
    const data = Uint8Array.from(Buffer.concat(Array.from({ length: 6 }, (_, k) => Buffer.concat([g1Bytes(BigInt(k + 2)), g2Bytes(3n)]))));
    const { spend, counts } = budget();
    const ours = shape(await pairingInPieces(input(data), PAIRING, spend));
    expect(ours).toEqual(shape(await PAIRING(input(data))));
    expect(counts.pauses).toBe(12);
  });
});
