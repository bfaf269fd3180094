/**
 * The sandbox's token table: the tokens the ledger knows per network, with
 * the contract addresses and decimals they have on the real chains. Native
 * ETH is listed under the conventional 0xEeee… address, as the platform's
 * balance APIs do.
 */
import { lookupTable } from "../lookup.js";

export const NATIVE_TOKEN_ADDRESS = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE" as const;

export interface EvmToken {
  symbol: string;
  name: string;
  /** EIP-55 contract address; NATIVE_TOKEN_ADDRESS for the native token. */
  address: `0x${string}`;
  decimals: number;
}

const ETH: EvmToken = { symbol: "ETH", name: "Ether", address: NATIVE_TOKEN_ADDRESS, decimals: 18 };
const POL: EvmToken = { symbol: "POL", name: "Polygon Ecosystem Token", address: NATIVE_TOKEN_ADDRESS, decimals: 18 };
const AVAX: EvmToken = { symbol: "AVAX", name: "Avalanche", address: NATIVE_TOKEN_ADDRESS, decimals: 18 };
const CBBTC: EvmToken = { symbol: "cbBTC", name: "Coinbase Wrapped BTC", address: "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf", decimals: 8 };
// Wrapped Ether of the OP Stack chains (Base, Optimism): a predeploy at the same address.
const OP_WETH: EvmToken = { symbol: "WETH", name: "Wrapped Ether", address: "0x4200000000000000000000000000000000000006", decimals: 18 };

export const EVM_TOKENS: Record<string, EvmToken[]> = lookupTable({
  base: [
    ETH,
    { symbol: "USDC", name: "USD Coin", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 },
    { symbol: "EURC", name: "EURC", address: "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42", decimals: 6 },
    CBBTC,
    OP_WETH,
  ],
  "base-sepolia": [
    ETH,
    { symbol: "USDC", name: "USD Coin", address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
    { symbol: "EURC", name: "EURC", address: "0x808456652fdb597867f38412077A9182bf77359F", decimals: 6 },
    { symbol: "cbBTC", name: "Coinbase Wrapped BTC", address: "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf", decimals: 8 },
  ],
  ethereum: [
    ETH,
    { symbol: "USDC", name: "USD Coin", address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
    { symbol: "EURC", name: "EURC", address: "0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c", decimals: 6 },
    CBBTC,
    { symbol: "WETH", name: "Wrapped Ether", address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", decimals: 18 },
  ],
  "ethereum-sepolia": [
    ETH,
    { symbol: "USDC", name: "USD Coin", address: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", decimals: 6 },
    { symbol: "EURC", name: "EURC", address: "0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4", decimals: 6 },
    { symbol: "cbBTC", name: "Coinbase Wrapped BTC", address: "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf", decimals: 8 },
  ],
  "ethereum-hoodi": [ETH],
  // Swap networks (EvmSwapsNetwork) beyond Base and Ethereum.
  arbitrum: [
    ETH,
    { symbol: "USDC", name: "USD Coin", address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", decimals: 6 },
    CBBTC,
    { symbol: "WETH", name: "Wrapped Ether", address: "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1", decimals: 18 },
  ],
  optimism: [ETH, { symbol: "USDC", name: "USD Coin", address: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", decimals: 6 }, OP_WETH],
  avalanche: [AVAX, { symbol: "USDC", name: "USD Coin", address: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", decimals: 6 }],
  polygon: [
    POL,
    { symbol: "USDC", name: "USD Coin", address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6 },
    { symbol: "WETH", name: "Wrapped Ether", address: "0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619", decimals: 18 },
  ],
});

/** Networks not listed (World Chain, Arbitrum Sepolia) have ETH as their native token and no others in the table. */
export function evmTokensOf(network: string): EvmToken[] {
  return EVM_TOKENS[network] ?? [ETH];
}

export function evmTokenBySymbol(network: string, symbol: string): EvmToken | undefined {
  return evmTokensOf(network).find((t) => t.symbol.toLowerCase() === symbol.toLowerCase());
}

/** The network's native token: ETH, or POL on Polygon and AVAX on Avalanche. */
export function nativeTokenOf(network: string): EvmToken {
  return evmTokenByAddress(network, NATIVE_TOKEN_ADDRESS) ?? ETH;
}

export function evmTokenByAddress(network: string, address: string): EvmToken | undefined {
  return evmTokensOf(network).find((t) => t.address.toLowerCase() === address.toLowerCase());
}
