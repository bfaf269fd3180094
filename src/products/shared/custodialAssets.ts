/**
 * The assets custodial accounts hold and move, with the sandbox's fixed
 * prices (USD with 6 decimals, so conversions are exact bigint arithmetic)
 * and the networks each asset can be sent on. One table serves balances,
 * transfer quotes, deposit destinations and customer capabilities, which is
 * why it lives here and not in one of those domains.
 */
import { lookupTable } from "../../lookup.js";
import { evmTokenBySymbol } from "../../chain/evm/index.js";
import { solanaTokenBySymbol } from "../../chain/solana/index.js";

/** The three kinds the customer capabilities name (custodyCrypto, tradeStablecoin, transferFiat, ...). */
export type AssetClass = "fiat" | "stablecoin" | "crypto";

export interface CustodialAsset {
  symbol: string;
  name: string;
  /** What the Balance view calls its type. */
  type: "fiat" | "crypto";
  class: AssetClass;
  decimals: number;
  /** Sandbox price in micro-USD (1 USD = 1_000_000). */
  usdMicros: bigint;
}

const asset = (symbol: string, name: string, cls: AssetClass, decimals: number, usd: number): CustodialAsset => ({
  symbol,
  name,
  type: cls === "fiat" ? "fiat" : "crypto",
  class: cls,
  decimals,
  usdMicros: BigInt(Math.round(usd * 1_000_000)),
});

export const CUSTODIAL_ASSETS: Readonly<Record<string, CustodialAsset>> = lookupTable({
  usd: asset("usd", "United States Dollar", "fiat", 2, 1),
  eur: asset("eur", "Euro", "fiat", 2, 1.08),
  usdc: asset("usdc", "USD Coin", "stablecoin", 6, 1),
  eurc: asset("eurc", "Euro Coin", "stablecoin", 6, 1.08),
  // ETH at the same $3,000 the policy engine uses (src/wallet/policies/prices.ts).
  eth: asset("eth", "Ethereum", "crypto", 18, 3000),
  btc: asset("btc", "Bitcoin", "crypto", 8, 60000),
  sol: asset("sol", "Solana", "crypto", 9, 150),
});

export function custodialAsset(symbol: string): CustodialAsset | undefined {
  return CUSTODIAL_ASSETS[symbol.toLowerCase()];
}

export const knownAssetList = () => Object.keys(CUSTODIAL_ASSETS).join(", ");

/** The networks of the contract's PaymentNetwork and what each carries. */
export const NETWORK_ASSETS: Record<string, string[]> = {
  base: ["usdc", "eurc", "eth"],
  ethereum: ["usdc", "eurc", "eth"],
  arbitrum: ["usdc", "eth"],
  optimism: ["usdc", "eth"],
  avacchain: ["usdc"],
  monad: ["usdc"],
  solana: ["usdc", "sol"],
  sui: ["usdc"],
  // Tempo: an EVM-compatible payments chain; the sandbox carries USDC on it.
  tempo: ["usdc"],
};

export type AddressFamily = "evm" | "solana" | "sui";

export function addressFamilyOf(network: string): AddressFamily {
  return network === "solana" ? "solana" : network === "sui" ? "sui" : "evm";
}

/**
 * Where an onchain payout of `symbol` on `network` lands on the project's
 * simulated ledger: the ledger network and the token key (contract, mint or
 * "native"). Undefined for networks the ledger does not simulate.
 */
export function ledgerTokenOf(network: string, symbol: string): { ledgerNetwork: string; token: string; decimals: number } | undefined {
  if (network === "base" || network === "ethereum") {
    const token = evmTokenBySymbol(network, symbol === "eth" ? "ETH" : symbol);
    return token ? { ledgerNetwork: network, token: token.address, decimals: token.decimals } : undefined;
  }
  if (network === "solana") {
    const token = solanaTokenBySymbol("solana", symbol);
    return token ? { ledgerNetwork: "solana", token: symbol === "sol" ? "native" : token.mint, decimals: token.decimals } : undefined;
  }
  return undefined;
}
