/**
 * MODEXP (0x05) in pieces. The EVM library's own square-and-multiply shifts the whole exponent right by one bit per
 * step, which makes it quadratic in the exponent's length: a 64 KiB exponent with a one-byte modulus (175,000 gas)
 * held the event loop 30 s, and a 4096-bit modulus costs ~150 µs a step under load (a 512-byte modexp, 5.6M gas,
 * ran 0.6–3 s in one piece). Here the exponent's bits are read in place (linear), a modulus under 2^26 runs on
 * doubles, and the run lets the loop go by the gas of the bits done.
 *
 * Everything but the arithmetic stays the library's: its function runs first on the same input with the modulus
 * zeroed, which costs nothing (a zero modulus answers zeros at once) but decides the gas, out-of-gas and every
 * length rule exactly as it would have. Only a call it accepts with a non-zero modulus is computed here.
 */
import type { ExecResult, PrecompileFunc, PrecompileInput } from "@ethereumjs/evm";

/** Counts work into the run's budget; a promise when the run must pause first. */
export type Spend = (units: number) => Promise<void> | undefined;

const word = (data: Uint8Array, at: number): bigint => {
  let n = 0n;
  for (let i = at; i < at + 32; i++) n = (n << 8n) | BigInt(data[i] ?? 0);
  return n;
};

/** Bytes [start, start + length) of the input, reading zeros past its end (as the precompile reads). */
const field = (data: Uint8Array, start: number, length: number): Uint8Array => {
  const out = new Uint8Array(length);
  if (start < data.length) out.set(data.subarray(start, Math.min(start + length, data.length)));
  return out;
};

const toBigInt = (bytes: Uint8Array): bigint => (bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString("hex")}`));

/** The largest modulus whose products stay exact in a double: 2^26 squared is 2^52. */
const DOUBLE_MODULUS = 1n << 26n;

/**
 * The MODEXP precompile with the library's gas and rules and a linear, pausing exponentiation.
 *
 * @example await modexpInPieces(input, getActivePrecompiles(common).get("00…05")!, spend)
 */
export async function modexpInPieces(input: PrecompileInput, original: PrecompileFunc, spend: Spend): Promise<ExecResult> {
  const data = input.data;
  const bLen = word(data, 0);
  const eLen = word(data, 32);
  const mLen = word(data, 64);
  const mStart = 96n + bLen + eLen;
  // Only the modulus bytes the input holds can be non-zero; past its end the precompile reads zeros anyway.
  const zeroed = data.slice();
  if (mStart < BigInt(data.length)) zeroed.fill(0, Number(mStart), Number(mStart + mLen < BigInt(data.length) ? mStart + mLen : BigInt(data.length)));
  const checked = await original({ ...input, data: zeroed });
  // Refused (out of gas, a length past the bounds) or answered without arithmetic (no modulus): the library's answer.
  if (checked.exceptionError || mStart >= BigInt(data.length)) return checked;
  // Accepted: every length is small enough to be a number (the gas bounds them far below 2^32).
  const [b, e, m] = [Number(bLen), Number(eLen), Number(mLen)];
  const modulus = toBigInt(field(data, Number(mStart), m));
  if (modulus === 0n) return checked;
  const base = toBigInt(field(data, 96, b)) % modulus;
  const exponent = field(data, 96 + b, e);
  const words = Math.ceil(m / 8);
  // The gas of one exponent bit (EIP-2565: words² / 3), the unit the run's budget counts in.
  const unitsPerBit = 1 + Math.ceil((words * words) / 3);
  const result =
    modulus < DOUBLE_MODULUS ? await powSmall(base, exponent, modulus, spend, unitsPerBit) : await pow(base, exponent, modulus, spend, unitsPerBit);
  const out = new Uint8Array(m);
  if (result !== 0n) {
    const hex = result.toString(16);
    out.set(Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex"), m - Math.ceil(hex.length / 2));
  }
  return { executionGasUsed: checked.executionGasUsed, returnValue: out };
}

/** Bits between two looks at the budget: few enough that a piece of a 512-byte modulus stays short. */
const BITS_PER_LOOK = 8;

/** A modulus above this many hex digits (8 KiB) is reduced in pieces: one `%` of it holds the loop ~10 ms or more. */
const LARGE_MODULUS_DIGITS = 16_384;
/** Hex digits of the product brought down per piece of a large reduction (4 KiB). */
const REDUCTION_DIGITS = 8_192;

/** Left-to-right square-and-multiply over the exponent's bytes, most significant first. */
async function pow(base: bigint, exponent: Uint8Array, modulus: bigint, spend: Spend, unitsPerBit: number): Promise<bigint> {
  const large = modulus.toString(16).length > LARGE_MODULUS_DIGITS;
  // A 75 KB modulus (the largest the block's gas allows) takes ~200 ms a `%` under load: long division by
  // 4 KiB digits of the product instead, a pause between two.
  const mulmod = large ? (x: bigint, y: bigint) => reduceInPieces(x * y, modulus) : async (x: bigint, y: bigint) => (x * y) % modulus;
  let result = 1n % modulus;
  for (const byte of exponent) {
    for (let bit = 7; bit >= 0; bit--) {
      result = await mulmod(result, result);
      if ((byte >> bit) & 1) result = await mulmod(result, base);
    }
    const pause = spend(unitsPerBit * BITS_PER_LOOK);
    if (pause) await pause;
  }
  return result;

  async function reduceInPieces(product: bigint, m: bigint): Promise<bigint> {
    const hex = product.toString(16);
    let rest = 0n;
    // The first piece takes what is left over, so that every later one is whole.
    for (let at = 0, next = hex.length % REDUCTION_DIGITS || REDUCTION_DIGITS; at < hex.length; at = next, next += REDUCTION_DIGITS) {
      rest = ((rest << BigInt(4 * (next - at))) | BigInt(`0x${hex.slice(at, next)}`)) % m;
      // A piece costs about what a bit of a modulus this large does: over the budget of one slice, so a pause.
      const pause = spend(unitsPerBit);
      if (pause) await pause;
    }
    return rest;
  }
}

/** The same on doubles, for a modulus under 2^26: exact, and ~50 times faster than bigint steps. */
async function powSmall(base: bigint, exponent: Uint8Array, modulus: bigint, spend: Spend, unitsPerBit: number): Promise<bigint> {
  const m = Number(modulus);
  const g = Number(base);
  let result = 1 % m;
  let bits = 0;
  for (const byte of exponent) {
    for (let bit = 7; bit >= 0; bit--) {
      result = (result * result) % m;
      if ((byte >> bit) & 1) result = (result * g) % m;
    }
    // Steps on doubles are cheap: look at the budget once per 4 KiB of exponent.
    bits += 8;
    if (bits === 32_768) {
      bits = 0;
      const pause = spend(unitsPerBit * 32_768);
      if (pause) await pause;
    }
  }
  return BigInt(result);
}
