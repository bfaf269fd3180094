/**
 * Swap quotes. A price (getEvmSwapPrice) is never stored: it reserves nothing.
 * A quote (createEvmSwapQuote) is a firm offer, kept per project:
 *
 *   open ──(its transaction executes on the ledger)──▶ settled   (once; a replay reverts)
 *   open ──(the sandbox clock passes its deadline)───▶ expired   (derived, never written)
 *
 * A transaction that reverts (bad signature, missing allowance or balance,
 * deadline passed) leaves the quote open, as a reverted transaction leaves a
 * Permit2 nonce unused on chain. The settlement itself is the swap settler
 * contract of the simulated chain (`settler.ts`).
 */
import type { Hex } from "viem";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export interface SwapQuoteRecord {
  /** 32 random bytes; the first argument of the settler call. */
  quoteId: Hex;
  network: string;
  chainId: number;
  taker: `0x${string}`;
  fromToken: `0x${string}`;
  fromAmount: string;
  toToken: `0x${string}`;
  /** What the settler pays the taker (after the protocol fee). */
  toAmount: string;
  minToAmount: string;
  /** Permit2 nonce (decimal); present when the sell token is an ERC-20. */
  permitNonce?: string;
  /** Unix seconds after which the quote (and its permit) is void. */
  deadline: number;
  /** EIP-712 hash of the Permit2 PermitTransferFrom the taker signs. */
  permitHash?: Hex;
  /**
   * How the settler takes an ERC-20 sell: through Permit2 with the taker's signature appended (the Swaps API's
   * quotes; the default), or from an allowance the taker gave the settler itself (the client-side node's
   * trades, whose approve transaction comes with the trade, as front-end kits send them).
   */
  funding?: "permit2" | "allowance";
  status: "open" | "settled";
  settledBy?: Hex;
  createdAt: string;
}

const SWAP_QUOTES = declareCollection<SwapQuoteRecord>("swapQuotes");

export const swapQuotes = (store: ProjectTx): Collection<SwapQuoteRecord> => store.collection(SWAP_QUOTES);
