import { lookupTable } from "../lookup.js";

/** EVM networks the platform names, with their chain ids and whether they are testnets. */
export const EVM_NETWORKS = lookupTable({
  base: { chainId: 8453, testnet: false },
  "base-sepolia": { chainId: 84532, testnet: true },
  ethereum: { chainId: 1, testnet: false },
  "ethereum-sepolia": { chainId: 11155111, testnet: true },
  avalanche: { chainId: 43114, testnet: false },
  polygon: { chainId: 137, testnet: false },
  optimism: { chainId: 10, testnet: false },
  "optimism-sepolia": { chainId: 11155420, testnet: true },
  arbitrum: { chainId: 42161, testnet: false },
  "arbitrum-sepolia": { chainId: 421614, testnet: true },
  world: { chainId: 480, testnet: false },
  "world-sepolia": { chainId: 4801, testnet: true },
  "ethereum-hoodi": { chainId: 560048, testnet: true },
} as const);

export function networkOfChainId(chainId: number | undefined): string | undefined {
  return Object.entries(EVM_NETWORKS).find(([, n]) => n.chainId === chainId)?.[0];
}

export function chainIdOf(network: string): number | undefined {
  return (EVM_NETWORKS as Record<string, { chainId: number }>)[network]?.chainId;
}
