/**
 * Deposit destinations: create (crypto address or US bank account), get,
 * list with the platform's filters. Creating one for a customer's account
 * needs that customer's custody capabilities (src/products/customers/capabilities.ts).
 */
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { accounts, findAccount } from "../accounts/model.js";
import { needsForDepositDestination, requireCapabilities } from "../customers/capabilities.js";
import { customers } from "../customers/model.js";
import { custodialAsset, knownAssetList, NETWORK_ASSETS } from "../shared/custodialAssets.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import { paginateWhere } from "../../wallet/shared/pagination.js";
import { checkOnchainAddress } from "../transfers/rules.js";
import type { Handler, HandlerContext, Handlers, QueryParams } from "../../wallet/types.js";
import {
  depositDestinations,
  depositDestinationView,
  findDepositDestination,
  newBankAccount,
  newDepositAddress,
  type DepositDestinationRecord,
} from "./model.js";

type TargetInput = NonNullable<RequestBody<"createDepositDestination">["target"]>;

function checkTarget(ctx: HandlerContext, target: TargetInput, accountId: string): DepositDestinationRecord["target"] {
  if (!custodialAsset(target.asset))
    throw apiError("invalid_request", `target.asset ${target.asset} is not an asset accounts hold; they hold ${knownAssetList()}.`);
  if ("address" in target && target.network !== undefined) {
    const carried = NETWORK_ASSETS[target.network] ?? [];
    if (!carried.includes(target.asset))
      throw apiError("invalid_request", `target.asset ${target.asset} cannot be forwarded on ${target.network}; it carries ${carried.join(", ")}.`);
    checkOnchainAddress(target.network, target.address);
    return target;
  }
  const creditTo = ("accountId" in target ? target.accountId : undefined) ?? accountId;
  if (!accounts(ctx.store).get(creditTo)) throw apiError("not_found", `target.accountId ${creditTo} is not an account of this project.`);
  return { accountId: creditTo, asset: target.asset.toLowerCase() };
}

const createDepositDestination: Handler<"createDepositDestination"> = (req, ctx) => {
  const body = req.body;
  checkMetadata(body.metadata);
  const account = findAccount(ctx.store, body.accountId);
  const type = body.type;
  const fiatInput = body.type === "fiat" ? body.fiat : undefined;
  const network = body.type === "crypto" ? body.crypto.network : undefined;
  const target = checkTarget(ctx, body.target ?? { asset: type === "crypto" ? "usdc" : "usd" }, account.accountId);
  requireCapabilities(ctx.store, ctx.clock.now(), needsForDepositDestination(account.owner, type), `receive ${type} deposits`);
  const now = ctx.clock.now();
  const owner = account.owner.startsWith("customer_") ? customers(ctx.store).get(account.owner) : undefined;
  const beneficiary = [owner?.individual.firstName, owner?.individual.lastName].filter(Boolean).join(" ") || account.name || "CDP Entity";
  const record: DepositDestinationRecord = {
    depositDestinationId: `depositDestination_${ctx.random.uuid()}`,
    accountId: account.accountId,
    type,
    ...(network ? { crypto: { network, address: newDepositAddress(network, ctx.random) } } : {}),
    ...(fiatInput ? { fiat: newBankAccount(ctx.random, beneficiary, fiatInput.paymentRail) } : {}),
    target,
    ...(body.metadata ? { metadata: body.metadata } : {}),
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    createdAtMs: now,
  };
  depositDestinations(ctx.store).insert(record.depositDestinationId, record);
  return { status: 201, body: depositDestinationView(record, now) };
};

const getDepositDestinationById: Handler<"getDepositDestinationById"> = (req, ctx) => ({
  status: 200,
  body: depositDestinationView(findDepositDestination(ctx.store, req.pathParams.depositDestinationId), ctx.clock.now()),
});

type DepositDestinationFilters = { readonly [K in keyof QueryParams<"listDepositDestinations">]?: string };

const listDepositDestinations: Handler<"listDepositDestinations"> = (req, ctx) => {
  // Validation refuses a repeated filter (each is a single string in the contract), so none is a list here.
  const q = req.query as DepositDestinationFilters;
  const key = (a: string) => (a.startsWith("0x") ? a.toLowerCase() : a);
  const matches = (d: Readonly<DepositDestinationRecord>) =>
    (!q.accountId || d.accountId === q.accountId) &&
    (!q.type || d.type === q.type) &&
    (!q.network || d.crypto?.network === q.network) &&
    (!q.address || (d.crypto !== undefined && key(d.crypto.address) === key(q.address)));
  const page = paginateWhere((offset, size) => depositDestinations(ctx.store).pageWhere(offset, size, matches), req.query, "deposit-destinations");
  return {
    status: 200,
    body: {
      depositDestinations: page.items.map((d) => depositDestinationView(d, ctx.clock.now())),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};

export const handlers: Handlers = { createDepositDestination, getDepositDestinationById, listDepositDestinations };
