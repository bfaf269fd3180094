/**
 * The sandbox's borrow products: Morpho Blue markets on Base, each defined by
 * its market parameters (loan token, collateral token, oracle, interest rate
 * model, liquidation LTV) whose hash is the market's onchain id. The numbers
 * that a live market reads from its oracle and rate model are fixed here: the
 * oracle prices from the sandbox's price table, the borrow rate is a constant
 * yearly rate per market, and each market starts with the lenders' supply
 * given below. docs/borrowing.md lists the same table.
 */
import { encodeAbiParameters, getAddress, keccak256, toHex, type Hex } from "viem";
import { type EvmToken, evmTokenBySymbol } from "../../chain/evm/index.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { derivedUuid } from "../../wallet/shared/derivedId.js";

/** The Morpho Blue singleton, at its address on Base. */
export const MORPHO_ADDRESS = "0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb" as const;
/** Morpho's AdaptiveCurveIrm on Base: the rate model every market here names (its rate is fixed in the sandbox). */
const ADAPTIVE_CURVE_IRM = "0x46415998764C29aB2a25CbeA6254146D50D22687" as const;

type BorrowNetwork = Schema<"BorrowProductNetwork">;

/** One market of the catalogue, with what the sandbox needs to run it. */
export interface BorrowMarket {
  productId: string;
  network: BorrowNetwork;
  name: string;
  loanToken: EvmToken;
  collateralToken: EvmToken;
  oracle: `0x${string}`;
  irm: `0x${string}`;
  lltvBps: number;
  /** The yearly borrow rate, compounded, in basis points. */
  borrowApyBps: number;
  /** What lenders have supplied when the sandbox starts, in the loan token's smallest unit. */
  initialSupply: bigint;
  collateralEnabled: boolean;
  debtEnabled: boolean;
  /** keccak256 of the encoded market parameters: the id the Morpho contract knows the market by. */
  marketId: Hex;
}

/** Morpho's MarketParams tuple. */
export const MARKET_PARAMS = {
  type: "tuple",
  name: "marketParams",
  components: [
    { name: "loanToken", type: "address" },
    { name: "collateralToken", type: "address" },
    { name: "oracle", type: "address" },
    { name: "irm", type: "address" },
    { name: "lltv", type: "uint256" },
  ],
} as const;

export interface MarketParams {
  loanToken: `0x${string}`;
  collateralToken: `0x${string}`;
  oracle: `0x${string}`;
  irm: `0x${string}`;
  lltv: bigint;
}

/** The liquidation LTV as Morpho holds it: a WAD fraction. */
const lltvWad = (bps: number) => BigInt(bps) * 10n ** 14n;

/** Morpho's `id(marketParams)`: keccak256 of the ABI-encoded parameters. */
export function marketIdOf(p: MarketParams): Hex {
  return keccak256(encodeAbiParameters([MARKET_PARAMS], [p]));
}

export const paramsOf = (m: Pick<BorrowMarket, "loanToken" | "collateralToken" | "oracle" | "irm" | "lltvBps">): MarketParams => ({
  loanToken: m.loanToken.address,
  collateralToken: m.collateralToken.address,
  oracle: m.oracle,
  irm: m.irm,
  lltv: lltvWad(m.lltvBps),
});

function token(network: string, symbol: string): EvmToken {
  const t = evmTokenBySymbol(network, symbol);
  if (!t) throw new Error(`the token table of ${network} has no ${symbol}`);
  return t;
}

function market(
  network: BorrowNetwork,
  collateral: string,
  loan: string,
  o: { lltvBps: number; borrowApyBps: number; supply: bigint; collateralEnabled?: boolean },
): BorrowMarket {
  const loanToken = token(network, loan);
  const collateralToken = token(network, collateral);
  // The sandbox's own oracle per market, at an address derived from the pair.
  const oracle = getAddress(`0x${keccak256(toHex(`cdp-sandbox:morpho-oracle:${network}:${collateral}/${loan}`)).slice(-40)}`);
  const partial = { loanToken, collateralToken, oracle, irm: ADAPTIVE_CURVE_IRM, lltvBps: o.lltvBps };
  const marketId = marketIdOf(paramsOf(partial));
  return {
    ...partial,
    productId: `bp_${derivedUuid(`borrow-product:${network}:${marketId}`)}`,
    network,
    name: `${collateral}/${loan}`,
    borrowApyBps: o.borrowApyBps,
    initialSupply: o.supply * 10n ** BigInt(loanToken.decimals),
    collateralEnabled: o.collateralEnabled ?? true,
    debtEnabled: true,
    marketId,
  };
}

export const BORROW_MARKETS: readonly BorrowMarket[] = [
  market("base", "cbBTC", "USDC", { lltvBps: 8600, borrowApyBps: 525, supply: 25_000_000n }),
  market("base", "WETH", "USDC", { lltvBps: 8600, borrowApyBps: 480, supply: 15_000_000n }),
  market("base", "cbBTC", "EURC", { lltvBps: 8600, borrowApyBps: 610, supply: 2_000_000n }),
  // Paused for new borrowing (collateral capability disabled): open positions keep working.
  market("base", "WETH", "DAI", { lltvBps: 7700, borrowApyBps: 700, supply: 5_000_000n, collateralEnabled: false }),
];

/** The product `productId`, or 404. */
export function findMarket(productId: string): BorrowMarket {
  const m = BORROW_MARKETS.find((x) => x.productId === productId);
  if (!m) throw apiError("not_found", `Borrow product ${productId} was not found.`);
  return m;
}

/** The catalogue market with Morpho id `marketId` on `network`, if any. */
export const marketById = (network: string, marketId: string): BorrowMarket | undefined =>
  BORROW_MARKETS.find((m) => m.network === network && m.marketId === marketId.toLowerCase());

const venueId = (network: string) => `bp_venue_${derivedUuid(`borrow-venue:morpho_blue:${network}`)}`;
export const assetIdOf = (m: BorrowMarket, t: EvmToken) => `bp_asset_${derivedUuid(`${m.productId}:${t.address.toLowerCase()}`)}`;
export const tokenView = (t: EvmToken): Schema<"BorrowProductToken"> => ({ address: t.address, symbol: t.symbol, decimals: t.decimals });

export function productView(m: BorrowMarket, snapshot: Schema<"BorrowProductSnapshot">): Schema<"BorrowProduct"> {
  return {
    borrowProductId: m.productId,
    network: m.network,
    name: m.name,
    venue: { venueId: venueId(m.network), entrypointAddress: MORPHO_ADDRESS, name: "Morpho Blue on Base" },
    assets: [
      { assetId: assetIdOf(m, m.collateralToken), token: tokenView(m.collateralToken), capabilities: [{ type: "collateral", enabled: m.collateralEnabled }] },
      { assetId: assetIdOf(m, m.loanToken), token: tokenView(m.loanToken), capabilities: [{ type: "debt", enabled: m.debtEnabled }] },
    ],
    snapshot,
    protocolDetails: {
      type: "morpho_blue",
      marketParams: {
        onchainMarketId: m.marketId,
        loanToken: tokenView(m.loanToken),
        collateralToken: tokenView(m.collateralToken),
        oracleAddress: m.oracle,
        interestRateModelAddress: m.irm,
        lltvBps: m.lltvBps,
      },
    },
  };
}
