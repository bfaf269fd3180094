/**
 * OnchainKit's swap methods on the client URL, from the Swaps API's own tables: the assets are the network's
 * tokens the price table prices, a quote is `priceSwap`'s terms, and a trade is a firm swap quote of the
 * project whose transaction the swap settler executes when any wallet sends it through the node. An ERC-20
 * sell is funded from an allowance to the settler, so the trade comes with the approve transaction to send
 * first (when the allowance is short), as the kit expects.
 */
import { encodeFunctionData, erc20Abi, formatUnits, type Hex, parseUnits } from "viem";
import { allowanceOf, GAS_PRICE_WEI } from "../../chain/evm/ledger.js";
import { type EvmToken, evmTokenByAddress, evmTokensOf, NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { type SwapQuoteRecord, swapQuotes } from "../../products/swaps/model.js";
import { DEFAULT_SLIPPAGE_BPS, PROTOCOL_FEE_BPS, QUOTE_LIFETIME_SECONDS } from "../../products/swaps/priceTable.js";
import { priceSwap, type SwapTerms } from "../../products/swaps/pricing.js";
import { SWAP_GAS_LIMIT, SWAP_SETTLER_ADDRESS, swapCalldata } from "../../products/swaps/settler.js";
import { ApiError } from "../../errors/catalogue.js";
import { RpcError } from "../jsonRpc.js";
import { addressField, type ClientRpcContext, invalidParams, isAddress, optionalString, paramObject } from "./context.js";
import { priceMicrosOf, usdValue } from "./usd.js";

/** A token as OnchainKit's `Token` type has it: the native token's address is the empty string. */
export function kitToken(token: EvmToken, chainId: number) {
  return {
    address: token.address === NATIVE_TOKEN_ADDRESS ? "" : token.address,
    chainId,
    decimals: token.decimals,
    image: null,
    name: token.name,
    symbol: token.symbol,
  };
}

const swappable = (network: string) => evmTokensOf(network).filter((t) => priceMicrosOf(t) !== undefined);

/** params [{ limit?, page?, search? }]: the swappable tokens, filtered by name, symbol or address, one page. */
export function cdp_listSwapAssets(params: unknown[], ctx: ClientRpcContext) {
  const filter = params[0] === undefined ? {} : paramObject(params);
  const limit = positiveInteger(filter.limit ?? "50", "limit");
  const page = positiveInteger(filter.page ?? "1", "page");
  const search = optionalString(filter, "search")?.toLowerCase();
  const matches = swappable(ctx.network).filter(
    (t) => !search || t.symbol.toLowerCase().includes(search) || t.name.toLowerCase().includes(search) || t.address.toLowerCase() === search,
  );
  return matches.slice((page - 1) * limit, page * limit).map((t) => kitToken(t, ctx.chainId));
}

function positiveInteger(value: unknown, field: string): number {
  const n = typeof value === "number" ? value : typeof value === "string" && /^[0-9]{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1) throw invalidParams(`${field} must be a positive integer`);
  return n;
}

interface SwapParams {
  from: EvmToken;
  to: EvmToken;
  amount: bigint;
  slippageBps: number;
}

function tokenParam(source: Record<string, unknown>, field: "from" | "to", network: string): EvmToken {
  const value = source[field];
  const address = value === "ETH" || value === "" ? NATIVE_TOKEN_ADDRESS : value;
  const token = isAddress(address) ? evmTokenByAddress(network, address) : undefined;
  if (!token || priceMicrosOf(token) === undefined) {
    const known = swappable(network)
      .map((t) => (t.address === NATIVE_TOKEN_ADDRESS ? "ETH" : `${t.symbol} ${t.address}`))
      .join(", ");
    throw invalidParams(`${field} ${JSON.stringify(value)} is not a token the sandbox swaps on ${network}; use one of: ${known}`);
  }
  return token;
}

/** The kit's swap parameters: amounts in the sell token's smallest units, slippage in percent ("3" = 3 %). */
function readSwapParams(params: unknown[], ctx: ClientRpcContext): SwapParams {
  const p = paramObject(params);
  const from = tokenParam(p, "from", ctx.network);
  const to = tokenParam(p, "to", ctx.network);
  if (p.amountReference !== undefined && p.amountReference !== "from")
    throw invalidParams('amountReference must be "from": the sandbox quotes the amount sold, as the v2 swap API does');
  if (typeof p.amount !== "string" || !/^[0-9]{1,78}$/.test(p.amount))
    throw invalidParams("amount must be an integer string in the sell token's smallest unit");
  const slippage = optionalString(p, "slippagePercentage");
  let slippageBps = DEFAULT_SLIPPAGE_BPS;
  if (slippage !== undefined) {
    if (!/^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(slippage) || Number(slippage) > 100) throw invalidParams("slippagePercentage must be a percentage from 0 to 100");
    slippageBps = Number(parseUnits(slippage, 2));
  }
  return { from, to, amount: BigInt(p.amount), slippageBps };
}

/** Prices a swap, turning the Swaps domain's refusals into -32602 and no liquidity into the error the kit shows. */
function terms(ctx: ClientRpcContext, s: SwapParams, taker: string): Extract<SwapTerms, { liquidityAvailable: true }> {
  let priced: SwapTerms;
  try {
    priced = priceSwap({
      network: ctx.network,
      fromToken: s.from.address,
      toToken: s.to.address,
      fromAmount: s.amount.toString(),
      taker,
      slippageBps: s.slippageBps,
    });
  } catch (error) {
    if (error instanceof ApiError) throw invalidParams(error.message);
    throw error;
  }
  if (!priced.liquidityAvailable) throw new RpcError(-32602, "insufficient liquidity: no route for this pair and amount", undefined, { fromState: true });
  return priced;
}

function quoteView(ctx: ClientRpcContext, t: Extract<SwapTerms, { liquidityAvailable: true }>, slippageBps: number) {
  return {
    amountReference: "from",
    from: kitToken(t.from, ctx.chainId),
    fromAmount: t.fromAmount.toString(),
    fromAmountUSD: usdValue(t.from, t.fromAmount),
    hasHighPriceImpact: false,
    // Fixed prices: a swap never moves the market.
    priceImpact: "0",
    slippage: formatUnits(BigInt(slippageBps), 2),
    to: kitToken(t.to, ctx.chainId),
    toAmount: t.toAmount.toString(),
    toAmountUSD: usdValue(t.to, t.toAmount),
  };
}

/** A quote without a taker is priced as if for an ordinary account: a protocol contract taker is refused at trade time. */
const ANY_ACCOUNT = "0x000000000000000000000000000000000000dEaD";

/** params [{ from, to, amount, amountReference?, slippagePercentage?, v2Enabled? }]: the terms, nothing stored. */
export function cdp_getSwapQuote(params: unknown[], ctx: ClientRpcContext) {
  const s = readSwapParams(params, ctx);
  return quoteView(ctx, terms(ctx, s, ANY_ACCOUNT), s.slippageBps);
}

/**
 * params [{ from, to, amount, fromAddress, … }]: a firm quote for `fromAddress`, stored open like the Swaps
 * API's, with the settler transaction that settles it and, for an ERC-20 sell short of allowance, the approve.
 */
export function cdp_getSwapTrade(params: unknown[], ctx: ClientRpcContext) {
  const s = readSwapParams(params, ctx);
  const taker = addressField(paramObject(params), "fromAddress");
  const t = terms(ctx, s, taker);
  const native = t.from.address === NATIVE_TOKEN_ADDRESS;
  const quote: SwapQuoteRecord = {
    quoteId: `0x${ctx.random.hex(32)}` as Hex,
    network: ctx.network,
    chainId: ctx.chainId,
    taker,
    fromToken: t.from.address,
    fromAmount: t.fromAmount.toString(),
    toToken: t.to.address,
    toAmount: t.toAmount.toString(),
    minToAmount: t.minToAmount.toString(),
    deadline: Math.floor(ctx.clock.now() / 1000) + QUOTE_LIFETIME_SECONDS,
    ...(native ? {} : { funding: "allowance" as const }),
    status: "open",
    createdAt: ctx.clock.iso(),
  };
  swapQuotes(ctx.store).insert(quote.quoteId, quote);
  const raw = (to: string, data: Hex, value: bigint, gas: bigint) => ({
    data,
    from: taker,
    gas: gas.toString(),
    gasPrice: GAS_PRICE_WEI.toString(),
    to,
    value: value.toString(),
  });
  const short = !native && allowanceOf(ctx.store, ctx.network, t.from.address, taker, SWAP_SETTLER_ADDRESS) < t.fromAmount;
  return {
    ...(short
      ? {
          approveTx: raw(
            t.from.address,
            encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SWAP_SETTLER_ADDRESS, t.fromAmount] }),
            0n,
            60_000n,
          ),
        }
      : {}),
    chainId: String(ctx.chainId),
    fee: {
      amount: t.protocolFee.toString(),
      baseAsset: kitToken(t.to, ctx.chainId),
      percentage: formatUnits(PROTOCOL_FEE_BPS, 2),
    },
    quote: quoteView(ctx, t, s.slippageBps),
    tx: raw(SWAP_SETTLER_ADDRESS, swapCalldata(quote), native ? t.fromAmount : 0n, SWAP_GAS_LIMIT),
  };
}
