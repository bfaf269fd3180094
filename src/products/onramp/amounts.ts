/**
 * Exact decimal amounts as the platform writes them ("20.00", "0.00650000"):
 * parsed into integers of a fixed number of decimals, so prices, fees and
 * limits never pass through floating point.
 *
 * @example
 *   parseUnits("20.5", 2, "paymentAmount"); // 2050n
 *   formatUnits(2050n, 2);                  // "20.50"
 */
import { apiError } from "../../errors/catalogue.js";

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** `text` as an integer count of 10^-decimals; a 400 naming `field` when it is not a plain non-negative decimal or is finer than that. */
export function parseUnits(text: string, decimals: number, field: string): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw apiError("invalid_request", `${field} must be a decimal amount such as "20.00", got ${JSON.stringify(text)}.`);
  const fraction = (m[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) throw apiError("invalid_request", `${field} has more than ${decimals} decimal places (${JSON.stringify(text)}).`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** Fixed number of decimals: formatUnits(5n, 2) → "0.05". */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const out = decimals === 0 ? whole : `${whole}.${digits.slice(digits.length - decimals)}`;
  return negative ? `-${out}` : out;
}

/** Without trailing zeros: trimUnits(50000n, 2) → "500", trimUnits(2050n, 2) → "20.5". */
export function trimUnits(value: bigint, decimals: number): string {
  const fixed = formatUnits(value, decimals);
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

/** A decimal string of the price tables as an exact fraction. */
export function fraction(text: string): { num: bigint; den: bigint } {
  const [whole, frac = ""] = text.split(".");
  const den = 10n ** BigInt(frac.length);
  return { num: BigInt(whole! + frac), den };
}

export const divFloor = (a: bigint, b: bigint) => a / b;
export const divCeil = (a: bigint, b: bigint) => (a + b - 1n) / b;
/** Half away from zero, for non-negative operands. */
export const divRound = (a: bigint, b: bigint) => (2n * a + b) / (2n * b);
