/**
 * What a Solana transaction does, as far as policies need to know: its
 * accounts, its instructions' programs, native (System) transfers, SPL token
 * transfers (Token and Token-2022, plain and checked) and the owners of
 * associated token accounts it creates. A v0 message's accounts from address
 * lookup tables are read when the caller can resolve the tables (the chain
 * knows them per network); otherwise only static accounts are known.
 */
import type { Transaction } from "@solana/kit";
import { apiError } from "../errors/catalogue.js";
import { compiledMessageOf } from "./solana.js";

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

export interface SolanaInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

interface SolanaTransfer {
  kind: "sol" | "spl";
  from: string;
  /** Recipient: the wallet for SOL; the token account for SPL. */
  to: string;
  /** The token account's owner when the transaction creates that associated token account. */
  toOwner?: string;
  mint?: string;
  /** For SPL: the wallet that signs for the source token account. */
  authority?: string;
  amount: bigint;
}

export interface SolanaTransactionFacts {
  /** The static accounts, then the writable and the read-only accounts loaded from lookup tables (empty when unresolved). */
  accountKeys: string[];
  instructions: SolanaInstruction[];
  transfers: SolanaTransfer[];
}

const u64 = (data: Uint8Array, at: number): bigint => Buffer.from(data).readBigUInt64LE(at);

/** The addresses a lookup table holds, or undefined when the table is unknown. */
export type LookupTableReader = (table: string) => readonly string[] | undefined;

/** The address lookup tables a v0 message loads accounts from. */
export function lookupTablesOf(tx: Transaction): string[] {
  const message = compiledMessageOf(tx);
  return "addressTableLookups" in message ? (message.addressTableLookups ?? []).map((l) => String(l.lookupTableAddress)) : [];
}

/**
 * Reads what the transaction does. With `tables`, the accounts a v0 message loads from lookup tables are
 * resolved (Solana's order: every table's writable accounts, then every table's read-only ones); a table
 * `tables` does not know, or an index past its end, is a 400.
 */
export function readSolanaTransaction(tx: Transaction, tables?: LookupTableReader): SolanaTransactionFacts {
  const message = compiledMessageOf(tx);
  const accountKeys = message.staticAccounts.map(String);
  const lookups = "addressTableLookups" in message ? (message.addressTableLookups ?? []) : [];
  if (tables && lookups.length > 0) {
    const load = (indexes: "writableIndexes" | "readonlyIndexes") =>
      lookups.flatMap((l) => {
        const table = String(l.lookupTableAddress);
        const held = tables(table);
        if (!held) throw apiError("invalid_request", `Address lookup table ${table} does not exist on this network.`);
        return l[indexes].map((i) => {
          const address = held[i];
          if (address === undefined)
            throw apiError("invalid_request", `Address lookup table ${table} has ${held.length} addresses; the transaction reads index ${i}.`);
          return address;
        });
      });
    accountKeys.push(...load("writableIndexes"), ...load("readonlyIndexes"));
  }
  const instructions: SolanaInstruction[] = (message.instructions ?? []).map((ix) => ({
    programId: accountKeys[ix.programAddressIndex] ?? "",
    accounts: (ix.accountIndices ?? []).map((i) => accountKeys[i] ?? ""),
    data: new Uint8Array(ix.data ?? []),
  }));
  const ataOwners = new Map<string, { owner: string; mint: string }>();
  for (const ix of instructions) {
    // create / createIdempotent: [payer, ata, owner, mint, system, token]
    if (ix.programId === ASSOCIATED_TOKEN_PROGRAM && ix.accounts.length >= 4) ataOwners.set(ix.accounts[1]!, { owner: ix.accounts[2]!, mint: ix.accounts[3]! });
  }
  const transfers: SolanaTransfer[] = [];
  for (const ix of instructions) {
    const d = ix.data;
    // Instructions without the accounts their layout needs would fail on chain; they move nothing here.
    if (ix.programId === SYSTEM_PROGRAM && d.length >= 12 && ix.accounts.length >= 2 && Buffer.from(d).readUInt32LE(0) === 2) {
      transfers.push({ kind: "sol", from: ix.accounts[0]!, to: ix.accounts[1]!, amount: u64(d, 4) });
    }
    if ((ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM) && d.length >= 9) {
      if (d[0] === 3 && ix.accounts.length >= 3) {
        const to = ix.accounts[1]!;
        transfers.push({
          kind: "spl",
          from: ix.accounts[0]!,
          to,
          toOwner: ataOwners.get(to)?.owner,
          mint: ataOwners.get(to)?.mint,
          authority: ix.accounts[2],
          amount: u64(d, 1),
        });
      } else if (d[0] === 12 && ix.accounts.length >= 4) {
        const to = ix.accounts[2]!;
        transfers.push({
          kind: "spl",
          from: ix.accounts[0]!,
          to,
          toOwner: ataOwners.get(to)?.owner,
          mint: ix.accounts[1]!,
          authority: ix.accounts[3],
          amount: u64(d, 1),
        });
      }
    }
  }
  return { accountKeys, instructions, transfers };
}
