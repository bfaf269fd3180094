/**
 * Solana transactions on the project's accounts (chain/solana/accounts.ts): a sent transaction runs in the runtime
 * (chain/solana/runtime.ts) against those accounts, and lands (the accounts it changed written back, its signature,
 * status, logs and balances kept in the history) or is refused and changes nothing. Where the runtime cannot
 * load, and for transactions using address lookup tables (chain/solana/lookupTables.ts), `applySolanaTransaction`,
 * the sandbox's TypeScript model, applies their SOL and SPL transfers instead. Fee: 5,000 lamports per
 * signature, burnt.
 */
import { createHash } from "node:crypto";
import { apiError } from "../../errors/catalogue.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import type { SolanaTransactionFacts } from "../../crypto/solanaInstructions.js";
import { inclusionBlock } from "../mining.js";
import { readSolanaAccount, setSolanaBalance, solanaBalanceOf, tokenAccountOwner } from "./accounts.js";
import { declareCollection } from "../../store/collections.js";
import { applyLookupTableInstructions } from "./lookupTables.js";
import type { SolanaTxError } from "./runtimeErrors.js";
import type { SolanaInnerInstructions } from "./runtime.js";

export const LAMPORTS_PER_SIGNATURE = 5000n;

/** The blockhash of a network's slot: what the node hands out, and what a transaction's recent blockhash is checked against. */
export const blockhashAt = (network: string, slot: number): Buffer => createHash("sha256").update(`cdp-sandbox:${network}:${slot}`).digest();

export interface SolanaLedgerTx {
  signature: string;
  network: string;
  slot: number;
  feePayer: string;
  status: "success" | "failed";
  submittedAtMs: number;
  /** What a transaction the runtime executed left behind (movements the platform records itself have none of it). */
  execution?: SolanaExecutionRecord;
}

/** A token account's balance before or after a transaction, as getTransaction's meta lists it. */
export interface SolanaTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: string;
  decimals: number;
}

interface SolanaExecutionRecord {
  /** The signed wire transaction, base64. */
  wire: string;
  accountKeys: string[];
  err: SolanaTxError | null;
  logs: string[];
  fee: string;
  unitsConsumed: number;
  /** Absent on records written before the sandbox kept them: read as none. */
  innerInstructions?: SolanaInnerInstructions[];
  preBalances: string[];
  postBalances: string[];
  preTokenBalances: SolanaTokenBalance[];
  postTokenBalances: SolanaTokenBalance[];
}

const SOLANA_LEDGER_TXS = declareCollection<SolanaLedgerTx>("solanaLedgerTxs");

export const solanaTxs = (store: ProjectTx) => store.collection(SOLANA_LEDGER_TXS);

/** Whom a token transfer's destination belongs to: the owner an existing token account names, else the address itself. */
function destinationOwner(store: ProjectTx, network: string, destination: string): string {
  const state = readSolanaAccount(store, network, destination);
  return (state && tokenAccountOwner(state)) ?? destination;
}

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
  const payerLamports = solanaBalanceOf(store, network, "native", feePayer);
  if (payerLamports < fee) throw apiError("insufficient_balance", `${feePayer} has ${payerLamports} lamports on ${network}; the fee is ${fee}.`);
  setSolanaBalance(store, network, "native", feePayer, payerLamports - fee);
  for (const t of facts.transfers) {
    const asset = t.kind === "sol" ? "native" : (t.mint ?? t.to);
    const from = t.kind === "sol" ? t.from : (t.authority ?? t.from);
    const held = solanaBalanceOf(store, network, asset, from);
    if (held < t.amount) {
      throw apiError(
        "insufficient_balance",
        `${from} has ${held} of ${t.kind === "sol" ? "lamports" : `token ${asset}`} on ${network}; the transaction moves ${t.amount}.`,
      );
    }
    setSolanaBalance(store, network, asset, from, held - t.amount);
    const to = t.kind === "sol" ? t.to : (t.toOwner ?? destinationOwner(store, network, t.to));
    setSolanaBalance(store, network, asset, to, solanaBalanceOf(store, network, asset, to) + t.amount);
  }
  applyLookupTableInstructions(store, network, facts);
  const record: SolanaLedgerTx = { signature, network, slot: inclusionBlock(store, clock, network), feePayer, status: "success", submittedAtMs: clock.now() };
  solanaTxs(store).put(signature, record);
  return record;
}
