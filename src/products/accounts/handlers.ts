/**
 * Accounts (custodial): create, get, list by owner and type, balances per
 * asset. An account created without `owner` belongs to the project's entity;
 * one owned by a customer needs that customer's custody capabilities.
 * Balances include every transfer the sandbox clock has made due: the
 * pipeline settles them before any handler runs (src/products/settle.ts).
 */
import { apiError } from "../../errors/catalogue.js";
import { requireCapabilities, needsForAccountCreation } from "../customers/capabilities.js";
import { customers } from "../customers/model.js";
import { custodialAsset, knownAssetList } from "../shared/custodialAssets.js";
import { paginate, paginateWhere } from "../../wallet/shared/pagination.js";
import type { Handler, Handlers } from "../../wallet/types.js";
import { accounts, accountView, balanceView, entityIdOf, findAccount, heldAssets, type AccountRecord } from "./model.js";

const createFoundationAccount: Handler<"createFoundationAccount"> = (req, ctx) => {
  const body = req.body;
  const entityId = entityIdOf(ctx.project.id);
  const owner = body.owner ?? entityId;
  if (owner.startsWith("entity_") && owner !== entityId) {
    throw apiError("invalid_request", `owner ${owner} is not this project's entity (${entityId}); omit owner to open an account for the entity.`);
  }
  if (owner.startsWith("customer_")) {
    const customer = customers(ctx.store).get(owner);
    if (!customer || customer.deleted)
      throw apiError("invalid_request", `owner ${owner} is not a customer of this project; create it with POST /v2/customers first.`);
    requireCapabilities(ctx.store, ctx.clock.now(), needsForAccountCreation(owner), "hold an account");
  }
  const now = ctx.clock.iso();
  const record: AccountRecord = {
    accountId: `account_${ctx.random.uuid()}`,
    type: "cdp",
    owner,
    ...(body.name !== undefined ? { name: body.name } : {}),
    createdAt: now,
    updatedAt: now,
  };
  accounts(ctx.store).insert(record.accountId, record);
  return { status: 200, body: accountView(record) };
};

const getFoundationAccountById: Handler<"getFoundationAccountById"> = (req, ctx) => ({
  status: 200,
  body: accountView(findAccount(ctx.store, req.pathParams.accountId)),
});

/** `owner` takes entity/customer (all of that kind) or exact ids, comma-separated. */
function ownerFilter(raw: string | string[] | undefined): ((owner: string) => boolean) | undefined {
  if (raw === undefined) return undefined;
  const wanted = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(",")).filter(Boolean);
  return (owner) => wanted.some((w) => (w === "entity" || w === "customer" ? owner.startsWith(`${w}_`) : owner === w));
}

const listFoundationAccounts: Handler<"listFoundationAccounts"> = (req, ctx) => {
  const byOwner = ownerFilter(req.query.owner);
  const type = req.query.type;
  const matches = (a: AccountRecord) => (!byOwner || byOwner(a.owner)) && (!type || a.type === type);
  const page = paginateWhere((offset, size) => accounts(ctx.store).pageWhere(offset, size, matches), req.query, "accounts");
  return { status: 200, body: { accounts: page.items.map(accountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const listBalances: Handler<"listBalances"> = (req, ctx) => {
  const account = findAccount(ctx.store, req.pathParams.accountId);
  const page = paginate(heldAssets(ctx.store, account.accountId), req.query, `balances/${account.accountId}`);
  return {
    status: 200,
    body: {
      balances: page.items.map((symbol) => balanceView(ctx.store, account.accountId, custodialAsset(symbol)!)),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};

const getBalanceByAsset: Handler<"getBalanceByAsset"> = (req, ctx) => {
  const account = findAccount(ctx.store, req.pathParams.accountId);
  const asset = custodialAsset(req.pathParams.asset);
  if (!asset) throw apiError("not_found", `Accounts hold no asset '${req.pathParams.asset}'; the sandbox's assets are ${knownAssetList()}.`);
  return { status: 200, body: balanceView(ctx.store, account.accountId, asset) };
};

export const handlers: Handlers = { createFoundationAccount, getFoundationAccountById, listFoundationAccounts, listBalances, getBalanceByAsset };
