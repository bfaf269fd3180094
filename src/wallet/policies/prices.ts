/**
 * The sandbox's price table for `netUSDChange`: fixed USD prices, so policy
 * outcomes are reproducible. Testnet transfers have no USD value, and the
 * criterion never holds for them (the platform ignores it on testnets).
 */
export const USD_CENTS_PER_ETH = 300_000n; // $3,000.00
/** Stablecoins valued at $1, by lowercase contract address (USDC on base, base-sepolia and ethereum). */
export const USD_STABLECOINS: Record<string, { decimals: number }> = {
  "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913": { decimals: 6 },
  "0x036cbd53842c5426634e7929541ec2318f3dcf7e": { decimals: 6 },
  "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": { decimals: 6 },
};
