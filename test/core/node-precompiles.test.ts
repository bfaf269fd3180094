/**
 * One precompile call cannot hold the event loop: through viem's eth_call, a MODEXP the EVM library ran in one
 * piece for seconds (a 40 KB exponent with a one-byte modulus, quadratic in it: ~12 s; a 512-byte modexp: 0.6–3 s)
 * and a pairing check of many pairs (~100 ms a pair) answer the right bytes while the event loop keeps turning.
 * Counted, not timed: the test asserts how often the loop turned meanwhile; the longest gap between two turns is
 * printed with FIGURES=1 (a figure for the docs, never an assertion: a busy machine makes it anything).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Sandbox } from "cdp-sandbox";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { bn254 } from "@noble/curves/bn254.js";
import { createPublicClient, http, type Hex, type PublicClient } from "viem";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let client: PublicClient;
beforeAll(async () => {
  // No time budget: these calls run for seconds on purpose, to count the loop's turns (node-evm-timeout.test.ts cuts them).
  sandbox = await withSandbox({ seed: "node-precompiles", evmTimeoutMs: 0 });
  client = createPublicClient({ chain: baseSepolia, transport: http(await nodeUrlFor(sandbox, "base-sepolia"), { timeout: 300_000 }) }) as PublicClient;
});
afterAll(() => sandbox?.close());

const MODEXP = 5;
const PAIRING = 8;
const BLS_G1_MSM = 0x0c;
const BLS_PAIRING = 0x0f;
const word = (n: number | bigint) => n.toString(16).padStart(64, "0");

/**
 * A deployless call (init code run by eth_call) that copies `input` from its own code to memory, STATICCALLs the
 * precompile with it and returns `outputBytes` of its answer: how a contract calls one.
 */
function callingPrecompile(precompile: number, input: Hex, outputBytes: number): Hex {
  const length = (input.length - 2) / 2;
  const l = length.toString(16).padStart(6, "0");
  const o = outputBytes.toString(16).padStart(4, "0");
  const p = precompile.toString(16).padStart(2, "0");
  // CODECOPY(0, 36, L); STATICCALL(GAS, p, 0, L, L, O); POP; RETURN(L, O) — 36 bytes of code before the input.
  const code = `62${l}610024600039` + `61${o}62${l}62${l}600060${p}5afa50` + `61${o}62${l}f3`;
  return `0x${code}${input.slice(2)}`;
}

/** Runs the eth_call, counting the event loop's turns meanwhile (the sandbox runs in this process). */
async function turnsDuring(label: string, precompile: number, input: Hex, outputBytes: number) {
  const data = callingPrecompile(precompile, input, outputBytes);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const { result, turns } = await turnsWhile(() => client.call({ data, gas: 10_000_000n }));
  delay.disable();
  if (process.env.FIGURES) console.log(`${label}: ${turns} turns, longest gap ${(delay.max / 1e6).toFixed(0)} ms`);
  return { result: result.data, turns };
}

describe("MODEXP through eth_call", () => {
  it("answers a 40 KB exponent with a one-byte modulus while the loop turns (the library's run is quadratic in it)", async () => {
    const exponent = Buffer.alloc(40_000, 0xa7);
    const data = `0x${word(1)}${word(40_000)}${word(1)}07${exponent.toString("hex")}fb` as Hex;
    const { result, turns } = await turnsDuring("modexp 1/40000/1", MODEXP, data, 1);
    // 251 is prime: 7^e = 7^(e mod 250) mod 251; e mod 250 from the exponent's bytes.
    let e = 0n;
    for (const byte of exponent) e = (e * 256n + BigInt(byte)) % 250n;
    let expected = 1n;
    for (let k = 0n; k < e; k++) expected = (expected * 7n) % 251n;
    expect(result).toBe(`0x${expected.toString(16).padStart(2, "0")}`);
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it("answers a 512-byte modexp (5.6M gas) in hundreds of pieces", async () => {
    // First a^1 = a, the exponent 1 padded to 512 bytes: its 4,095 leading zero bits are still squared through.
    const base = Buffer.alloc(512, 0x5a);
    const modulus = Buffer.alloc(512, 0xff);
    const data = `0x${word(512)}${word(512)}${word(512)}${base.toString("hex")}${word(0).repeat(15)}${word(1)}${modulus.toString("hex")}` as Hex;
    const { result, turns } = await turnsDuring("modexp 512/512/512, exponent 1", MODEXP, data, 512);
    expect(result).toBe(`0x${base.toString("hex")}`);
    expect(turns).toBeGreaterThanOrEqual(1);
    // A dense exponent: the gas is 5.6M and every one of its 4,096 bits squares.
    const dense = `0x${word(512)}${word(512)}${word(512)}${base.toString("hex")}${"c3".repeat(512)}${modulus.toString("hex")}` as Hex;
    const heavy = await turnsDuring("modexp 512/512/512, dense exponent", MODEXP, dense, 512);
    let expected = 1n;
    const m = BigInt(`0x${modulus.toString("hex")}`);
    const b = BigInt(`0x${base.toString("hex")}`);
    for (let i = 0; i < 512; i++) for (let bit = 7; bit >= 0; bit--) expected = (((expected * expected) % m) * ((0xc3 >> bit) & 1 ? b : 1n)) % m;
    expect(heavy.result).toBe(`0x${expected.toString(16).padStart(1024, "0")}`);
    expect(heavy.turns).toBeGreaterThanOrEqual(100);
  });
});

describe("the BN254 pairing check through eth_call", () => {
  const g1 = (k: bigint) => {
    const { x, y } = bn254.G1.Point.BASE.multiply(k).toAffine();
    return word(x) + word(y);
  };
  const g2 = (k: bigint) => {
    const { x, y } = bn254.G2.Point.BASE.multiply(k).toAffine();
    return word(x.c1) + word(x.c0) + word(y.c1) + word(y.c0);
  };
  const order = bn254.fields.Fr.ORDER;

  it("answers 40 pairs (1.4M gas) whose product is 1 while the loop turns after every pair", async () => {
    // e(k·G1, G2) · e(−k·G1, G2) = 1 for each k: 20 such couples.
    let data = "0x";
    for (let k = 1n; k <= 20n; k++) data += g1(k) + g2(1n) + g1(order - k) + g2(1n);
    const { result, turns } = await turnsDuring("pairing 40 pairs", PAIRING, data as Hex, 32);
    expect(result).toBe(`0x${word(1)}`);
    // Two pieces a pair.
    expect(turns).toBeGreaterThanOrEqual(80);
    // One pair changed: the product is no longer 1.
    const spoiled = `${data.slice(0, -g2(1n).length)}${g2(2n)}` as Hex;
    expect((await turnsDuring("pairing 40 pairs, not 1", PAIRING, spoiled, 32)).result).toBe(`0x${word(0)}`);
  });
});

describe("BLS12-381 (EIP-2537) through eth_call", () => {
  const fp = (n: bigint) => n.toString(16).padStart(128, "0");
  const g1 = (k: bigint) => {
    const { x, y } = bls12_381.G1.Point.BASE.multiply(k).toAffine();
    return fp(x) + fp(y);
  };
  const g2 = (k: bigint) => {
    const { x, y } = bls12_381.G2.Point.BASE.multiply(k).toAffine();
    return fp(x.c0) + fp(x.c1) + fp(y.c0) + fp(y.c1);
  };
  const order = bls12_381.fields.Fr.ORDER;

  it("answers a pairing check of 12 pairs whose product is 1 while the loop turns after every pair", async () => {
    let data = "0x";
    for (let k = 1n; k <= 6n; k++) data += g1(k) + g2(1n) + g1(order - k) + g2(1n);
    const { result, turns } = await turnsDuring("BLS pairing 12 pairs", BLS_PAIRING, data as Hex, 32);
    expect(result).toBe(`0x${word(1)}`);
    // In one piece the loop could not turn during the call; in pieces it turns at least once a pair.
    expect(turns).toBeGreaterThanOrEqual(12);
  });

  it("answers a G1 MSM of 16 points, the sum the curve library computes, while the loop turns", async () => {
    let data = "0x";
    let expected = bls12_381.G1.Point.ZERO;
    for (let k = 1n; k <= 16n; k++) {
      const s = k * 0x1234567890abcdefn;
      data += g1(k) + word(s);
      expected = expected.add(bls12_381.G1.Point.BASE.multiply((k * s) % order));
    }
    const { result, turns } = await turnsDuring("BLS G1 MSM 16 points", BLS_G1_MSM, data as Hex, 128);
    const { x, y } = expected.toAffine();
    expect(result).toBe(`0x${fp(x)}${fp(y)}`);
    expect(turns).toBeGreaterThanOrEqual(6);
  });
});
