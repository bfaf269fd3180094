/**
 * Disbursements: create (checked, the amount held when available, pending
 * until it lands), get, and list with the platform's filters. What the
 * sandbox clock made due has landed (settle.ts) before any handler runs.
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { accounts, holdFunds } from "../accounts/model.js";
import { custodialAsset, knownAssetList } from "../shared/custodialAssets.js";
import { toUnits } from "../shared/decimal.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import { paginateWhere } from "../../wallet/shared/pagination.js";
import { checkOnchainAddress } from "../transfers/rules.js";
import { settlementDelay } from "../transfers/settle.js";
import type { Handler, Handlers } from "../../wallet/types.js";
import { emitDisbursementEvent } from "./events.js";
import { disbursements, disbursementView, findDisbursement, PAYOUT_NETWORKS, payoutToken, type DisbursementRecord } from "./model.js";

const createDisbursement: Handler<"createDisbursement"> = (req, ctx) => {
  const body = req.body;
  checkMetadata(body.metadata);
  const asset = custodialAsset(body.asset);
  if (!asset) throw apiError("invalid_request", `asset ${body.asset} is not an asset the sandbox moves; it moves ${knownAssetList()}.`);
  if (body.source.asset.toLowerCase() !== asset.symbol) {
    throw apiError("asset_mismatch", `source.asset ${body.source.asset} is not the disbursement's asset ${asset.symbol}; a disbursement does not convert.`);
  }
  if (!accounts(ctx.store).get(body.source.accountId)) {
    throw apiError("invalid_request", `source.accountId ${body.source.accountId} is not an account of this project; GET /v2/accounts lists them.`);
  }
  const units = toUnits(body.amount, asset.decimals);
  if (units === undefined || units <= 0n) {
    throw apiError("invalid_request", `amount ${body.amount} must be a positive decimal with at most ${asset.decimals} decimals of ${asset.symbol}.`);
  }
  const target = body.target;
  if ("address" in target) {
    if (!payoutToken(target.network, asset.symbol)) {
      throw apiError(
        "invalid_request",
        `The sandbox cannot pay ${asset.symbol} on ${target.network}; it pays disbursements to addresses on ${PAYOUT_NETWORKS.join(", ")} in the tokens each carries.`,
      );
    }
    checkOnchainAddress(target.network, target.address);
  }
  const nowMs = ctx.clock.now();
  const iso = new Date(nowMs).toISOString();
  const route = "address" in target ? ({ kind: "onchain", network: target.network } as const) : ({ kind: "account" } as const);
  const record: DisbursementRecord = {
    disbursementId: `disbursement_${ctx.random.uuid()}`,
    source: body.source,
    target,
    asset: asset.symbol,
    units: units.toString(),
    status: "pending",
    ...(body.reason !== undefined ? { reason: body.reason } : {}),
    ...(body.externalReferenceId !== undefined ? { externalReferenceId: body.externalReferenceId } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.customerDisplay ? { customerDisplay: body.customerDisplay } : {}),
    createdAt: iso,
    updatedAt: iso,
    landsAtMs: nowMs + settlementDelay(route),
    // Short of funds, it is still accepted, and fails when it lands (as the platform reports it).
    held: holdFunds(ctx.store, body.source.accountId, asset.symbol, units),
  };
  // body.compliance is taken and never stored: the platform never returns it either.
  disbursements(ctx.store).insert(record.disbursementId, record);
  emitDisbursementEvent(ctx, record, nowMs);
  return { status: 200, body: disbursementView(record) };
};

const getDisbursement: Handler<"getDisbursement"> = (req, ctx) => ({
  status: 200,
  body: disbursementView(findDisbursement(ctx.store, req.pathParams.disbursementId)),
});

const listDisbursements: Handler<"listDisbursements"> = (req, ctx) => {
  const q = req.query as { status?: string; sourceAccountId?: string; externalReferenceId?: string };
  // Oldest first: the collection keeps creation order, so only the page is read.
  const matches = (d: Readonly<DisbursementRecord>) =>
    (!q.status || d.status === q.status) &&
    (!q.sourceAccountId || d.source.accountId === q.sourceAccountId) &&
    (!q.externalReferenceId || d.externalReferenceId === q.externalReferenceId);
  const page = paginateWhere((offset, size) => disbursements(ctx.store).pageWhere(offset, size, matches), req.query, "disbursements");
  const body: Schema<"Disbursement">[] = page.items.map(disbursementView);
  return { status: 200, body: { disbursements: body, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const handlers: Handlers = { createDisbursement, listDisbursements, getDisbursement };
