/**
 * The BN254 pairing check (0x08) in pieces. The EVM library checks every pair and runs one Miller loop over all of
 * them in one call: tens of milliseconds a pair in JavaScript (a G2 subgroup check ~50 ms and a Miller loop ~50 ms
 * a pair under load), so a call of 30M gas (~880 pairs) held the event loop for minutes. The product of each pair's
 * own Miller loop is the batch's (the same line functions, multiplied in another order), and the final
 * exponentiation of the product decides; so a pair is one piece, and the final exponentiation one more.
 *
 * What the library decides stays the library's, through its own functions on the same bytes: the input's length
 * and the gas (its pairing function on an all-zero input of the same length, which skips every pair), and whether
 * each point is valid and which error an invalid one gives (its G1 multiplication by zero checks a G1 point, its
 * pairing of the zero G1 point with a G2 point checks that G2 point), in the library's order.
 */
import { EVMError, type ExecResult, type PrecompileFunc, type PrecompileInput } from "@ethereumjs/evm";
import { bn254 } from "@noble/curves/bn254.js";
import type { Spend } from "./modexpInPieces.js";

const PAIR = 192;
const isZero = (bytes: Uint8Array) => bytes.every((b) => b === 0);
const toBigInt = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString("hex")}`);

/** Each of a pair's two pieces (its checks, its Miller loop) counts half its gas: over a slice's budget, so a pause. */
const HALF_PAIR_UNITS = 17_000;

type Bn254 = { mul(input: Uint8Array): Uint8Array; pairing(input: Uint8Array): Uint8Array };

/**
 * The pairing precompile with the library's gas, checks and errors, and a pause after every pair.
 *
 * @example await pairingInPieces(input, getActivePrecompiles(common).get("00…08")!, spend)
 */
export async function pairingInPieces(input: PrecompileInput, original: PrecompileFunc, spend: Spend): Promise<ExecResult> {
  const checked = await original({ ...input, data: new Uint8Array(input.data.length) });
  if (checked.exceptionError || input.data.length === 0) return checked;
  const library = (input._EVM as unknown as { _bn254: Bn254 })._bn254;
  const { Fp12 } = bn254.fields;
  let product = Fp12.ONE;
  for (let at = 0; at < input.data.length; at += PAIR) {
    const g1 = input.data.subarray(at, at + 64);
    const g2 = input.data.subarray(at + 64, at + PAIR);
    try {
      library.mul(concat(g1, new Uint8Array(32)));
      library.pairing(concat(new Uint8Array(64), g2));
    } catch (error) {
      // As the library answers a pair it refuses: all the call's gas, its own error or a revert.
      return {
        executionGasUsed: input.gasLimit,
        returnValue: new Uint8Array(),
        exceptionError: error instanceof EVMError ? error : new EVMError(EVMError.errorMessages.REVERT),
      };
    }
    // Outside the try: a pause that aborts the run (its time budget spent) is no refusal of the pair.
    const checkedPause = spend(HALF_PAIR_UNITS);
    if (checkedPause) await checkedPause;
    if (!isZero(g1) && !isZero(g2)) product = Fp12.mul(product, bn254.pairing(g1Point(g1), g2Point(g2), false));
    const pause = spend(HALF_PAIR_UNITS);
    if (pause) await pause;
  }
  const one = Fp12.eql(Fp12.finalExponentiate(product), Fp12.ONE);
  const returnValue = new Uint8Array(32);
  returnValue[31] = one ? 1 : 0;
  return { executionGasUsed: checked.executionGasUsed, returnValue };
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A G1 point the library accepted: x and y, 32 bytes each. */
const g1Point = (bytes: Uint8Array) => bn254.G1.Point.fromAffine({ x: toBigInt(bytes.subarray(0, 32)), y: toBigInt(bytes.subarray(32, 64)) });

/** A G2 point the library accepted: each coordinate's imaginary part first, then its real part (EIP-197). */
function g2Point(bytes: Uint8Array) {
  const { Fp2 } = bn254.fields;
  const coordinate = (at: number) => Fp2.fromBigTuple([toBigInt(bytes.subarray(at + 32, at + 64)), toBigInt(bytes.subarray(at, at + 32))]);
  return bn254.G2.Point.fromAffine({ x: coordinate(0), y: coordinate(64) });
}
