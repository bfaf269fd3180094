/**
 * The Solana chain, as the platform's areas see it: the token table, the project's system and token accounts
 * (where a Solana balance lives: accounts.ts), transactions submitted to the runtime, blockhashes and lookup
 * tables. Areas import this file and the shared ledger (chain/index.ts), never the runtime behind them.
 */
export {
  decodeMint,
  lamportsOf,
  openAssociatedTokenAccount,
  setLamports,
  setTokenBalance,
  tokenBalanceOf,
  viewSolanaAccount,
} from "./accounts.js";
export { associatedTokenAddress } from "./addresses.js";
export { BLOCKHASH_VALID_SLOTS, latestBlockhash, recentBlockhash, recentBlockhashSlot } from "./blockhashes.js";
export { blockhashAt, solanaTxs } from "./ledger.js";
export { readSolanaTransactionOn } from "./lookupTables.js";
export { prepareSolanaRuntime } from "./runtime.js";
export { blockhashOf, refusalAsApiError, SolanaTransactionRefused, submitSolanaTransaction } from "./submit.js";
export {
  ASSOCIATED_TOKEN_PROGRAM,
  SOL,
  SOLANA_TOKENS,
  type SolanaToken,
  SYSTEM_PROGRAM,
  solanaTokenByMint,
  solanaTokenBySymbol,
  TOKEN_PROGRAM,
} from "./tokens.js";
