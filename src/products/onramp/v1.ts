/**
 * The Onramp v1 API front-end kits call with the client API key (OnchainKit's Fund components:
 * `/onramp/v1/buy/config`, `/buy/options`, `/buy/quote`, `/buy/user/{partnerUserId}/transactions`), answered
 * from this area's own tables and orders, in v1's snake_case. A v1 quote prices exactly as a v2 order does
 * (`market.ts`) and, like the v2 `isQuote`, stores nothing: its quote_id is for display only.
 */
import { chainIdOf, evmTokenBySymbol, NATIVE_TOKEN_ADDRESS } from "../../chain/evm/index.js";
import { SOL, solanaTokenBySymbol } from "../../chain/solana/index.js";
import { ApiError, apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { formatUnits } from "./amounts.js";
import { offering, onrampCatalogue, quote } from "./market.js";
import { onrampOrders, orderView } from "./model.js";
import { checkTradable } from "./regions.js";

/** Where the sandbox's onramp sells, and the subdivisions whose rules differ (a buyer there must name it). */
const COUNTRIES = [{ id: "US", subdivisions: ["NY"] }];
/** Smallest and largest payment per order, in the payment currency. */
const LIMITS = { min: "2", max: "7500" };

const amount = (value: string, currency: string) => ({ value, currency });

export function buyConfig() {
  const { paymentMethods } = onrampCatalogue();
  return { countries: COUNTRIES.map((c) => ({ ...c, payment_methods: paymentMethods.map((id) => ({ id })) })) };
}

function checkCountry(country: unknown, subdivision: unknown): { country: string; subdivision?: string } {
  if (typeof country !== "string" || !COUNTRIES.some((c) => c.id === country.toUpperCase()))
    throw apiError("invalid_request", `country must be one of ${COUNTRIES.map((c) => c.id).join(", ")} (ISO 3166-1 alpha-2).`);
  if (subdivision !== undefined && typeof subdivision !== "string") throw apiError("invalid_request", "subdivision must be a string such as NY.");
  return { country: country.toUpperCase(), ...(subdivision ? { subdivision: subdivision.toUpperCase() } : {}) };
}

const tradable = (region: { country: string; subdivision?: string }, asset: string, network: string) => {
  try {
    checkTradable(region, asset, network);
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
};

function contractOf(symbol: string, network: string): string {
  if (network === "solana") {
    const token = solanaTokenBySymbol(network, symbol);
    return !token || token === SOL ? "" : token.mint;
  }
  const token = evmTokenBySymbol(network, symbol);
  return !token || token.address === NATIVE_TOKEN_ADDRESS ? "" : token.address;
}

/** `?country&subdivision`: the fiat currencies with each payment method's limits, and the assets with their networks there. */
export function buyOptions(query: { country?: unknown; subdivision?: unknown }) {
  const region = checkCountry(query.country, query.subdivision);
  const { assets, fiatCurrencies, paymentMethods } = onrampCatalogue();
  return {
    payment_currencies: fiatCurrencies.map((id) => ({ id, limits: paymentMethods.map((method) => ({ id: method, ...LIMITS })), icon_url: "" })),
    purchase_currencies: assets
      .map((a) => ({
        id: a.symbol,
        name: a.symbol,
        symbol: a.symbol,
        icon_url: "",
        networks: a.networks
          .filter((n) => tradable(region, a.symbol, n))
          .map((n) => ({ name: n, display_name: n, chain_id: String(chainIdOf(n) ?? 0), contract_address: contractOf(a.symbol, n) })),
      }))
      .filter((a) => a.networks.length > 0),
  };
}

/** POST body { purchase_currency, purchase_network, payment_currency, payment_method, payment_amount, country, subdivision? }. */
export function buyQuote(body: Record<string, unknown>, quoteId: string) {
  const text = (field: string) => {
    const v = body[field];
    if (typeof v !== "string" || v === "") throw apiError("invalid_request", `${field} is required (a string).`);
    return v;
  };
  const region = checkCountry(body.country, body.subdivision);
  const { asset, network } = offering(text("purchase_currency"), text("purchase_network"));
  checkTradable(region, asset.symbol, network);
  const q = quote({ asset, network, paymentCurrency: text("payment_currency"), paymentMethod: text("payment_method"), paymentAmount: text("payment_amount") });
  const cents = (v: bigint) => formatUnits(v, 2);
  return {
    payment_total: amount(cents(q.total), q.paymentCurrency),
    payment_subtotal: amount(cents(q.subtotal), q.paymentCurrency),
    purchase_amount: amount(formatUnits(q.purchase, q.precision), q.purchaseCurrency),
    coinbase_fee: amount(cents(q.exchangeFee), q.paymentCurrency),
    network_fee: amount(cents(q.networkFee), q.paymentCurrency),
    quote_id: quoteId,
  };
}

const V1_STATUS: Record<string, string> = {
  ONRAMP_ORDER_STATUS_COMPLETED: "ONRAMP_TRANSACTION_STATUS_SUCCESS",
  ONRAMP_ORDER_STATUS_FAILED: "ONRAMP_TRANSACTION_STATUS_FAILED",
  ONRAMP_ORDER_STATUS_PENDING_VERIFICATION: "ONRAMP_TRANSACTION_STATUS_CREATED",
  ONRAMP_ORDER_STATUS_PENDING_AUTH: "ONRAMP_TRANSACTION_STATUS_CREATED",
};

/** The orders whose partnerUserRef is `partnerUserId`, newest first, as v1 transactions; `page_key` is an offset. */
export function userTransactions(store: ProjectTx, nowMs: number, partnerUserId: string, query: { page_key?: unknown; page_size?: unknown }) {
  const size = typeof query.page_size === "string" && /^[0-9]{1,3}$/.test(query.page_size) && Number(query.page_size) > 0 ? Number(query.page_size) : 10;
  const offset = typeof query.page_key === "string" && /^[0-9]{1,9}$/.test(query.page_key) ? Number(query.page_key) : 0;
  const all = onrampOrders(store)
    .filter((o) => o.partnerUserRef === partnerUserId)
    .sort((a, b) => b.createdAtMs - a.createdAtMs || b.orderId.localeCompare(a.orderId));
  const transactions = all.slice(offset, offset + size).map((o) => {
    const v = orderView(o, nowMs);
    const fee = (type: string) => v.fees.find((f) => f.type === type)?.amount ?? "0";
    return {
      status: V1_STATUS[v.status] ?? "ONRAMP_TRANSACTION_STATUS_IN_PROGRESS",
      purchase_currency: v.purchaseCurrency,
      purchase_network: v.destinationNetwork,
      purchase_amount: amount(v.purchaseAmount, v.purchaseCurrency),
      payment_total: amount(v.paymentTotal, v.paymentCurrency),
      payment_subtotal: amount(v.paymentSubtotal, v.paymentCurrency),
      coinbase_fee: amount(fee("FEE_TYPE_EXCHANGE"), v.paymentCurrency),
      network_fee: amount(fee("FEE_TYPE_NETWORK"), v.paymentCurrency),
      exchange_rate: amount(v.exchangeRate, v.paymentCurrency),
      tx_hash: v.txHash ?? "",
      created_at: v.createdAt,
      country: "US",
      user_id: partnerUserId,
      payment_method: v.paymentMethod,
      transaction_id: v.orderId,
    };
  });
  return { transactions, next_page_key: offset + size < all.length ? String(offset + size) : "", total_count: String(all.length) };
}
