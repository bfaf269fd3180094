/** What an operation under policy looks like to the criteria. */
import type { Hex } from "viem";
import type { SolanaTransactionFacts } from "../../crypto/solanaInstructions.js";

export interface EvmCallFacts {
  to?: string | null;
  value: bigint;
  data?: Hex;
}

export type PolicyFacts =
  | { kind: "evmTransaction"; calls: EvmCallFacts[]; network?: string }
  | { kind: "evmHash" }
  | { kind: "message"; message: string }
  | { kind: "typedData"; domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }
  | { kind: "solanaTransaction"; tx: SolanaTransactionFacts; network?: string };
