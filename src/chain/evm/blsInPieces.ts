/**
 * The BLS12-381 multi-scalar multiplications (0x0c G1, 0x0e G2) and pairing check (0x0f) of Prague (EIP-2537) in
 * pieces. The EVM library runs each call in one piece: every point's subgroup check and multiplication (~25 ms a
 * G1 point, ~110 ms a G2 point at load 10), every pair's checks and Miller loop (~130 ms a pair), so a call within a
 * block's 30M gas (~4,800 G1 points, ~2,500 G2 points or ~900 pairs) held the event loop for minutes.
 *
 * What the library decides stays the library's, through its own precompiles on the same bytes:
 * - the gas, the length rules, out-of-gas and the check of the padding bytes: its precompile on the input with
 *   every byte but the padding zeroed (points at infinity, scalars zero), which does no arithmetic;
 * - each point's checks and error, in input order: its MSM of that point by zero, which decodes and checks a point
 *   exactly as its MSM and its pairing do, and answers at once.
 * The arithmetic is the curve library's the EVM library uses (@noble/curves): an MSM multiplies each checked point
 * by its scalar reduced by the group's order and sums them (the same group element, and a point has one encoding); a
 * pairing multiplies each pair's Miller loop (a batch's is their product), then one final exponentiation decides.
 * The test beside this file compares every answer, byte for byte, with the library's.
 */
import { EVMError, type ExecResult, getActivePrecompiles, type PrecompileFunc, type PrecompileInput } from "@ethereumjs/evm";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import type { Spend } from "./modexpInPieces.js";

const address = (n: number) => n.toString(16).padStart(40, "0");
const G1_MSM = address(0x0c);
const G2_MSM = address(0x0e);

/** Bytes of an encoded point (each coordinate 64 bytes, 16 of them padding) and of a scalar. */
const G1_BYTES = 128;
const G2_BYTES = 256;
const SCALAR_BYTES = 32;
const PAIR_BYTES = G1_BYTES + G2_BYTES;

/** Every call gets this much gas for a piece: the whole call's gas has been checked already. */
const PIECE_GAS = 1n << 60n;

/** The input with only the padding bytes (the first 16 of every 64-byte coordinate) of each item kept. */
function paddingOnly(data: Uint8Array, itemBytes: number, coordinateBytes: number): Uint8Array {
  const kept = new Uint8Array(data.length);
  for (let item = 0; item + itemBytes <= data.length; item += itemBytes) {
    for (let at = item; at < item + coordinateBytes; at += 64) kept.set(data.subarray(at, at + 16), at);
  }
  return kept;
}

const refused = (input: PrecompileInput, piece: ExecResult): ExecResult => ({
  // As the library answers an input it refuses: all the call's gas, and its own error.
  executionGasUsed: input.gasLimit,
  returnValue: new Uint8Array(),
  exceptionError: piece.exceptionError ?? new EVMError(EVMError.errorMessages.REVERT),
});

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

const isZero = (bytes: Uint8Array) => bytes.every((b) => b === 0);
const toBigInt = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
/** A 64-byte field element of the input (its 16 padding bytes are zero: checked). */
const fp = (bytes: Uint8Array, at: number) => toBigInt(bytes.subarray(at + 16, at + 64));

type Curve = typeof bls12_381.G1 | typeof bls12_381.G2;
type G1Point = InstanceType<typeof bls12_381.G1.Point>;
type G2Point = InstanceType<typeof bls12_381.G2.Point>;
type AnyPoint = G1Point | G2Point;

/** A point the library has checked, decoded without checking it again. */
function decode(curve: Curve, bytes: Uint8Array): AnyPoint {
  if (isZero(bytes)) return curve.Point.ZERO;
  if (curve === bls12_381.G1) return bls12_381.G1.Point.fromAffine({ x: fp(bytes, 0), y: fp(bytes, 64) });
  const { Fp2 } = bls12_381.fields;
  return bls12_381.G2.Point.fromAffine({ x: Fp2.fromBigTuple([fp(bytes, 0), fp(bytes, 64)]), y: Fp2.fromBigTuple([fp(bytes, 128), fp(bytes, 192)]) });
}

/** As the library encodes its answer: each coordinate (G2: c0, then c1) in 64 bytes, the point at infinity as zeros. */
function encode(point: AnyPoint): Uint8Array {
  const { x, y } = point.toAffine();
  const words = typeof x === "bigint" ? [x, y as bigint] : [x.c0, x.c1, (y as typeof x).c0, (y as typeof x).c1];
  return Buffer.from(words.map((w) => w.toString(16).padStart(128, "0")).join(""), "hex");
}

/**
 * An MSM precompile (0x0c or 0x0e) with the library's gas, checks and output: each point is checked by the library
 * (its MSM of that point by zero) and then multiplied, two pieces a point.
 */
function msmInPieces<P extends { add(other: P): P; multiplyUnsafe(scalar: bigint): P }>(curve: Curve, pointBytes: number, msmAddress: string) {
  const itemBytes = pointBytes + SCALAR_BYTES;
  return async function msm(input: PrecompileInput, original: PrecompileFunc, spend: Spend): Promise<ExecResult> {
    const checked = await original({ ...input, data: paddingOnly(input.data, itemBytes, pointBytes) });
    if (checked.exceptionError) return checked;
    const check = getActivePrecompiles(input.common).get(msmAddress)!;
    const scalarZero = new Uint8Array(SCALAR_BYTES);
    // The units of a piece: half a point's share of the call's gas (a multiplication, discounted as the EIP prices it).
    const units = Math.ceil(Number(checked.executionGasUsed) / (input.data.length / itemBytes) / 2);
    let sum = curve.Point.ZERO as unknown as P;
    for (let at = 0; at < input.data.length; at += itemBytes) {
      const point = input.data.subarray(at, at + pointBytes);
      const piece = await check({ ...input, data: concat(point, scalarZero), gasLimit: PIECE_GAS });
      if (piece.exceptionError) return refused(input, piece);
      const checkedPause = spend(units);
      if (checkedPause) await checkedPause;
      // As the library multiplies: the scalar reduced by the group's order, a zero scalar adding nothing.
      const scalar = toBigInt(input.data.subarray(at + pointBytes, at + itemBytes)) % bls12_381.fields.Fr.ORDER;
      if (scalar !== 0n) sum = sum.add((decode(curve, point) as unknown as P).multiplyUnsafe(scalar));
      const pause = spend(units);
      if (pause) await pause;
    }
    return { executionGasUsed: checked.executionGasUsed, returnValue: encode(sum as unknown as AnyPoint) };
  };
}

/** G1MSM (0x0c) in pieces. */
export const g1MsmInPieces = msmInPieces<G1Point>(bls12_381.G1, G1_BYTES, G1_MSM);
/** G2MSM (0x0e) in pieces. */
export const g2MsmInPieces = msmInPieces<G2Point>(bls12_381.G2, G2_BYTES, G2_MSM);

/**
 * The pairing check (0x0f) with the library's gas, checks and errors: a pair's two point checks and its Miller
 * loop are pieces, the final exponentiation one more.
 *
 * @example await blsPairingInPieces(input, getActivePrecompiles(common).get("00…0f")!, spend)
 */
export async function blsPairingInPieces(input: PrecompileInput, original: PrecompileFunc, spend: Spend): Promise<ExecResult> {
  const checked = await original({ ...input, data: paddingOnly(input.data, PAIR_BYTES, PAIR_BYTES) });
  if (checked.exceptionError) return checked;
  const precompiles = getActivePrecompiles(input.common);
  const scalarZero = new Uint8Array(SCALAR_BYTES);
  const pairs = input.data.length / PAIR_BYTES;
  // A pair's three pieces share its gas (~32,600 units: about two slices of the budget).
  const units = Math.ceil(Number(checked.executionGasUsed) / pairs / 3);
  const { Fp12 } = bls12_381.fields;
  let product = Fp12.ONE;
  for (let at = 0; at < input.data.length; at += PAIR_BYTES) {
    const g1 = input.data.subarray(at, at + G1_BYTES);
    const g2 = input.data.subarray(at + G1_BYTES, at + PAIR_BYTES);
    for (const [point, msm] of [
      [g1, G1_MSM],
      [g2, G2_MSM],
    ] as const) {
      const piece = await precompiles.get(msm)!({ ...input, data: concat(point, scalarZero), gasLimit: PIECE_GAS });
      if (piece.exceptionError) return refused(input, piece);
      const pause = spend(units);
      if (pause) await pause;
    }
    // The library leaves out a pair with a point at infinity (all zero bytes, the only encoding of it it accepts).
    if (!isZero(g1) && !isZero(g2)) {
      const pair = { g1: decode(bls12_381.G1, g1) as G1Point, g2: decode(bls12_381.G2, g2) as G2Point };
      product = Fp12.mul(product, bls12_381.pairingBatch([pair], false));
    }
    const pause = spend(units);
    if (pause) await pause;
  }
  const returnValue = new Uint8Array(32);
  returnValue[31] = Fp12.eql(Fp12.finalExponentiate(product), Fp12.ONE) ? 1 : 0;
  return { executionGasUsed: checked.executionGasUsed, returnValue };
}
