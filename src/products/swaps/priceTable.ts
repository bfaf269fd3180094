/**
 * The sandbox's swap price table: fixed USD prices, so every price and quote
 * is reproducible (docs/swaps.md lists the same numbers). A token must be in
 * the ledger's token table of the network (`src/chain/tokens.ts`) and priced
 * here to be swapped.
 */
import { lookupTable } from "../../lookup.js";

/**
 * USD price of one whole token, in micro-dollars, by the symbol the token table gives it (the same on
 * every network). Every token of a swap network's table has a price (a test checks it).
 */
export const USD_PRICE_MICROS: Readonly<Record<string, bigint>> = lookupTable({
  ETH: 3_000_000_000n, // $3,000 (as the policy engine's netUSDChange values it)
  WETH: 3_000_000_000n,
  POL: 500_000n, // $0.50
  USDC: 1_000_000n, // $1
  USDT: 1_000_000n,
  "USD₮0": 1_000_000n, // Arbitrum's USDT
  DAI: 1_000_000n,
  EURC: 1_080_000n, // $1.08
  cbBTC: 100_000_000_000n, // $100,000
});

/** The protocol fee, taken from the buy side: 10 bps = 0.1 %. */
export const PROTOCOL_FEE_BPS = 10n;

/** Largest sell per swap, in USD: above it the platform answers liquidityAvailable: false. */
export const LIQUIDITY_CAP_USD = 1_000_000n;

/** Pairs (either direction) no liquidity source serves: liquidityAvailable: false at any amount. */
export const PAIRS_WITHOUT_LIQUIDITY: ReadonlyArray<readonly [string, string]> = [["EURC", "cbBTC"]];

/** Default slippage tolerance when the request gives none (the platform's: 1 %). */
export const DEFAULT_SLIPPAGE_BPS = 100;

/** How long a quote, and the Permit2 signature it asks for, stays good. */
export const QUOTE_LIFETIME_SECONDS = 10 * 60;
