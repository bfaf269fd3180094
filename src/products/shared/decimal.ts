/**
 * Decimal strings of the money APIs ("125.50") as bigint smallest units of
 * an asset, and conversions between assets at the sandbox's fixed prices.
 * Everything is integer arithmetic, so a quote and its settlement agree to
 * the last unit.
 *
 * @example
 *   toUnits("24.99", 6) // → 24990000n
 *   fromUnits(24990000n, CUSTODIAL_ASSETS.usdc) // → "24.99"
 */
import type { CustodialAsset } from "./custodialAssets.js";

const TEN = (n: number) => 10n ** BigInt(n);

/** Units of a decimal string, or undefined when it has more fraction digits than `decimals`. */
export function toUnits(text: string, decimals: number): bigint | undefined {
  const clean = text.trim().replace(/^\+/, "");
  const match = /^(\d*)(?:\.(\d*))?$/.exec(clean);
  if (!match) return undefined;
  const [, whole = "", rawFraction = ""] = match;
  const fraction = rawFraction.replace(/0+$/, "");
  if (fraction.length > decimals) return undefined;
  return BigInt(whole || "0") * TEN(decimals) + BigInt((fraction || "0").padEnd(decimals, "0"));
}

/** A decimal string of units: fiat and stablecoins keep two fraction digits ("25.00"), other assets drop trailing zeros. */
export function fromUnits(units: bigint, asset: CustodialAsset): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / TEN(asset.decimals);
  let fraction = (abs % TEN(asset.decimals)).toString().padStart(asset.decimals, "0").replace(/0+$/, "");
  const keep = asset.class === "crypto" ? 0 : Math.min(2, asset.decimals);
  fraction = fraction.padEnd(keep, "0");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Value of `units` of `asset` in micro-USD, rounded down. */
export function usdMicrosOf(units: bigint, asset: CustodialAsset): bigint {
  return (units * asset.usdMicros) / TEN(asset.decimals);
}

/** `units` of `from` expressed in `to` at the sandbox prices; rounded down unless `roundUp`. */
export function convertUnits(units: bigint, from: CustodialAsset, to: CustodialAsset, roundUp = false): bigint {
  const numerator = units * from.usdMicros * TEN(to.decimals);
  const denominator = to.usdMicros * TEN(from.decimals);
  const quotient = numerator / denominator;
  return roundUp && quotient * denominator !== numerator ? quotient + 1n : quotient;
}

/** How many `to` one `from` is worth, as the contract's `rate` string (at most 8 fraction digits). */
export function rateOf(from: CustodialAsset, to: CustodialAsset): string {
  const scaled = (from.usdMicros * TEN(8)) / to.usdMicros;
  const whole = scaled / TEN(8);
  const fraction = (scaled % TEN(8)).toString().padStart(8, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** `units × bps / 10_000`, rounded up (fees never round in the payer's favour). */
export function basisPoints(units: bigint, bps: number): bigint {
  const numerator = units * BigInt(bps);
  return (numerator + 9_999n) / 10_000n;
}
