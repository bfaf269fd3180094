/**
 * Solana accounts of a project (accounts.ts holds what both chains share). The key is an ed25519 seed; records
 * are keyed by the base-58 address, compared exactly, as the platform does.
 */
import { type AccountRecord, accountRecords } from "./accounts.js";

export interface SolanaAccountRecord extends AccountRecord {
  /** 32-byte seed, hex. */
  seedHex: string;
}

export const solanaAccountRecords = accountRecords<SolanaAccountRecord>({
  collection: "solanaAccounts",
  label: "Solana",
  aLabel: "A Solana",
  keyOf: (address) => address,
});

export const solanaAccounts = solanaAccountRecords.all;
export const findSolanaAccount = solanaAccountRecords.find;
