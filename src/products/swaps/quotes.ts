/**
 * What the swap operations answer, whoever the taker is (a project account or an end user's): the indicative
 * price, and the firm quote with its transaction and Permit2 data.
 */
import type { Hex } from "viem";
import {
  allowanceOf,
  chainIdOf,
  GAS_PRICE_WEI,
  NATIVE_TOKEN_ADDRESS,
  PERMIT2_ADDRESS,
  permitTransferFromHash,
  permitTransferFromTypedData,
} from "../../chain/evm/index.js";
import { balanceOf, blockNumberAt } from "../../chain/index.js";
import { SWAP_GAS_LIMIT, SWAP_SETTLER_ADDRESS, swapCalldata } from "./settler.js";
import type { ResponseBody } from "../../contract/types.js";
import type { HandlerContext } from "../../wallet/types.js";
import { swapQuotes, type SwapQuoteRecord } from "./model.js";
import { DEFAULT_SLIPPAGE_BPS, QUOTE_LIFETIME_SECONDS } from "./priceTable.js";
import { priceSwap, type SwapRequest, type SwapTerms } from "./pricing.js";

type Priced = Extract<SwapTerms, { liquidityAvailable: true }>;
type PriceBody = Extract<ResponseBody<"getEvmSwapPrice", 200>, { liquidityAvailable: true }>;
type QuoteBody = Extract<ResponseBody<"createEvmSwapQuote", 201>, { liquidityAvailable: true }>;
type Eip712 = NonNullable<QuoteBody["permit2"]>["eip712"];

const isNative = (address: string) => address.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase();

function readRequest(source: Readonly<Record<string, unknown>>): SwapRequest & { gasPrice: bigint } {
  const slippage = source.slippageBps;
  return {
    network: String(source.network),
    fromToken: String(source.fromToken),
    toToken: String(source.toToken),
    fromAmount: String(source.fromAmount),
    taker: String(source.taker),
    slippageBps: slippage === undefined ? DEFAULT_SLIPPAGE_BPS : Number(slippage),
    gasPrice: source.gasPrice === undefined ? GAS_PRICE_WEI : BigInt(String(source.gasPrice)),
  };
}

/** What the price and the quote share: amounts, fees, and the issues found on the taker's ledger today. */
function commonView(ctx: HandlerContext, network: string, taker: string, t: Priced, gasPrice: bigint) {
  const from = t.from.address;
  const allowance = isNative(from) ? undefined : allowanceOf(ctx.store, network, from, taker, PERMIT2_ADDRESS);
  const balance = balanceOf(ctx.store, network, isNative(from) ? "native" : from, taker);
  const short = balance < t.fromAmount;
  return {
    blockNumber: String(Math.max(1, blockNumberAt(network, ctx.clock.now()))),
    toAmount: t.toAmount.toString(),
    toToken: t.to.address,
    fees: {
      gasFee: { amount: (SWAP_GAS_LIMIT * gasPrice).toString(), token: NATIVE_TOKEN_ADDRESS },
      protocolFee: { amount: t.protocolFee.toString(), token: t.to.address },
    },
    issues: {
      allowance: allowance !== undefined && allowance < t.fromAmount ? { currentAllowance: allowance.toString(), spender: PERMIT2_ADDRESS } : null,
      balance: short ? { token: from, currentBalance: balance.toString(), requiredBalance: t.fromAmount.toString() } : null,
      // Without the balance the settlement cannot be simulated, as the platform says.
      simulationIncomplete: short,
    },
    liquidityAvailable: true as const,
    minToAmount: t.minToAmount.toString(),
    fromAmount: t.fromAmount.toString(),
    fromToken: from,
  };
}

/** The indicative price of a request (query or body fields), or that no liquidity is available. */
export function indicativePrice(ctx: HandlerContext, source: Readonly<Record<string, unknown>>): ResponseBody<"getEvmSwapPrice", 200> {
  const r = readRequest(source);
  const terms = priceSwap(r);
  if (!terms.liquidityAvailable) return { liquidityAvailable: false };
  const body: PriceBody = { ...commonView(ctx, r.network, r.taker, terms, r.gasPrice), gas: SWAP_GAS_LIMIT.toString(), gasPrice: r.gasPrice.toString() };
  return body;
}

/** A firm quote: stored open until its transaction settles it or its deadline passes. */
export function firmQuote(ctx: HandlerContext, source: Readonly<Record<string, unknown>>): ResponseBody<"createEvmSwapQuote", 201> {
  const r = readRequest(source);
  const terms = priceSwap(r);
  if (!terms.liquidityAvailable) return { liquidityAvailable: false };
  const chainId = chainIdOf(r.network)!;
  const deadline = Math.floor(ctx.clock.now() / 1000) + QUOTE_LIFETIME_SECONDS;
  const permit = isNative(terms.from.address)
    ? undefined
    : { chainId, token: terms.from.address, amount: terms.fromAmount, spender: SWAP_SETTLER_ADDRESS, nonce: BigInt(`0x${ctx.random.hex(16)}`), deadline };
  const quote: SwapQuoteRecord = {
    quoteId: `0x${ctx.random.hex(32)}` as Hex,
    network: r.network,
    chainId,
    taker: r.taker as `0x${string}`,
    fromToken: terms.from.address,
    fromAmount: terms.fromAmount.toString(),
    toToken: terms.to.address,
    toAmount: terms.toAmount.toString(),
    minToAmount: terms.minToAmount.toString(),
    deadline,
    ...(permit ? { permitNonce: permit.nonce.toString(), permitHash: permitTransferFromHash(permit) } : {}),
    status: "open",
    createdAt: ctx.clock.iso(),
  };
  swapQuotes(ctx.store).insert(quote.quoteId, quote);
  const body: QuoteBody = {
    ...commonView(ctx, r.network, r.taker, terms, r.gasPrice),
    // The generated EIP712Types is an open map the generator types as Record<string, never>.
    permit2: permit ? { hash: quote.permitHash!, eip712: permitTransferFromTypedData(permit) as unknown as Eip712 } : null,
    transaction: {
      to: SWAP_SETTLER_ADDRESS,
      data: swapCalldata(quote),
      gas: SWAP_GAS_LIMIT.toString(),
      gasPrice: r.gasPrice.toString(),
      value: permit ? "0" : terms.fromAmount.toString(),
    },
  };
  return body;
}
