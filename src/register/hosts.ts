/**
 * THE table of production endpoints the register hook sends to the sandbox:
 * the platform's API host (its REST API under /platform, the x402 facilitator
 * under /platform/v2/x402, the node under /apikeys and /rpc, Onramp v1 under /onramp/v1), the client's
 * analytics host (answered in the process), and the public JSON-RPC endpoint of
 * every network the sandbox simulates, as viem's chain definitions (this
 * version's and the earlier defaults still found in installed trees) and the
 * official client's Solana helpers name them. docs/register.md lists the same.
 */

/** Where the official client sends every REST call and, by default, its x402 facilitator calls. */
export const PLATFORM_HOST = "api.cdp.coinbase.com";

/** Where the official client posts usage and error events unless DISABLE_CDP_* switch them off. */
export const ANALYTICS_HOST = "cca-lite.coinbase.com";

/** The platform's node host: `/rpc/v1/{network}/{token}` there is the project's node on the sandbox, `/onramp/v1/…` its Onramp v1. */
export const NODE_HOST = "api.developer.coinbase.com";

/** Public JSON-RPC endpoints (https, host and path) and the sandbox network that answers them. */
export const PUBLIC_RPC_ENDPOINTS: readonly { readonly url: string; readonly network: string }[] = [
  { url: "https://mainnet.base.org", network: "base" },
  { url: "https://sepolia.base.org", network: "base-sepolia" },
  // Base's Flashblocks endpoints (viem's basePreconf / baseSepoliaPreconf chains): the same chains.
  { url: "https://mainnet-preconf.base.org", network: "base" },
  { url: "https://sepolia-preconf.base.org", network: "base-sepolia" },
  { url: "https://ethereum.reth.rs/rpc", network: "ethereum" },
  { url: "https://eth.merkle.io", network: "ethereum" },
  { url: "https://11155111.rpc.thirdweb.com", network: "ethereum-sepolia" },
  { url: "https://sepolia.drpc.org", network: "ethereum-sepolia" },
  { url: "https://rpc.hoodi.ethpandaops.io", network: "ethereum-hoodi" },
  { url: "https://arb1.arbitrum.io/rpc", network: "arbitrum" },
  { url: "https://sepolia-rollup.arbitrum.io/rpc", network: "arbitrum-sepolia" },
  { url: "https://mainnet.optimism.io", network: "optimism" },
  { url: "https://sepolia.optimism.io", network: "optimism-sepolia" },
  { url: "https://polygon.drpc.org", network: "polygon" },
  { url: "https://polygon-rpc.com", network: "polygon" },
  { url: "https://api.avax.network/ext/bc/C/rpc", network: "avalanche" },
  { url: "https://worldchain-mainnet.g.alchemy.com/public", network: "world" },
  { url: "https://worldchain-sepolia.g.alchemy.com/public", network: "world-sepolia" },
  { url: "https://api.mainnet-beta.solana.com", network: "solana" },
  { url: "https://api.devnet.solana.com", network: "solana-devnet" },
];
