/**
 * EVM accounts of a project. A record holds the private key the sandbox
 * generated (or the user imported); it leaves the sandbox only through
 * export, encrypted. Records are keyed by lowercase address so lookups accept
 * any casing; `address` itself is EIP-55. Names are unique per project.
 */
import type { Hex } from "viem";
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export interface EvmAccountRecord {
  address: `0x${string}`;
  privateKey: Hex;
  name?: string;
  /** Policy ids attached to the account (at most one: `accountPolicy`). */
  policies: string[];
  createdAt: string;
  updatedAt: string;
}

/** Oldest first, as the list shows them. */
const byCreation = (a: EvmAccountRecord, b: EvmAccountRecord) => a.createdAt.localeCompare(b.createdAt) || a.address.localeCompare(b.address);

const EVM_ACCOUNTS = declareCollection<EvmAccountRecord>("evmAccounts", { indexes: { name: (a) => a.name }, order: byCreation });

export const evmAccounts = (store: ProjectTx): Collection<EvmAccountRecord> => store.collection(EVM_ACCOUNTS);

/** What the API shows of an account: never the key. */
export function evmAccountView(record: EvmAccountRecord): ResponseBody<"getEvmAccount", 200> {
  return {
    address: record.address,
    ...(record.name !== undefined ? { name: record.name } : {}),
    policies: record.policies,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function findEvmAccount(store: ProjectTx, address: string): EvmAccountRecord {
  const record = evmAccounts(store).get(address.toLowerCase());
  if (!record) throw apiError("not_found", `EVM account ${address} was not found in this project.`);
  return record;
}

export function findEvmAccountByName(store: ProjectTx, name: string): EvmAccountRecord {
  const record = evmAccounts(store).findBy("name", name);
  if (!record) throw apiError("not_found", `No EVM account is named ${name} in this project.`);
  return record;
}

export function assertEvmNameFree(store: ProjectTx, name: string | undefined, except?: string): void {
  if (name === undefined) return;
  const holder = evmAccounts(store).findBy("name", name);
  if (holder && holder.address.toLowerCase() !== except?.toLowerCase()) {
    throw apiError("already_exists", `An EVM account named ${name} already exists in this project (${holder.address}).`);
  }
}
