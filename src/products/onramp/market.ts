/**
 * What the sandbox's onramp sells, where, and at what price: a small fixed
 * table (also in docs/onramp.md) so quotes are reproducible. Prices are in USD;
 * fees are an exchange fee (a share of the subtotal, by payment method) and a
 * network fee (fixed per network, in USD), both charged in the payment currency.
 *
 * paymentAmount quotes are fee-inclusive (the buyer pays exactly that);
 * purchaseAmount quotes are fee-exclusive (the buyer receives exactly that).
 */
import { evmTokenBySymbol, NATIVE_TOKEN_ADDRESS } from "../../chain/evm/index.js";
import { SOL, solanaTokenBySymbol } from "../../chain/solana/index.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { divCeil, divFloor, divRound, formatUnits, fraction, parseUnits, trimUnits } from "./amounts.js";

export interface OnrampAsset {
  symbol: string;
  /** USD price of one whole unit. */
  usd: string;
  /** Decimals of the amounts quoted and delivered (never finer than the token's own). */
  precision: number;
  networks: string[];
}

const ONRAMP_ASSETS: OnrampAsset[] = [
  { symbol: "USDC", usd: "1", precision: 6, networks: ["base", "ethereum", "solana"] },
  { symbol: "ETH", usd: "3000", precision: 8, networks: ["base", "ethereum", "arbitrum", "optimism"] },
  { symbol: "EURC", usd: "1.08", precision: 6, networks: ["base", "ethereum"] },
  { symbol: "cbBTC", usd: "100000", precision: 8, networks: ["base", "ethereum"] },
  { symbol: "SOL", usd: "150", precision: 9, networks: ["solana"] },
];

/** USD value of one unit of each fiat currency the hosted flow takes (guest checkout is USD only). */
const FIAT_USD: Record<string, string> = { USD: "1", EUR: "1.08", GBP: "1.27" };

/** Network fee per order, in USD. */
const NETWORK_FEE_USD: Record<string, string> = { base: "0.10", arbitrum: "0.10", optimism: "0.10", ethereum: "1.50", solana: "0.05" };

/** Exchange fee in basis points of the subtotal, by payment method. */
const EXCHANGE_FEE_BPS: Record<string, bigint> = {
  GUEST_CHECKOUT_APPLE_PAY: 250n,
  GUEST_CHECKOUT_GOOGLE_PAY: 250n,
  CARD: 250n,
  APPLE_PAY: 250n,
  PAYPAL: 250n,
  ACH: 150n,
  FIAT_WALLET: 100n,
  CRYPTO_WALLET: 100n,
};

const CENTS = 2;

/** What the onramp sells and takes, for the listings of the v1 API the front-end kits read (v1.ts). */
export const onrampCatalogue = () => ({ assets: ONRAMP_ASSETS, fiatCurrencies: Object.keys(FIAT_USD), paymentMethods: Object.keys(EXCHANGE_FEE_BPS) });

function assetOf(purchaseCurrency: string): OnrampAsset {
  const asset = ONRAMP_ASSETS.find((a) => a.symbol.toLowerCase() === purchaseCurrency.toLowerCase());
  if (!asset)
    throw apiError(
      "invalid_request",
      `purchaseCurrency ${purchaseCurrency} cannot be bought here; the sandbox sells ${ONRAMP_ASSETS.map((a) => a.symbol).join(", ")}.`,
    );
  return asset;
}

/** The asset and network as sold together; a 400 when the asset is not offered on that network anywhere. */
export function offering(purchaseCurrency: string, destinationNetwork: string): { asset: OnrampAsset; network: string } {
  const asset = assetOf(purchaseCurrency);
  if (!asset.networks.includes(destinationNetwork)) {
    throw apiError("invalid_request", `${asset.symbol} cannot be bought on ${destinationNetwork}; it is sold on ${asset.networks.join(", ")}.`);
  }
  return { asset, network: destinationNetwork };
}

export function checkDestinationAddress(address: string, network: string): void {
  const valid = network === "solana" ? /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address) : /^0x[0-9a-fA-F]{40}$/.test(address);
  if (!valid) {
    const expected = network === "solana" ? "a base-58 Solana address" : "a 0x-prefixed 20-byte hex address";
    throw apiError("invalid_request", `The destination address ${address} is not valid for ${network}: expected ${expected}.`);
  }
}

/** Where the ledger puts the asset: token contract (or native) on EVM networks, mint (or native) on Solana. */
export function ledgerAssetOf(asset: OnrampAsset, network: string): { asset: string; decimals: number } {
  if (network === "solana") {
    const token = solanaTokenBySymbol(network, asset.symbol)!;
    return { asset: token === SOL ? "native" : token.mint, decimals: token.decimals };
  }
  const token = evmTokenBySymbol(network, asset.symbol)!;
  return { asset: token.address === NATIVE_TOKEN_ADDRESS ? NATIVE_TOKEN_ADDRESS : token.address, decimals: token.decimals };
}

export function checkFiat(paymentCurrency: string): string {
  const code = paymentCurrency.toUpperCase();
  if (!FIAT_USD[code]) throw apiError("invalid_request", `paymentCurrency ${paymentCurrency} is not supported; use ${Object.keys(FIAT_USD).join(", ")}.`);
  return code;
}

export interface Quote {
  paymentCurrency: string;
  purchaseCurrency: string;
  destinationNetwork: string;
  /** In cents of the payment currency. */
  subtotal: bigint;
  exchangeFee: bigint;
  networkFee: bigint;
  total: bigint;
  /** In units of 10^-precision of the asset. */
  purchase: bigint;
  precision: number;
  exchangeRate: string;
}

export interface QuoteInput {
  asset: OnrampAsset;
  network: string;
  paymentCurrency: string;
  paymentMethod: string;
  paymentAmount?: string;
  purchaseAmount?: string;
}

/** Prices an order from exactly one of paymentAmount (fee-inclusive) and purchaseAmount (fee-exclusive). */
export function quote(input: QuoteInput): Quote {
  const { asset, network, paymentMethod } = input;
  if (input.paymentAmount !== undefined && input.purchaseAmount !== undefined) {
    throw apiError("invalid_request", "Give either paymentAmount or purchaseAmount, not both.");
  }
  if (input.paymentAmount === undefined && input.purchaseAmount === undefined) {
    throw apiError("invalid_request", "Either paymentAmount (fiat to pay, fees included) or purchaseAmount (crypto to receive) must be provided.");
  }
  const fiat = checkFiat(input.paymentCurrency);
  const fiatUsd = fraction(FIAT_USD[fiat]!);
  const assetUsd = fraction(asset.usd);
  const scale = 10n ** BigInt(asset.precision);
  // price of one whole unit in the payment currency = assetUsd / fiatUsd
  const priceNum = assetUsd.num * fiatUsd.den;
  const priceDen = assetUsd.den * fiatUsd.num;
  const feeUsd = fraction(NETWORK_FEE_USD[network]!);
  const networkFee = divRound(feeUsd.num * 100n * fiatUsd.den, feeUsd.den * fiatUsd.num);
  const bps = EXCHANGE_FEE_BPS[paymentMethod] ?? 250n;

  let subtotal: bigint, exchangeFee: bigint, purchase: bigint, total: bigint;
  if (input.paymentAmount !== undefined) {
    total = parseUnits(input.paymentAmount, CENTS, "paymentAmount");
    subtotal = divFloor((total - networkFee) * 10_000n, 10_000n + bps);
    if (subtotal <= 0n)
      throw apiError(
        "invalid_request",
        `paymentAmount ${input.paymentAmount} ${fiat} does not cover the fees (network fee ${formatUnits(networkFee, CENTS)} ${fiat} on ${network}).`,
      );
    exchangeFee = total - networkFee - subtotal;
    purchase = divFloor(subtotal * scale * priceDen, 100n * priceNum);
  } else {
    purchase = parseUnits(input.purchaseAmount!, asset.precision, "purchaseAmount");
    subtotal = divCeil(purchase * 100n * priceNum, scale * priceDen);
    exchangeFee = divRound(subtotal * bps, 10_000n);
    total = subtotal + exchangeFee + networkFee;
  }
  if (purchase <= 0n) throw apiError("invalid_request", `The amount is too small to buy any ${asset.symbol}.`);
  return {
    paymentCurrency: fiat,
    purchaseCurrency: asset.symbol,
    destinationNetwork: network,
    subtotal,
    exchangeFee,
    networkFee,
    total,
    purchase,
    precision: asset.precision,
    exchangeRate: trimUnits(divFloor(scale * priceDen, priceNum), asset.precision),
  };
}

/** The quote in the platform's words (an order adds its own fields). */
export function quoteView(q: Quote): Schema<"OnrampQuote"> {
  return {
    paymentTotal: formatUnits(q.total, CENTS),
    paymentSubtotal: formatUnits(q.subtotal, CENTS),
    paymentCurrency: q.paymentCurrency,
    purchaseAmount: formatUnits(q.purchase, q.precision),
    purchaseCurrency: q.purchaseCurrency,
    destinationNetwork: q.destinationNetwork,
    fees: [
      { type: "FEE_TYPE_EXCHANGE" as const, amount: formatUnits(q.exchangeFee, CENTS), currency: q.paymentCurrency },
      { type: "FEE_TYPE_NETWORK" as const, amount: formatUnits(q.networkFee, CENTS), currency: q.paymentCurrency },
    ],
    exchangeRate: q.exchangeRate,
  };
}

/** A fiat amount of the payment currency in US cents (limits are kept in USD). */
export function usdCentsOf(cents: bigint, paymentCurrency: string): bigint {
  const f = fraction(FIAT_USD[paymentCurrency]!);
  return divRound(cents * f.num, f.den);
}
