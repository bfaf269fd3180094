/**
 * Solana accounts of a project: an ed25519 seed the sandbox generated or the
 * user imported, keyed by the base-58 address (compared exactly, as the
 * platform does). Names are unique among the project's Solana accounts.
 */
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export interface SolanaAccountRecord {
  address: string;
  seedHex: string;
  name?: string;
  policies: string[];
  createdAt: string;
  updatedAt: string;
}

/** Oldest first, as the list shows them. */
const byCreation = (a: SolanaAccountRecord, b: SolanaAccountRecord) => a.createdAt.localeCompare(b.createdAt) || a.address.localeCompare(b.address);

const SOLANA_ACCOUNTS = declareCollection<SolanaAccountRecord>("solanaAccounts", { indexes: { name: (a) => a.name }, order: byCreation });

export const solanaAccounts = (store: ProjectTx): Collection<SolanaAccountRecord> => store.collection(SOLANA_ACCOUNTS);

export function solanaAccountView(record: SolanaAccountRecord): ResponseBody<"getSolanaAccount", 200> {
  return {
    address: record.address,
    ...(record.name !== undefined ? { name: record.name } : {}),
    policies: record.policies,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function findSolanaAccount(store: ProjectTx, address: string): SolanaAccountRecord {
  const record = solanaAccounts(store).get(address);
  if (!record) throw apiError("not_found", `Solana account ${address} was not found in this project.`);
  return record;
}

export function findSolanaAccountByName(store: ProjectTx, name: string): SolanaAccountRecord {
  const record = solanaAccounts(store).findBy("name", name);
  if (!record) throw apiError("not_found", `No Solana account is named ${name} in this project.`);
  return record;
}

export function assertSolanaNameFree(store: ProjectTx, name: string | undefined, except?: string): void {
  if (name === undefined) return;
  const holder = solanaAccounts(store).findBy("name", name);
  if (holder && holder.address !== except)
    throw apiError("already_exists", `A Solana account named ${name} already exists in this project (${holder.address}).`);
}
