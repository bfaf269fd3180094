/**
 * createTransfer: validates the route, quotes it from the fee table, and
 * either keeps the quote (`execute: false` → quoted until expiresAt) or
 * starts it at once (`execute: true` → processing). `validateOnly` answers
 * the quote and stores nothing. Every refusal happens before anything is
 * written, with the transfer errorTypes of the contract.
 */
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { accounts, availableUnits, type AccountRecord } from "../accounts/model.js";
import { needsForTransfer, requireCapabilities } from "../customers/capabilities.js";
import { usablePaymentMethod } from "../payment-methods/model.js";
import { custodialAsset, knownAssetList, NETWORK_ASSETS, type CustodialAsset } from "../shared/custodialAssets.js";
import { fromUnits, toUnits, usdMicrosOf } from "../shared/decimal.js";
import { checkMetadata } from "../../wallet/shared/metadata.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { emitTransferEvent } from "./events.js";
import { transfers, transferView, type TransferRecord } from "./model.js";
import { exchangeRateView, feeViews, quoteTransfer, type Quote, type Route } from "./quote.js";
import { checkOnchainAddress, checkTravelRuleShape, missingOutgoingTravelRule, TRAVEL_RULE_THRESHOLD_USD } from "./rules.js";
import { settlementDelay, startExecution } from "./settle.js";

type TargetInput = RequestBody<"createTransfer">["target"];

interface ResolvedTarget {
  route: Route;
  asset: CustodialAsset;
  account?: AccountRecord;
}

function targetAsset(symbol: string): CustodialAsset {
  const asset = custodialAsset(symbol);
  if (!asset) throw apiError("target_asset_not_supported", `target.asset ${symbol} is not an asset the sandbox moves; it moves ${knownAssetList()}.`);
  return asset;
}

function resolveTarget(ctx: HandlerContext, target: TargetInput, source: AccountRecord, sourceAsset: CustodialAsset): ResolvedTarget {
  const asset = targetAsset(target.asset);
  if ("accountId" in target) {
    const account = accounts(ctx.store).get(target.accountId);
    if (!account)
      throw apiError("target_account_not_found", `target.accountId ${target.accountId} is not an account of this project; GET /v2/accounts lists them.`);
    if (account.accountId === source.accountId && asset.symbol === sourceAsset.symbol) {
      throw apiError(
        "target_account_invalid",
        `target.accountId is the source account and the assets are the same (${asset.symbol}); a transfer must move funds somewhere else or convert them.`,
      );
    }
    return { route: { kind: "account" }, asset, account };
  }
  if ("paymentMethodId" in target) {
    const method = usablePaymentMethod(ctx, target.paymentMethodId);
    if (method.asset !== asset.symbol) {
      throw apiError(
        "target_asset_not_supported",
        `Payment method ${method.paymentMethodId} (${method.rail}) receives ${method.asset} only; set target.asset to ${method.asset}.`,
      );
    }
    return { route: { kind: "bank", rail: method.rail }, asset };
  }
  if ("address" in target && target.network !== undefined) {
    const carried = NETWORK_ASSETS[target.network] ?? [];
    if (!carried.includes(asset.symbol)) {
      throw apiError("target_asset_not_supported", `${asset.symbol} cannot be sent on ${target.network}; ${target.network} carries ${carried.join(", ")}.`);
    }
    checkOnchainAddress(target.network, target.address);
    return { route: { kind: "onchain", network: target.network }, asset };
  }
  return { route: { kind: "email" }, asset };
}

/** Builds a transfer record from a quote; `kind` tells transfers from deposits. */
export function newTransferRecord(
  ctx: Pick<HandlerContext, "clock" | "random">,
  r: {
    kind: TransferRecord["kind"];
    source: TransferRecord["source"];
    target: TransferRecord["target"];
    sourceAsset: CustodialAsset;
    targetAsset: CustodialAsset;
    quote: Quote;
    route: Route;
    metadata?: Record<string, string>;
  },
): TransferRecord {
  const now = ctx.clock.now();
  const iso = new Date(now).toISOString();
  const fees = feeViews(r.quote.fees);
  const rate = r.quote.conversion ? exchangeRateView(r.sourceAsset, r.targetAsset) : undefined;
  const targetAmount = fromUnits(r.quote.targetUnits, r.targetAsset);
  return {
    transferId: `transfer_${ctx.random.uuid()}`,
    kind: r.kind,
    status: "quoted",
    source: r.source,
    target: r.target,
    sourceAsset: r.sourceAsset.symbol,
    targetAsset: r.targetAsset.symbol,
    sourceUnits: r.quote.sourceUnits.toString(),
    targetUnits: r.quote.targetUnits.toString(),
    sourceAmount: fromUnits(r.quote.sourceUnits, r.sourceAsset),
    targetAmount,
    ...(rate ? { exchangeRate: rate, estimate: { exchangeRate: rate, targetAmount, targetAsset: r.targetAsset.symbol, fees, estimatedAt: iso } } : {}),
    fees,
    ...(r.metadata ? { metadata: r.metadata } : {}),
    createdAt: iso,
    updatedAt: iso,
    createdAtMs: now,
    expiresAt: new Date(now + r.quote.validityMs).toISOString(),
    expiresAtMs: now + r.quote.validityMs,
    settleAfterMs: settlementDelay(r.route),
  };
}

export const createTransfer: Handler<"createTransfer"> = (req, ctx) => {
  const body = req.body;
  checkMetadata(body.metadata);
  checkTravelRuleShape(body.travelRule, "travelRule");
  const asset = custodialAsset(body.asset);
  if (!asset) throw apiError("transfer_asset_not_supported", `asset ${body.asset} is not an asset the sandbox moves; it moves ${knownAssetList()}.`);
  const source = accounts(ctx.store).get(body.source.accountId);
  if (!source)
    throw apiError("source_account_not_found", `source.accountId ${body.source.accountId} is not an account of this project; GET /v2/accounts lists them.`);
  const sourceAsset = custodialAsset(body.source.asset);
  if (!sourceAsset)
    throw apiError("source_asset_not_supported", `source.asset ${body.source.asset} is not an asset accounts hold; they hold ${knownAssetList()}.`);
  const target = resolveTarget(ctx, body.target, source, sourceAsset);
  if (asset.symbol !== sourceAsset.symbol && asset.symbol !== target.asset.symbol) {
    throw apiError(
      "asset_mismatch",
      `asset ${asset.symbol} is neither the source asset (${sourceAsset.symbol}) nor the target asset (${target.asset.symbol}); amount must be given in one of them.`,
    );
  }
  const amount = toUnits(body.amount, asset.decimals);
  if (amount === undefined)
    throw apiError("transfer_amount_invalid", `amount ${body.amount} has more decimal places than ${asset.symbol} allows (${asset.decimals}).`);
  const quote = quoteTransfer({ source: sourceAsset, target: target.asset, amount, asset, amountType: body.amountType ?? "source", route: target.route });

  if (target.route.kind === "onchain" && usdMicrosOf(quote.sourceUnits, sourceAsset) >= BigInt(TRAVEL_RULE_THRESHOLD_USD) * 1_000_000n) {
    const missing = missingOutgoingTravelRule(body.travelRule);
    if (missing.length > 0) {
      throw apiError(
        "travel_rules_field_missing",
        `Onchain transfers worth $${TRAVEL_RULE_THRESHOLD_USD.toLocaleString("en-US")} or more need travel-rule details; missing: ${missing.map((m) => `travelRule.${m}`).join(", ")}.`,
      );
    }
  }
  requireCapabilities(
    ctx.store,
    ctx.clock.now(),
    needsForTransfer({ owner: source.owner, cls: sourceAsset.class }, { owner: target.account?.owner, cls: target.asset.class }, quote.conversion),
    "make this transfer",
  );
  const available = availableUnits(ctx.store, source.accountId, sourceAsset.symbol);
  if (available < quote.sourceUnits) {
    throw apiError(
      "insufficient_balance",
      `Account ${source.accountId} has ${fromUnits(available, sourceAsset)} ${sourceAsset.symbol} available; this transfer takes ${fromUnits(quote.sourceUnits, sourceAsset)} ${sourceAsset.symbol} including fees.`,
    );
  }

  const record = newTransferRecord(ctx, {
    kind: "transfer",
    source: body.source,
    target: body.target,
    sourceAsset,
    targetAsset: target.asset,
    quote,
    route: target.route,
    metadata: body.metadata,
  });
  record.sourceAccountId = source.accountId;
  if (target.account) record.targetAccountId = target.account.accountId;
  if (body.travelRule) record.travelRule = body.travelRule;
  if (body.validateOnly) {
    const { transferId: _id, status: _status, expiresAt: _expires, createdAt: _created, updatedAt: _updated, ...preview } = transferView(record);
    return { status: 200, body: preview };
  }
  record.expiryUnnotified = true;
  transfers(ctx.store).insert(record.transferId, record);
  // With execute: true the platform quotes first, for a moment: both events are sent.
  emitTransferEvent(ctx, "payments.transfers.quoted", record);
  const result = body.execute ? startExecution(ctx, record, ctx.clock.now()) : record;
  return { status: 200, body: transferView(result) };
};
