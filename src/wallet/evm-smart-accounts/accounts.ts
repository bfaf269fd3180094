/**
 * EVM smart accounts (resources): a Coinbase Smart Wallet whose address is
 * counterfactual — CREATE2 from the wallet factory over the owners and a
 * nonce — so it is known before any deployment and the same for the same
 * owners. A second account with the same owners in a project takes the next
 * nonce. Owners are echoed exactly as submitted.
 *
 * An account has one owner, optionally followed by the SpendPermissionManager:
 * that second owner is how spend permissions are enabled (the official
 * client's `enableSpendPermissions`), and it is part of the owner set the
 * address derives from. Any other owner list is refused.
 */
import { encodeAbiParameters, getContractAddress, keccak256, toHex } from "viem";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { paginatePages } from "../shared/pagination.js";
import type { Handler } from "../types.js";

/**
 * The SpendPermissionManager's address: the second owner that enables spend permissions. The contract itself
 * (spend-permissions/manager.ts) builds on smart accounts, so its address is kept here, beneath it.
 */
export const SPEND_PERMISSION_MANAGER_ADDRESS = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad" as const;

/** Coinbase Smart Wallet factory (v1.1), as deployed on every supported network. */
export const SMART_WALLET_FACTORY = "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842" as const;
/** Stands in for the proxy init code hash: stable, documented, not claimed to be the chain's. */
const PROXY_INIT_CODE_HASH = keccak256(toHex("cdp-sandbox:coinbase-smart-wallet-proxy:v1"));

export interface SmartAccountRecord {
  address: `0x${string}`;
  owners: string[];
  name?: string;
  nonce: number;
  policies: string[];
  createdAt: string;
  updatedAt: string;
}

const EVM_SMART_ACCOUNTS = declareCollection<SmartAccountRecord>("evmSmartAccounts", {
  indexes: { name: (a) => a.name },
  order: (a, b) => a.createdAt.localeCompare(b.createdAt) || a.address.localeCompare(b.address),
});

export const smartAccounts = (store: ProjectTx): Collection<SmartAccountRecord> => store.collection(EVM_SMART_ACCOUNTS);

function smartAccountView(r: SmartAccountRecord): Schema<"EvmSmartAccount"> {
  return {
    address: r.address,
    owners: r.owners,
    ...(r.name !== undefined ? { name: r.name } : {}),
    policies: r.policies,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * The wallet's address for `owners` and `nonce`: CREATE2 from `factory` with the factory's salt
 * (keccak256(abi.encode(ownersAsBytes, nonce)), each owner its 32-byte ABI encoding) over the sandbox's
 * stand-in init code hash.
 *
 * @example counterfactualAddress(["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"], 0)
 */
export function counterfactualAddress(owners: readonly string[], nonce: number | bigint, factory: `0x${string}` = SMART_WALLET_FACTORY): `0x${string}` {
  // An address is the same in any case: a mixed-case owner whose EIP-55 checksum is wrong is still that owner.
  const encodedOwners = owners.map((o) => encodeAbiParameters([{ type: "address" }], [o.toLowerCase() as `0x${string}`]));
  const salt = keccak256(encodeAbiParameters([{ type: "bytes[]" }, { type: "uint256" }], [encodedOwners, BigInt(nonce)]));
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecodeHash: PROXY_INIT_CODE_HASH });
}

/** The owners of a new smart account: its owner, then the SpendPermissionManager when spend permissions are enabled. */
export function smartAccountOwners(owner: string, enableSpendPermissions: boolean): string[] {
  return enableSpendPermissions ? [owner, SPEND_PERMISSION_MANAGER_ADDRESS] : [owner];
}

const isManager = (address: string) => address.toLowerCase() === SPEND_PERMISSION_MANAGER_ADDRESS.toLowerCase();

/** Refuses an owner list the platform does not create an account for: one owner, optionally then the SpendPermissionManager. */
function assertOwnerList(owners: readonly string[]) {
  const [owner, second, ...rest] = owners;
  if (owner === undefined || rest.length > 0 || (second !== undefined && !isManager(second)))
    throw apiError(
      "invalid_request",
      `owners must list exactly one owner address, optionally followed by the SpendPermissionManager ${SPEND_PERMISSION_MANAGER_ADDRESS} to enable spend permissions; got ${owners.length} (${owners.join(", ") || "none"}).`,
    );
  if (isManager(owner))
    throw apiError("invalid_request", `The SpendPermissionManager ${owner} cannot be a smart account's only or first owner; list the owner first.`);
}

export function findSmartAccount(store: ProjectTx, address: string): SmartAccountRecord {
  const record = smartAccounts(store).get(address.toLowerCase());
  if (!record) throw apiError("not_found", `EVM smart account ${address} was not found in this project.`);
  return record;
}

function assertNameFree(store: ProjectTx, name: string | undefined, except?: string) {
  if (name === undefined) return;
  const holder = smartAccounts(store).findBy("name", name);
  if (holder && holder.address.toLowerCase() !== except?.toLowerCase())
    throw apiError("already_exists", `A smart account named ${name} already exists in this project (${holder.address}).`);
}

export const createEvmSmartAccount: Handler<"createEvmSmartAccount"> = (req, ctx) => {
  const { owners, name } = req.body;
  assertOwnerList(owners);
  assertNameFree(ctx.store, name);
  let nonce = 0;
  let address = counterfactualAddress(owners, nonce);
  while (smartAccounts(ctx.store).get(address.toLowerCase())) address = counterfactualAddress(owners, ++nonce);
  const now = ctx.clock.iso();
  const record: SmartAccountRecord = {
    address,
    owners: [...owners],
    ...(name !== undefined ? { name } : {}),
    nonce,
    policies: [],
    createdAt: now,
    updatedAt: now,
  };
  smartAccounts(ctx.store).put(address.toLowerCase(), record);
  return { status: 201, body: smartAccountView(record) };
};

export const getEvmSmartAccount: Handler<"getEvmSmartAccount"> = (req, ctx) => ({
  status: 200,
  body: smartAccountView(findSmartAccount(ctx.store, req.pathParams.address)),
});

export const getEvmSmartAccountByName: Handler<"getEvmSmartAccountByName"> = (req, ctx) => {
  const record = smartAccounts(ctx.store).findBy("name", req.pathParams.name);
  if (!record) throw apiError("not_found", `No smart account is named ${req.pathParams.name} in this project.`);
  return { status: 200, body: smartAccountView(record) };
};

export const listEvmSmartAccounts: Handler<"listEvmSmartAccounts"> = (req, ctx) => {
  const page = paginatePages((offset, size) => smartAccounts(ctx.store).page(offset, size), req.query, "evm-smart-accounts");
  return { status: 200, body: { accounts: page.items.map(smartAccountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const updateEvmSmartAccount: Handler<"updateEvmSmartAccount"> = (req, ctx) => {
  const record = findSmartAccount(ctx.store, req.pathParams.address);
  const { name } = req.body;
  if (name !== undefined) {
    assertNameFree(ctx.store, name, record.address);
    record.name = name;
  }
  record.updatedAt = ctx.clock.iso();
  smartAccounts(ctx.store).put(record.address.toLowerCase(), record);
  return { status: 200, body: smartAccountView(record) };
};
