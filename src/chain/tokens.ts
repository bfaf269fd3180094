/**
 * The sandbox's token table: the one place that says which ERC-20 tokens
 * each network has, with the address, name, symbol and decimals their real
 * contracts report, and the EIP-712 domain of those that take signed
 * authorizations. The ledger, the node's `eth_call`, the balance APIs, swaps
 * and the x402 facilitator all read it. Native tokens are listed under the
 * conventional 0xEeee… address, as the platform's balance APIs do.
 */
import { lookupTable } from "../lookup.js";

export const NATIVE_TOKEN_ADDRESS = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE" as const;

/** An EIP-712 domain's name and version; chainId and verifyingContract come from the network and the token. */
interface Eip712Domain {
  name: string;
  version: string;
}

export interface EvmToken {
  /** What `symbol()` returns. */
  symbol: string;
  /** What `name()` returns. */
  name: string;
  /** EIP-55 contract address; NATIVE_TOKEN_ADDRESS for the native token. */
  address: `0x${string}`;
  decimals: number;
  /**
   * The domain the contract signs authorizations under (EIP-3009 `transferWithAuthorization`, EIP-2612
   * `permit`), for the tokens that take them: Circle's USDC and EURC.
   */
  eip712?: Eip712Domain;
}

const native = (symbol: string, name: string): EvmToken => ({ symbol, name, address: NATIVE_TOKEN_ADDRESS, decimals: 18 });
const erc20 = (symbol: string, name: string, address: `0x${string}`, decimals: number): EvmToken => ({ symbol, name, address, decimals });
/** Circle's FiatToken (USDC, EURC): 6 decimals, EIP-3009, and an EIP-712 domain named as the token, version "2". */
const fiatToken = (symbol: string, name: string, address: `0x${string}`): EvmToken => ({ symbol, name, address, decimals: 6, eip712: { name, version: "2" } });

const ETH = native("ETH", "Ether");
const CBBTC = erc20("cbBTC", "Coinbase Wrapped BTC", "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf", 8);
// Wrapped Ether of the OP Stack chains (Base, Optimism and OP Sepolia, World Chain): a predeploy at the same address.
const OP_WETH = erc20("WETH", "Wrapped Ether", "0x4200000000000000000000000000000000000006", 18);
// Dai on Optimism and Arbitrum: the same bridged contract address on both.
const L2_DAI = erc20("DAI", "Dai Stablecoin", "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1", 18);

export const EVM_TOKENS: Record<string, EvmToken[]> = lookupTable({
  base: [
    ETH,
    fiatToken("USDC", "USD Coin", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
    fiatToken("EURC", "EURC", "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42"),
    CBBTC,
    OP_WETH,
    erc20("DAI", "Dai Stablecoin", "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb", 18),
  ],
  // Circle's testnet USDC is named "USDC" on Base Sepolia (its EIP-712 domain too), unlike mainnet's "USD Coin".
  "base-sepolia": [
    ETH,
    fiatToken("USDC", "USDC", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
    fiatToken("EURC", "EURC", "0x808456652fdb597867f38412077A9182bf77359F"),
    CBBTC,
    OP_WETH,
  ],
  ethereum: [
    ETH,
    fiatToken("USDC", "USD Coin", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
    erc20("USDT", "Tether USD", "0xdAC17F958D2ee523a2206206994597C13D831ec7", 6),
    erc20("DAI", "Dai Stablecoin", "0x6B175474E89094C44Da98b954EedeAC495271d0F", 18),
    fiatToken("EURC", "EURC", "0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c"),
    CBBTC,
    erc20("WETH", "Wrapped Ether", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", 18),
  ],
  "ethereum-sepolia": [
    ETH,
    fiatToken("USDC", "USDC", "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"),
    fiatToken("EURC", "EURC", "0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4"),
    CBBTC,
    erc20("WETH", "Wrapped Ether", "0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14", 18),
  ],
  "ethereum-hoodi": [ETH],
  optimism: [
    ETH,
    fiatToken("USDC", "USD Coin", "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"),
    erc20("USDT", "Tether USD", "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58", 6),
    L2_DAI,
    OP_WETH,
  ],
  // Circle's testnet USDC on OP Sepolia, named "USDC" like the other testnets' (its EIP-712 domain too).
  "optimism-sepolia": [ETH, fiatToken("USDC", "USDC", "0x5fd84259d66Cd46123540766Be93DFE6D43130D7"), OP_WETH],
  arbitrum: [
    ETH,
    fiatToken("USDC", "USD Coin", "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"),
    // Arbitrum's USDT contract became USDT0, and reports itself so.
    erc20("USD₮0", "USD₮0", "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", 6),
    L2_DAI,
    CBBTC,
    erc20("WETH", "Wrapped Ether", "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1", 18),
  ],
  "arbitrum-sepolia": [ETH, fiatToken("USDC", "USD Coin", "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d")],
  polygon: [
    native("POL", "Polygon Ecosystem Token"),
    fiatToken("USDC", "USD Coin", "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"),
    erc20("USDT", "(PoS) Tether USD", "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", 6),
    erc20("DAI", "(PoS) Dai Stablecoin", "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", 18),
    erc20("WETH", "Wrapped Ether", "0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619", 18),
  ],
  // Avalanche's bridged tokens carry their ".e" symbols; Tether's own USDt is named TetherToken.
  avalanche: [
    native("AVAX", "Avalanche"),
    fiatToken("USDC", "USD Coin", "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"),
    erc20("USDt", "TetherToken", "0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7", 6),
    erc20("DAI.e", "Dai.e Token", "0xd586E7F844cEa2F87f50152665BCbc2C279D8d70", 18),
    fiatToken("EURC", "EURC", "0xC891EB4cbdEFf6e073e859e987815Ed1505c2ACD"),
    erc20("WETH.e", "Wrapped Ether", "0x49D5c2BdFfac6CE2BFdB6640F4F80f226bc10bAB", 18),
    erc20("WAVAX", "Wrapped AVAX", "0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7", 18),
  ],
  world: [
    ETH,
    fiatToken("USDC", "USDC", "0x79A02482A880bCE3F13e09Da970dC34db4CD24d1"),
    fiatToken("EURC", "EURC", "0x1C60ba0A0eD1019e8Eb035E6daF4155A5cE2380B"),
    OP_WETH,
  ],
});

/** Networks not listed (World Chain Sepolia) have ETH as their native token and no others in the table. */
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

/** An ERC-20 contract of the table (not the native token's conventional address). */
export function erc20ByAddress(network: string, address: string): EvmToken | undefined {
  const token = evmTokenByAddress(network, address);
  return token && token.address !== NATIVE_TOKEN_ADDRESS ? token : undefined;
}
