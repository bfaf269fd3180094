/** USD values from the swap price table: the one set of prices swaps, portfolios and price quotes share. */
import { formatUnits } from "viem";
import type { EvmToken } from "../../chain/tokens.js";
import { USD_PRICE_MICROS } from "../../products/swaps/priceTable.js";

/** The USD price of one whole token in micro-dollars, or undefined for a token the table does not price. */
export const priceMicrosOf = (token: EvmToken): bigint | undefined => USD_PRICE_MICROS[token.symbol];

/** The USD value of `amount` (smallest units) as a decimal string with cents precision kept exact (micro-dollars). */
export function usdValue(token: EvmToken, amount: bigint): string {
  const micros = priceMicrosOf(token);
  if (micros === undefined) return "0";
  return formatUnits((amount * micros) / 10n ** BigInt(token.decimals), 6);
}

/** The price of one whole token, e.g. "3000" or "1.08". */
export function usdPrice(token: EvmToken): string {
  return formatUnits(priceMicrosOf(token) ?? 0n, 6);
}
