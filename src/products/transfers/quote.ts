/**
 * The sandbox's fee table and the quote it gives for a transfer. Fees depend
 * on the route (source and target assets, target kind, network, bank rail)
 * and on the amount (conversion tiers); they are integer units of an asset,
 * so a quote and its settlement agree exactly. docs/custodial.md ("Transfers") mirrors
 * these tables.
 */
import { apiError } from "../../errors/catalogue.js";
import { custodialAsset, type CustodialAsset } from "../shared/custodialAssets.js";
import { basisPoints, convertUnits, fromUnits, rateOf, toUnits, usdMicrosOf } from "../shared/decimal.js";

export type Route = { kind: "account" } | { kind: "email" } | { kind: "onchain"; network: string } | { kind: "bank"; rail: "fedwire" | "sepa" | "swift" };

/** Conversion fee in basis points of the source amount: [below $10,000, from $10,000]. */
const CONVERSION_BPS = {
  /** usd ↔ usdc, eur ↔ eurc */
  sameCurrency: [0, 0],
  /** usd/usdc ↔ eur/eurc */
  foreignExchange: [30, 20],
  /** anything ↔ eth, btc, sol */
  crypto: [100, 50],
} as const;
const CONVERSION_TIER_USD = 10_000;

/** Network fee per network and asset, in that asset, charged on every onchain payout. */
const NETWORK_FEES: Record<string, Record<string, string>> = {
  base: { usdc: "0.01", eurc: "0.01", eth: "0.000005" },
  ethereum: { usdc: "2.00", eurc: "2.00", eth: "0.0006" },
  arbitrum: { usdc: "0.01", eth: "0.00001" },
  optimism: { usdc: "0.01", eth: "0.000005" },
  avacchain: { usdc: "0.02" },
  monad: { usdc: "0.01" },
  solana: { usdc: "0.01", sol: "0.00001" },
  sui: { usdc: "0.01" },
  tempo: { usdc: "0.01" },
};

/** Bank fee per rail, in the bank account's currency. */
const BANK_FEES: Record<string, { amount: string; asset: string }> = {
  fedwire: { amount: "15.00", asset: "usd" },
  swift: { amount: "25.00", asset: "usd" },
  sepa: { amount: "0.50", asset: "eur" },
};

/** Smallest transfer, in USD value of `amount` (the platform's $1 minimum). */
const MINIMUM_USD = 1;

const family = (a: CustodialAsset) => (a.symbol === "usd" || a.symbol === "usdc" ? "usd" : a.symbol === "eur" || a.symbol === "eurc" ? "eur" : a.symbol);

export interface QuoteInput {
  source: CustodialAsset;
  target: CustodialAsset;
  /** The request's `amount` in units of `asset`. */
  amount: bigint;
  asset: CustodialAsset;
  amountType: "source" | "target";
  route: Route;
  /** Deposits arrive whatever their size: no $1 minimum. */
  anyAmount?: boolean;
}

export interface QuotedFee {
  type: "bank" | "conversion" | "network";
  units: bigint;
  asset: CustodialAsset;
}

export interface Quote {
  sourceUnits: bigint;
  targetUnits: bigint;
  fees: QuotedFee[];
  conversion: boolean;
  /** How long the quote may be executed: 10 minutes when a crypto price is involved, else 15. */
  validityMs: number;
}

function conversionBps(source: CustodialAsset, target: CustodialAsset, usdValue: bigint): number {
  const tier = usdValue >= BigInt(CONVERSION_TIER_USD) * 1_000_000n ? 1 : 0;
  if (family(source) === family(target)) return CONVERSION_BPS.sameCurrency[tier];
  if (source.class === "crypto" || target.class === "crypto") return CONVERSION_BPS.crypto[tier];
  return CONVERSION_BPS.foreignExchange[tier];
}

/** Fees charged after conversion, in the target asset. */
function targetSideFees(input: QuoteInput): QuotedFee[] {
  const { route, target } = input;
  if (route.kind === "onchain") {
    const fee = NETWORK_FEES[route.network]?.[target.symbol];
    return fee ? [{ type: "network", units: toUnits(fee, target.decimals)!, asset: target }] : [];
  }
  if (route.kind === "bank") {
    const fee = BANK_FEES[route.rail]!;
    const asset = custodialAsset(fee.asset)!;
    return [{ type: "bank", units: convertUnits(toUnits(fee.amount, asset.decimals)!, asset, target, true), asset: target }];
  }
  return [];
}

export function quoteTransfer(input: QuoteInput): Quote {
  const { source, target, asset } = input;
  const amountUsd = usdMicrosOf(input.amount, asset);
  if (!input.anyAmount && amountUsd < BigInt(MINIMUM_USD) * 1_000_000n) {
    throw apiError("transfer_amount_invalid", `amount ${fromUnits(input.amount, asset)} ${asset.symbol} is worth less than the minimum of $${MINIMUM_USD}.`);
  }
  const conversion = source.symbol !== target.symbol;
  const bps = conversion ? conversionBps(source, target, amountUsd) : 0;
  const afterFees = targetSideFees(input);
  const targetFeeUnits = afterFees.reduce((sum, f) => sum + f.units, 0n);
  let sourceUnits: bigint;
  let targetUnits: bigint;
  let conversionFee = 0n;
  if (input.amountType === "source") {
    sourceUnits = asset === source ? input.amount : convertUnits(input.amount, asset, source, true);
    conversionFee = conversion ? basisPoints(sourceUnits, bps) : 0n;
    targetUnits = convertUnits(sourceUnits - conversionFee, source, target) - targetFeeUnits;
  } else {
    targetUnits = asset === target ? input.amount : convertUnits(input.amount, asset, target);
    const sourceNet = convertUnits(targetUnits + targetFeeUnits, target, source, true);
    // The fee is bps of the gross source amount: gross = net / (1 − bps).
    const gross = bps > 0 ? (sourceNet * 10_000n + BigInt(10_000 - bps) - 1n) / BigInt(10_000 - bps) : sourceNet;
    conversionFee = gross - sourceNet;
    sourceUnits = gross;
  }
  if (targetUnits <= 0n) {
    const feeText = afterFees.map((f) => `${f.type} ${fromUnits(f.units, f.asset)} ${f.asset.symbol}`).join(", ");
    throw apiError(
      "transfer_amount_invalid",
      `amount ${fromUnits(input.amount, asset)} ${asset.symbol} does not cover the fees of this transfer (${feeText}); send more.`,
    );
  }
  const fees: QuotedFee[] = [...(conversion ? [{ type: "conversion" as const, units: conversionFee, asset: source }] : []), ...afterFees];
  const volatile = source.class === "crypto" || target.class === "crypto";
  return { sourceUnits, targetUnits, fees, conversion, validityMs: (conversion && volatile ? 10 : 15) * 60_000 };
}

export const feeViews = (fees: QuotedFee[]) => fees.map((f) => ({ type: f.type, amount: fromUnits(f.units, f.asset), asset: f.asset.symbol }));

export const exchangeRateView = (source: CustodialAsset, target: CustodialAsset) => ({
  sourceAsset: source.symbol,
  targetAsset: target.symbol,
  rate: rateOf(source, target),
});
