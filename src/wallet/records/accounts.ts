/**
 * A project's server accounts, EVM and Solana alike. A record holds the key the sandbox generated (or the user
 * imported), which leaves the sandbox only through export, encrypted; a name unique among the project's accounts
 * of its chain; the policy attached; when it was made and last changed. A chain says what differs in its
 * `AccountKind`: how its addresses compare (an EVM address in any casing finds its account, a Solana address
 * only exactly, as the platform does) and how messages name its accounts. Its record adds the key material.
 */
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export interface AccountRecord {
  address: string;
  name?: string;
  /** Policy ids attached to the account (at most one: `accountPolicy`). */
  policies: string[];
  createdAt: string;
  updatedAt: string;
}

interface AccountKind {
  /** The collection's name in the store, and so in data files and exports. */
  collection: string;
  /** The chain as messages name its accounts: "EVM account 0x… was not found". */
  label: string;
  /** The same after an indefinite article: "An EVM account named … already exists". */
  aLabel: string;
  /** The key a record is stored and found under. */
  keyOf(address: string): string;
}

/** The records of one chain's accounts, and the refusals every operation on them shares. */
export interface AccountRecords<R extends AccountRecord> {
  all(store: ProjectTx): Collection<R>;
  /** The account at `address`, or 404 not_found. */
  find(store: ProjectTx, address: string): R;
  /** The account named `name`, or 404 not_found. */
  findByName(store: ProjectTx, name: string): R;
  /** 409 already_exists when another account of the chain (not the one at `except`) holds `name`. */
  assertNameFree(store: ProjectTx, name: string | undefined, except?: string): void;
  /** 409 already_exists when the project holds an account at `address` (an import of a key it already has). */
  assertAddressFree(store: ProjectTx, address: string): void;
  put(store: ProjectTx, record: R): void;
  /**
   * The checks of a bulk of new accounts (an init file's) into a project that holds none of the chain yet, or
   * undefined when it holds some: a name or address is then taken only by an account of the bulk, which these
   * checks keep, so none is looked up in the store (whose index of names is then neither built nor kept up to date
   * while the bulk writes; the first read after builds it). Same refusals as assertNameFree and assertAddressFree.
   */
  newAccountChecks(store: ProjectTx): AccountChecks | undefined;
}

/** What assertNameFree and assertAddressFree check, for the accounts a bulk writes (`claim` each as it is written). */
export interface AccountChecks {
  assertNameFree(name: string | undefined): void;
  assertAddressFree(address: string): void;
  claim(record: AccountRecord): void;
}

/** Oldest first, as the list shows them. */
const byCreation = (a: AccountRecord, b: AccountRecord) => a.createdAt.localeCompare(b.createdAt) || a.address.localeCompare(b.address);

export function accountRecords<R extends AccountRecord>(chain: AccountKind): AccountRecords<R> {
  const ACCOUNTS = declareCollection<R>(chain.collection, { indexes: { name: (a) => a.name }, order: byCreation });
  const all = (store: ProjectTx): Collection<R> => store.collection(ACCOUNTS);
  return {
    all,
    find(store, address) {
      const record = all(store).get(chain.keyOf(address));
      if (!record) throw apiError("not_found", `${chain.label} account ${address} was not found in this project.`);
      return record;
    },
    findByName(store, name) {
      const record = all(store).findBy("name", name);
      if (!record) throw apiError("not_found", `No ${chain.label} account is named ${name} in this project.`);
      return record;
    },
    assertNameFree(store, name, except) {
      if (name === undefined) return;
      const holder = all(store).findBy("name", name);
      if (holder && (except === undefined || chain.keyOf(holder.address) !== chain.keyOf(except))) throw nameTaken(name, holder.address);
    },
    assertAddressFree(store, address) {
      if (all(store).get(chain.keyOf(address))) throw addressTaken(address);
    },
    put: (store, record) => all(store).put(chain.keyOf(record.address), record),
    newAccountChecks(store) {
      if (all(store).find(() => true) !== undefined) return undefined;
      const names = new Map<string, string>();
      const addresses = new Set<string>();
      return {
        assertNameFree(name) {
          const holder = name === undefined ? undefined : names.get(name);
          if (holder !== undefined) throw nameTaken(name!, holder);
        },
        assertAddressFree(address) {
          if (addresses.has(chain.keyOf(address))) throw addressTaken(address);
        },
        claim(record) {
          if (record.name !== undefined) names.set(record.name, record.address);
          addresses.add(chain.keyOf(record.address));
        },
      };
    },
  };

  function nameTaken(name: string, holder: string) {
    return apiError("already_exists", `${chain.aLabel} account named ${name} already exists in this project (${holder}).`);
  }

  function addressTaken(address: string) {
    return apiError("already_exists", `${chain.label} account ${address} already exists in this project.`);
  }
}

/** What the API shows of an account, on either chain: never the key. */
export function accountView(record: AccountRecord): ResponseBody<"getEvmAccount", 200> & ResponseBody<"getSolanaAccount", 200> {
  return {
    address: record.address,
    ...(record.name !== undefined ? { name: record.name } : {}),
    policies: record.policies,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
