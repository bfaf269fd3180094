/**
 * Custodial accounts ("entity" accounts of the Accounts API) and their
 * balances. An account belongs to the project's entity or to one of its
 * customers; it has no state machine of its own. A balance per asset has a
 * total and a held part: executing a transfer holds its source amount
 * (available = total − held), settling it either spends the hold (completed)
 * or releases it (failed). Amounts are kept in the asset's smallest unit.
 */
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { CUSTODIAL_ASSETS, custodialAsset, type CustodialAsset } from "../shared/custodialAssets.js";
import { fromUnits, usdMicrosOf } from "../shared/decimal.js";
import { derivedUuid } from "../../wallet/shared/derivedId.js";
import { declareCollection } from "../../store/collections.js";

export interface AccountRecord {
  accountId: string;
  type: "cdp";
  /** entity_<uuid> (the project's entity) or customer_<uuid>. */
  owner: string;
  name?: string;
  createdAt: string;
  updatedAt: string;
}

interface BalanceRecord {
  accountId: string;
  asset: string;
  total: string;
  held: string;
}

const CUSTODIAL_ACCOUNTS = declareCollection<AccountRecord>("custodialAccounts", { order: "insertion" });
const CUSTODIAL_BALANCES = declareCollection<BalanceRecord>("custodialBalances");

export const accounts = (store: ProjectTx): Collection<AccountRecord> => store.collection(CUSTODIAL_ACCOUNTS);
const balances = (store: ProjectTx): Collection<BalanceRecord> => store.collection(CUSTODIAL_BALANCES);

/** The project's own legal entity, owner of every account created without an owner. */
export const entityIdOf = (projectId: string) => `entity_${derivedUuid(`entity/${projectId}`)}`;

export function accountView(record: AccountRecord): ResponseBody<"getFoundationAccountById", 200> {
  return {
    accountId: record.accountId,
    type: record.type,
    owner: record.owner,
    ...(record.name !== undefined ? { name: record.name } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function findAccount(store: ProjectTx, accountId: string): AccountRecord {
  const record = accounts(store).get(accountId);
  if (!record) throw apiError("not_found", `Account ${accountId} was not found in this project.`);
  return record;
}

const balanceId = (accountId: string, asset: string) => `${accountId}|${asset}`;

function balanceOf(store: ProjectTx, accountId: string, asset: string): { total: bigint; held: bigint } {
  const record = balances(store).get(balanceId(accountId, asset));
  return { total: BigInt(record?.total ?? "0"), held: BigInt(record?.held ?? "0") };
}

function putBalance(store: ProjectTx, accountId: string, asset: string, total: bigint, held: bigint): void {
  if (total < 0n || held < 0n || held > total) throw new Error(`balance invariant broken for ${accountId} ${asset}: total ${total}, held ${held}`);
  balances(store).put(balanceId(accountId, asset), { accountId, asset, total: total.toString(), held: held.toString() });
}

export function availableUnits(store: ProjectTx, accountId: string, asset: string): bigint {
  const b = balanceOf(store, accountId, asset);
  return b.total - b.held;
}

/** Adds to the total (deposits, incoming transfers, sandbox funding). */
export function creditAccount(store: ProjectTx, accountId: string, asset: string, units: bigint): void {
  const b = balanceOf(store, accountId, asset);
  putBalance(store, accountId, asset, b.total + units, b.held);
}

/** Reserves `units` of the available balance; false (and nothing changes) when there is not enough. */
export function holdFunds(store: ProjectTx, accountId: string, asset: string, units: bigint): boolean {
  const b = balanceOf(store, accountId, asset);
  if (b.total - b.held < units) return false;
  putBalance(store, accountId, asset, b.total, b.held + units);
  return true;
}

export function releaseHold(store: ProjectTx, accountId: string, asset: string, units: bigint): void {
  const b = balanceOf(store, accountId, asset);
  putBalance(store, accountId, asset, b.total, b.held - units);
}

/** Spends funds: from a hold placed earlier, or else from the available balance (false when short). */
export function debitAccount(store: ProjectTx, accountId: string, asset: string, units: bigint, fromHold: boolean): boolean {
  const b = balanceOf(store, accountId, asset);
  if (fromHold) {
    putBalance(store, accountId, asset, b.total - units, b.held - units);
    return true;
  }
  if (b.total - b.held < units) return false;
  putBalance(store, accountId, asset, b.total - units, b.held);
  return true;
}

/** The contract's Balance: the asset's own amount, plus its value in USD for every asset that is not USD. */
export function balanceView(store: ProjectTx, accountId: string, asset: CustodialAsset): ResponseBody<"getBalanceByAsset", 200> {
  const b = balanceOf(store, accountId, asset.symbol);
  const usd = custodialAsset("usd")!;
  const inUsd = (units: bigint) => fromUnits(usdMicrosOf(units, asset) / 10_000n, usd);
  return {
    asset: { symbol: asset.symbol, type: asset.type, name: asset.name, decimals: asset.decimals },
    amount: {
      [asset.symbol]: { available: fromUnits(b.total - b.held, asset), total: fromUnits(b.total, asset) },
      ...(asset.symbol !== "usd" ? { usd: { available: inUsd(b.total - b.held), total: inUsd(b.total) } } : {}),
    },
  };
}

/** Assets the account has ever held, in the asset table's order. */
export function heldAssets(store: ProjectTx, accountId: string): string[] {
  const mine = new Set(
    balances(store)
      .filter((b) => b.accountId === accountId)
      .map((b) => b.asset),
  );
  return Object.keys(CUSTODIAL_ASSETS).filter((symbol) => mine.has(symbol));
}
