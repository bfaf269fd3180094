/**
 * Transfers: create (create.ts), get, list with the platform's filters,
 * execute a quote before it expires, and travel-rule details for deposits
 * held for them. What the sandbox clock has made due is settled (settle.ts)
 * by the pipeline before any handler runs, so reads show the current state.
 */
import { apiError } from "../../errors/catalogue.js";
import { accounts } from "../accounts/model.js";
import { needsForTransfer, requireCapabilities } from "../customers/capabilities.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { paginateWhere } from "../../wallet/shared/pagination.js";
import type { Handler, Handlers, QueryParams } from "../../wallet/types.js";
import { createTransfer } from "./create.js";
import { emitTransferEvent } from "./events.js";
import { findTransfer, transfers, transferView, type TransferRecord } from "./model.js";
import { checkTravelRuleShape, missingDepositTravelRule } from "./rules.js";
import { deliver, startExecution } from "./settle.js";

const getTransferById: Handler<"getTransferById"> = (req, ctx) => ({ status: 200, body: transferView(findTransfer(ctx.store, req.pathParams.transferId)) });

const lower = (v: string | undefined) => (v?.startsWith("0x") ? v.toLowerCase() : v);

type TransferFilters = { readonly [K in keyof QueryParams<"listTransfers">]?: string };

function matchesQuery(t: TransferRecord, q: TransferFilters): boolean {
  const time = (iso: string) => Date.parse(iso);
  const sourceAddress = "address" in t.source ? t.source.address : undefined;
  const targetAddress = "address" in t.target ? t.target.address : undefined;
  const targetEmail = "email" in t.target ? t.target.email : undefined;
  return (
    (!q.status || t.status === q.status) &&
    (!q.accountId || t.sourceAccountId === q.accountId || t.targetAccountId === q.accountId) &&
    (!q.sourceAccountId || t.sourceAccountId === q.sourceAccountId) &&
    (!q.targetAccountId || t.targetAccountId === q.targetAccountId) &&
    (!q.createdAfter || time(t.createdAt) >= time(q.createdAfter)) &&
    (!q.createdBefore || time(t.createdAt) <= time(q.createdBefore)) &&
    (!q.updatedAfter || time(t.updatedAt) >= time(q.updatedAfter)) &&
    (!q.updatedBefore || time(t.updatedAt) <= time(q.updatedBefore)) &&
    (!q.sourceAsset || t.sourceAsset === q.sourceAsset.toLowerCase()) &&
    (!q.targetAsset || t.targetAsset === q.targetAsset.toLowerCase()) &&
    (!q.sourceAddress || lower(sourceAddress) === lower(q.sourceAddress)) &&
    (!q.targetAddress || lower(targetAddress) === lower(q.targetAddress)) &&
    (!q.targetEmail || targetEmail?.toLowerCase() === q.targetEmail.toLowerCase())
  );
}

const listTransfers: Handler<"listTransfers"> = (req, ctx) => {
  // Validation refuses a repeated filter (each is a single string in the contract), so none is a list here.
  const q = req.query as TransferFilters;
  if (q.accountId && (q.sourceAccountId || q.targetAccountId)) {
    throw apiError("invalid_request", "accountId (source or target) cannot be combined with sourceAccountId or targetAccountId; use one or the other.");
  }
  if (q.transferId) {
    const one = transfers(ctx.store).get(q.transferId);
    return { status: 200, body: { transfers: one && matchesQuery(one, q) ? [transferView(one)] : [] } };
  }
  const page = paginateWhere((offset, size) => transfers(ctx.store).pageWhere(offset, size, (t) => matchesQuery(t, q)), req.query, "transfers");
  return { status: 200, body: { transfers: page.items.map(transferView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const executeFundTransfer: Handler<"executeFundTransfer"> = (req, ctx) => {
  const now = ctx.clock.now();
  const t = findTransfer(ctx.store, req.pathParams.transferId);
  if (t.kind === "deposit") throw apiError("invalid_request", `Transfer ${t.transferId} is a deposit; deposits are not executed.`);
  if (t.status !== "quoted") {
    throw apiError("invalid_request", `Transfer ${t.transferId} is ${t.status} (executed at ${t.executedAt}); only a quoted transfer can be executed.`);
  }
  if (now > t.expiresAtMs!) {
    throw apiError(
      "transfer_quote_expired",
      `The fee quote of transfer ${t.transferId} expired at ${t.expiresAt}; create a new transfer for a fresh quote and execute it before its expiresAt.`,
    );
  }
  // Capabilities may have changed since the quote: check them again.
  const source = accounts(ctx.store).get(t.sourceAccountId!);
  const target = t.targetAccountId ? accounts(ctx.store).get(t.targetAccountId) : undefined;
  const cls = (symbol: string) => custodialAsset(symbol)!.class;
  requireCapabilities(
    ctx.store,
    now,
    needsForTransfer(
      { owner: source?.owner ?? "", cls: cls(t.sourceAsset) },
      { owner: target?.owner, cls: cls(t.targetAsset) },
      t.sourceAsset !== t.targetAsset,
    ),
    "execute this transfer",
  );
  return { status: 200, body: transferView(startExecution(ctx, t, now)) };
};

/** Merges a later submission over an earlier one, object by object. */
function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const prev = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && prev && typeof prev === "object"
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

const submitDepositTravelRule: Handler<"submitDepositTravelRule"> = (req, ctx) => {
  const t = findTransfer(ctx.store, req.pathParams.transferId);
  if (!t.awaitingTravelRule) {
    throw apiError(
      "invalid_request",
      `Transfer ${t.transferId} (${t.kind}, ${t.status}) is not a deposit held for travel-rule information; nothing is needed.`,
    );
  }
  const body = req.body;
  checkTravelRuleShape(body, "body");
  const info = merge(t.travelRule ?? {}, body);
  const missing = missingDepositTravelRule(info);
  const iso = ctx.clock.iso();
  if (missing.length > 0) {
    const statusMessage = `Missing travel-rule details: ${missing.join(", ")}.`;
    transfers(ctx.store).put(t.transferId, {
      ...t,
      travelRule: info,
      updatedAt: iso,
      details: { ...t.details, travelRule: { status: "incomplete", statusMessage } },
    });
    return { status: 200, body: { status: "incomplete", missingFields: missing } };
  }
  const released: TransferRecord = { ...t, travelRule: info, awaitingTravelRule: false, settlesAtMs: ctx.clock.now() };
  const details = deliver(ctx.store, released);
  const completed: TransferRecord = {
    ...released,
    status: "completed",
    completedAt: iso,
    updatedAt: iso,
    details: { ...details, travelRule: { status: "completed" } },
  };
  transfers(ctx.store).put(t.transferId, completed);
  // The details are complete, then the held deposit is credited: two transitions, two events.
  emitTransferEvent(ctx, "payments.transfers.travel_rule_completed", completed);
  emitTransferEvent(ctx, "payments.transfers.completed", completed);
  return { status: 200, body: { status: "completed", missingFields: [] } };
};

export const handlers: Handlers = { createTransfer, getTransferById, listTransfers, executeFundTransfer, submitDepositTravelRule };
