/**
 * Solana on the project's ledger: lamports and SPL balances per wallet
 * (token balances are kept by the owning wallet, which is what the balance
 * API reports), faucet payouts, and sent transactions applied instruction by
 * instruction (address lookup tables in solanaLookupTables.ts). Fee: 5,000 lamports per signature, burnt.
 */
import { createHash } from "node:crypto";
import { apiError } from "../errors/catalogue.js";
import type { Clock } from "../clock.js";
import type { ProjectTx } from "../store/store.js";
import type { SolanaTransactionFacts } from "../crypto/solanaInstructions.js";
import { balanceOf, credit, setBalance } from "./ledger.js";
import { inclusionBlock } from "./mining.js";
import { declareCollection } from "../store/collections.js";
import { lookupTable } from "../lookup.js";
import { applyLookupTableInstructions } from "./solanaLookupTables.js";

export const LAMPORTS_PER_SIGNATURE = 5000n;

/** The blockhash of a network's slot: what the node hands out, and what a transaction's recent blockhash is checked against. */
export const blockhashAt = (network: string, slot: number): Buffer => createHash("sha256").update(`cdp-sandbox:${network}:${slot}`).digest();

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

export const solanaTokenByMint = (network: string, mint: string) => (SOLANA_TOKENS[network] ?? []).find((t) => t.mint === mint);
export const solanaTokenBySymbol = (network: string, symbol: string) =>
  (SOLANA_TOKENS[network] ?? []).find((t) => t.symbol.toLowerCase() === symbol.toLowerCase());

export interface SolanaLedgerTx {
  signature: string;
  network: string;
  slot: number;
  feePayer: string;
  status: "success" | "failed";
  submittedAtMs: number;
}

const SOLANA_LEDGER_TXS = declareCollection<SolanaLedgerTx>("solanaLedgerTxs");

export const solanaTxs = (store: ProjectTx) => store.collection(SOLANA_LEDGER_TXS);

/**
 * Applies a sent transaction: refused (nothing changes) when it was already processed (a signature is its
 * id: the same signed transaction sent twice lands once, as on Solana) or when the fee payer cannot pay
 * fees and transfers.
 */
export function applySolanaTransaction(
  store: ProjectTx,
  clock: Clock,
  network: string,
  signature: string,
  feePayer: string,
  signatures: number,
  facts: SolanaTransactionFacts,
): SolanaLedgerTx {
  if (solanaTxs(store).get(signature)) {
    throw apiError(
      "invalid_request",
      `This transaction has already been processed (signature ${signature}); sign it again with a new blockhash to send it again.`,
    );
  }
  const fee = LAMPORTS_PER_SIGNATURE * BigInt(Math.max(1, signatures));
  const payerLamports = balanceOf(store, network, "native", feePayer);
  if (payerLamports < fee) throw apiError("insufficient_balance", `${feePayer} has ${payerLamports} lamports on ${network}; the fee is ${fee}.`);
  setBalance(store, network, "native", feePayer, payerLamports - fee);
  for (const t of facts.transfers) {
    const asset = t.kind === "sol" ? "native" : (t.mint ?? t.to);
    const from = t.kind === "sol" ? t.from : (t.authority ?? t.from);
    const held = balanceOf(store, network, asset, from);
    if (held < t.amount) {
      throw apiError(
        "insufficient_balance",
        `${from} has ${held} of ${t.kind === "sol" ? "lamports" : `token ${asset}`} on ${network}; the transaction moves ${t.amount}.`,
      );
    }
    setBalance(store, network, asset, from, held - t.amount);
    credit(store, network, asset, t.kind === "sol" ? t.to : (t.toOwner ?? t.to), t.amount);
  }
  applyLookupTableInstructions(store, network, facts);
  const record: SolanaLedgerTx = { signature, network, slot: inclusionBlock(store, clock, network), feePayer, status: "success", submittedAtMs: clock.now() };
  solanaTxs(store).put(signature, record);
  return record;
}
