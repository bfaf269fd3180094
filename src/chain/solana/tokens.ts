/**
 * The Solana networks the sandbox simulates and the tokens it knows on each (SOL and USDC), with the program
 * ids that own token state. Everything else on the Solana side builds on this table.
 */
import { lookupTable } from "../../lookup.js";

export interface SolanaToken {
  symbol: string;
  name: string;
  mint: string;
  decimals: number;
}

export const SOL: SolanaToken = { symbol: "SOL", name: "Solana", mint: "So11111111111111111111111111111111111111112", decimals: 9 };

export const SOLANA_TOKENS: Record<string, SolanaToken[]> = lookupTable({
  solana: [SOL, { symbol: "USDC", name: "USD Coin", mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 }],
  "solana-devnet": [SOL, { symbol: "USDC", name: "USD Coin", mint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals: 6 }],
});

export const isSolanaNetwork = (network: string): boolean => Object.hasOwn(SOLANA_TOKENS, network);

export const solanaTokenByMint = (network: string, mint: string) => (SOLANA_TOKENS[network] ?? []).find((t) => t.mint === mint);
export const solanaTokenBySymbol = (network: string, symbol: string) =>
  (SOLANA_TOKENS[network] ?? []).find((t) => t.symbol.toLowerCase() === symbol.toLowerCase());

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
export const isTokenProgram = (program: string): boolean => program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;
