/**
 * The economics of a swap from the price table: how much of the buy token a
 * sell amount fetches, the protocol fee, the slippage floor, and when no
 * liquidity is available. Pure: the same inputs always give the same terms.
 */
import { type EvmToken, evmTokenByAddress, evmTokensOf, PERMIT2_ADDRESS } from "../../chain/evm/index.js";
import { SWAP_LIQUIDITY_POOL, SWAP_SETTLER_ADDRESS } from "./settler.js";
import { apiError } from "../../errors/catalogue.js";
import { LIQUIDITY_CAP_USD, PAIRS_WITHOUT_LIQUIDITY, PROTOCOL_FEE_BPS, USD_PRICE_MICROS } from "./priceTable.js";

export type SwapTerms =
  | { liquidityAvailable: false }
  | { liquidityAvailable: true; from: EvmToken; to: EvmToken; fromAmount: bigint; toAmount: bigint; protocolFee: bigint; minToAmount: bigint };

export interface SwapRequest {
  network: string;
  fromToken: string;
  toToken: string;
  fromAmount: string;
  taker: string;
  slippageBps: number;
}

function tradable(network: string, address: string, field: string): EvmToken {
  const token = evmTokenByAddress(network, address);
  if (!token || USD_PRICE_MICROS[token.symbol] === undefined) {
    const known = evmTokensOf(network)
      .filter((t) => USD_PRICE_MICROS[t.symbol] !== undefined)
      .map((t) => `${t.symbol} ${t.address}`)
      .join(", ");
    throw apiError("invalid_request", `${field} ${address} is not a token the sandbox can swap on ${network}; use one of: ${known}.`);
  }
  return token;
}

/** Contracts that cannot take a swap: Permit2, the settler and its pool, and the network's token contracts. */
function assertTakerPermitted(network: string, taker: string): void {
  const t = taker.toLowerCase();
  const contracts = [
    PERMIT2_ADDRESS,
    SWAP_SETTLER_ADDRESS,
    SWAP_LIQUIDITY_POOL,
    "0x0000000000000000000000000000000000000000",
    ...evmTokensOf(network).map((x) => x.address),
  ];
  if (contracts.some((c) => c.toLowerCase() === t)) {
    throw apiError("forbidden", `Taker ${taker} is not permitted to perform swaps: it is a protocol or token contract (or the zero address), not an account.`);
  }
}

/**
 * Validates a swap request and prices it.
 *
 * @example priceSwap({ network: "base", fromToken: USDC, toToken: WETH, fromAmount: "3000000", taker, slippageBps: 100 })
 */
export function priceSwap(r: SwapRequest): SwapTerms {
  if (r.fromToken.toLowerCase() === r.toToken.toLowerCase())
    throw apiError("invalid_request", `fromToken and toToken are the same token (${r.fromToken}); a swap needs two different tokens.`);
  const from = tradable(r.network, r.fromToken, "fromToken");
  const to = tradable(r.network, r.toToken, "toToken");
  const fromAmount = BigInt(r.fromAmount);
  if (fromAmount === 0n) throw apiError("invalid_request", "fromAmount must be greater than 0 (in the fromToken's smallest unit).");
  if (!Number.isInteger(r.slippageBps) || r.slippageBps < 0 || r.slippageBps > 10_000)
    throw apiError("invalid_request", "slippageBps must be an integer from 0 to 10000.");
  assertTakerPermitted(r.network, r.taker);
  if (PAIRS_WITHOUT_LIQUIDITY.some(([a, b]) => (a === from.symbol && b === to.symbol) || (a === to.symbol && b === from.symbol)))
    return { liquidityAvailable: false };
  const fromPrice = USD_PRICE_MICROS[from.symbol]!;
  const toPrice = USD_PRICE_MICROS[to.symbol]!;
  // USD value of the sell, in micro-dollars, against the cap.
  if (fromAmount * fromPrice > LIQUIDITY_CAP_USD * 1_000_000n * 10n ** BigInt(from.decimals)) return { liquidityAvailable: false };
  const gross = (fromAmount * fromPrice * 10n ** BigInt(to.decimals)) / (toPrice * 10n ** BigInt(from.decimals));
  const protocolFee = (gross * PROTOCOL_FEE_BPS) / 10_000n;
  const toAmount = gross - protocolFee;
  // Too little to buy one unit of the buy token: no route exists.
  if (toAmount === 0n) return { liquidityAvailable: false };
  const minToAmount = (toAmount * BigInt(10_000 - r.slippageBps)) / 10_000n;
  return { liquidityAvailable: true, from, to, fromAmount, toAmount, protocolFee, minToAmount };
}
