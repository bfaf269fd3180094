/**
 * OnchainKit's wallet reads on the client URL: the portfolios of any addresses (their balances on the URL's
 * network, from the ledger) and token prices, both valued with the swap price table. A token the table does not
 * price is listed at $0, as the platform lists tokens it cannot value.
 */
import { holdings } from "../../chain/balances.js";
import { type EvmToken, evmTokenByAddress, NATIVE_TOKEN_ADDRESS, nativeTokenOf } from "../../chain/tokens.js";
import { type ClientRpcContext, invalidParams, isAddress, paramObject } from "./context.js";
import { kitToken } from "./swap.js";
import { usdPrice, usdValue } from "./usd.js";

/** How many addresses one call may ask about. */
const MAX_ADDRESSES = 20;

/** params [{ addresses }]: per address, its tokens with their amounts (smallest units) and USD values, and the total. */
export function cdp_getTokensForAddresses(params: unknown[], ctx: ClientRpcContext) {
  const { addresses } = paramObject(params);
  if (!Array.isArray(addresses) || addresses.length === 0 || addresses.length > MAX_ADDRESSES || !addresses.every(isAddress))
    throw invalidParams(`addresses must be an array of 1 to ${MAX_ADDRESSES} 0x-prefixed 20-byte addresses`);
  const portfolios = addresses.map((address) => {
    const tokenBalances = holdings(ctx.store, ctx.network, address).flatMap(([asset, amount]) => {
      const token = asset === "native" ? nativeTokenOf(ctx.network) : evmTokenByAddress(ctx.network, asset);
      if (!token || amount === 0n) return [];
      const usd = usdValue(token, amount);
      return [{ ...kitToken(token, ctx.chainId), cryptoBalance: Number(amount), fiatBalance: Number(usd) }];
    });
    const total = tokenBalances.reduce((sum, t) => sum + Number(t.fiatBalance), 0);
    return {
      address,
      portfolioBalanceInUsd: Math.round(total * 1e6) / 1e6,
      tokenBalances: tokenBalances.sort((a, b) => b.fiatBalance - a.fiatBalance || a.symbol.localeCompare(b.symbol)),
    };
  });
  return { portfolios };
}

/** params [{ tokens: [address | "ETH"] }]: each token's USD price, at the sandbox clock's time. */
export function cdp_getPriceQuote(params: unknown[], ctx: ClientRpcContext) {
  const { tokens } = paramObject(params);
  if (!Array.isArray(tokens) || tokens.length === 0 || tokens.length > MAX_ADDRESSES)
    throw invalidParams(`tokens must be an array of 1 to ${MAX_ADDRESSES} token addresses or "ETH"`);
  const found: EvmToken[] = tokens.map((t) => {
    const token = t === "ETH" || t === "" ? nativeTokenOf(ctx.network) : isAddress(t) ? evmTokenByAddress(ctx.network, t) : undefined;
    if (!token) throw invalidParams(`token ${JSON.stringify(t)} is not in the sandbox's token table for ${ctx.network}`);
    return token;
  });
  const timestamp = Math.floor(ctx.clock.now() / 1000);
  return {
    priceQuotes: found.map((t) => ({
      name: t.name,
      symbol: t.symbol,
      contractAddress: t.address === NATIVE_TOKEN_ADDRESS ? "" : t.address,
      price: usdPrice(t),
      timestamp,
    })),
  };
}
