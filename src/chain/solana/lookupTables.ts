/**
 * Address lookup tables on the project's Solana ledger, per network: created and extended by sent
 * transactions calling the Address Lookup Table program, and read to resolve the accounts a v0 message
 * loads from them. Only what resolving needs is kept (authority and addresses); rent, freezing,
 * deactivation and the one-slot warm-up of new addresses are not modelled.
 */
import type { Transaction } from "@solana/kit";
import { fromBase58, toBase58 } from "../../crypto/solana.js";
import { createProgramAddress } from "./addresses.js";
import { lookupTablesOf, readSolanaTransaction, type SolanaInstruction, type SolanaTransactionFacts } from "../../crypto/solanaInstructions.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

const ADDRESS_LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111";

interface LookupTableRecord {
  network: string;
  address: string;
  authority: string;
  addresses: string[];
}

const LOOKUP_TABLES = declareCollection<LookupTableRecord>("solanaLookupTables");
const tables = (store: ProjectTx) => store.collection(LOOKUP_TABLES);
const keyOf = (network: string, address: string) => `${network}:${address}`;

/** A table's address: the program-derived address of [authority, recentSlot] with the given bump (off the ed25519 curve). */
function lookupTableAddress(authority: string, recentSlot: bigint, bump: number): string | undefined {
  const slot = Buffer.alloc(8);
  slot.writeBigUInt64LE(recentSlot);
  return createProgramAddress([fromBase58(authority), slot], bump, ADDRESS_LOOKUP_TABLE_PROGRAM);
}

/** Applies one Address Lookup Table instruction (create, extend); other instructions of the program change nothing here. */
function applyLookupTableInstruction(store: ProjectTx, network: string, ix: SolanaInstruction): void {
  const data = Buffer.from(ix.data);
  if (data.length < 4) throw apiError("malformed_transaction", "An address lookup table instruction has no instruction index.");
  const kind = data.readUInt32LE(0);
  const [table, authority] = ix.accounts;
  if (kind === 0) {
    if (data.length < 13 || !table || !authority)
      throw apiError("malformed_transaction", "CreateLookupTable needs a recent slot, a bump seed and its accounts.");
    const expected = lookupTableAddress(authority, data.readBigUInt64LE(4), data[12]!);
    if (expected !== table) throw apiError("invalid_request", `${table} is not the lookup table address of authority ${authority} at that slot and bump.`);
    if (tables(store).get(keyOf(network, table))) throw apiError("invalid_request", `Address lookup table ${table} already exists on ${network}.`);
    tables(store).put(keyOf(network, table), { network, address: table, authority, addresses: [] });
  } else if (kind === 2) {
    if (data.length < 12 || !table || !authority) throw apiError("malformed_transaction", "ExtendLookupTable needs its list of addresses and its accounts.");
    const count = Number(data.readBigUInt64LE(4));
    if (data.length !== 12 + 32 * count) throw apiError("malformed_transaction", "ExtendLookupTable's list of addresses has the wrong length.");
    const record = tables(store).get(keyOf(network, table));
    if (!record) throw apiError("invalid_request", `Address lookup table ${table} does not exist on ${network}.`);
    if (record.authority !== authority)
      throw apiError("invalid_request", `Address lookup table ${table} is governed by ${record.authority}, not ${authority}.`);
    const added = Array.from({ length: count }, (_, i) => toBase58(data.subarray(12 + 32 * i, 44 + 32 * i)));
    if (record.addresses.length + added.length > 256) throw apiError("invalid_request", "An address lookup table holds at most 256 addresses.");
    tables(store).put(keyOf(network, table), { ...record, addresses: [...record.addresses, ...added] });
  }
}

/** Applies a sent transaction's lookup table instructions, in order. */
export function applyLookupTableInstructions(store: ProjectTx, network: string, facts: SolanaTransactionFacts): void {
  for (const ix of facts.instructions) if (ix.programId === ADDRESS_LOOKUP_TABLE_PROGRAM) applyLookupTableInstruction(store, network, ix);
}

/**
 * What a transaction does, its lookup tables resolved on `network`. Without a network a transaction that loads
 * accounts from lookup tables cannot be read (400): which chain holds the tables is what the network says.
 */
export function readSolanaTransactionOn(store: ProjectTx, tx: Transaction, network: string | undefined): SolanaTransactionFacts {
  if (network === undefined) {
    const used = lookupTablesOf(tx);
    if (used.length > 0) {
      throw apiError("invalid_request", `The transaction loads accounts from address lookup tables (${used.join(", ")}); name its network to resolve them.`);
    }
    return readSolanaTransaction(tx);
  }
  return readSolanaTransaction(tx, (table) => tables(store).get(keyOf(network, table))?.addresses);
}
