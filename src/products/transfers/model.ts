/**
 * Transfers and their state machine, with the contract's four statuses:
 *
 *   create, execute false ─→ quoted ──execute before expiresAt──→ processing
 *   create, execute true  ─────────────────────────────────────→ processing
 *   processing ──settlesAt reached on the sandbox clock──→ completed | failed
 *
 * A quote past its expiresAt stays `quoted` (the contract has no expired
 * status) and can no longer be executed (transfer_quote_expired); its expiry
 * is announced once (payments.transfers.expired, see events.ts). Executing
 * holds the source amount; settling spends the hold and delivers (completed)
 * or releases it (failed, with failureReason). Deposits (into deposit
 * destinations) are transfers too: completed at once, or `processing` while
 * their travel-rule details are incomplete.
 */
import type { components } from "../../contract/generated/types.js";
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

type Schemas = components["schemas"];
type TransferStatus = Schemas["TransferStatus"];
export type TravelRuleInfo = Record<string, unknown>;

export interface TransferRecord {
  transferId: string;
  kind: "transfer" | "deposit";
  status: TransferStatus;
  source: Schemas["TransferSource"];
  target: Schemas["TransferTarget"];
  sourceAsset: string;
  targetAsset: string;
  /** Amounts in smallest units (bigint as text); the view shows decimals. */
  sourceUnits: string;
  targetUnits: string;
  sourceAmount: string;
  targetAmount: string;
  exchangeRate?: Schemas["TransferExchangeRate"];
  fees: Schemas["TransferFee"][];
  estimate?: Schemas["TransferEstimate"];
  metadata?: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  expiresAt?: string;
  executedAt?: string;
  completedAt?: string;
  failureReason?: string;
  details?: Schemas["TransferDetails"];
  // What the sandbox needs to settle it; never shown.
  createdAtMs: number;
  expiresAtMs?: number;
  /** How long it processes once executed (by route, see settle.ts). */
  settleAfterMs: number;
  settlesAtMs?: number;
  /** The source amount was reserved at execution. */
  held?: boolean;
  sourceAccountId?: string;
  targetAccountId?: string;
  /** Travel-rule details given so far (deposits: what submitDepositTravelRule merged). */
  travelRule?: TravelRuleInfo;
  awaitingTravelRule?: boolean;
  /** A quote whose expiry has not been announced yet (payments.transfers.expired); cleared on execution or expiry. */
  expiryUnnotified?: boolean;
}

/**
 * When the clock makes a transfer due: a processing one settles at settlesAtMs (unless it waits for travel-rule
 * details); a quote's expiry is announced once the clock is past expiresAtMs.
 */
function transferDueAt(t: TransferRecord): number | undefined {
  if (t.status === "processing") return !t.awaitingTravelRule ? t.settlesAtMs : undefined;
  if (t.status === "quoted" && t.expiryUnnotified === true && t.expiresAtMs !== undefined) return t.expiresAtMs + 1;
  return undefined;
}

export const TRANSFERS = declareCollection<TransferRecord>("transfers", { order: "insertion", dueAt: transferDueAt });

export const transfers = (store: ProjectTx): Collection<TransferRecord> => store.collection(TRANSFERS);

export function findTransfer(store: ProjectTx, transferId: string): TransferRecord {
  const record = transfers(store).get(transferId);
  if (!record) throw apiError("not_found", `Transfer ${transferId} was not found in this project.`);
  return record;
}

export function transferView(t: TransferRecord): ResponseBody<"getTransferById", 200> {
  return {
    transferId: t.transferId,
    status: t.status,
    source: t.source,
    target: t.target,
    sourceAmount: t.sourceAmount,
    sourceAsset: t.sourceAsset,
    targetAmount: t.targetAmount,
    targetAsset: t.targetAsset,
    ...(t.exchangeRate ? { exchangeRate: t.exchangeRate } : {}),
    fees: t.fees,
    ...(t.estimate ? { estimate: t.estimate } : {}),
    ...(t.completedAt ? { completedAt: t.completedAt } : {}),
    ...(t.status === "failed" && t.failureReason ? { failureReason: t.failureReason } : {}),
    // expiresAt belongs to quotes only (the contract: "only present for quoted status").
    ...(t.status === "quoted" && t.expiresAt ? { expiresAt: t.expiresAt } : {}),
    ...(t.executedAt ? { executedAt: t.executedAt } : {}),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(t.metadata ? { metadata: t.metadata } : {}),
    ...(t.details ? { details: t.details } : {}),
  };
}

/** Failure reasons, in the platform's words. */
export const FAILURE = {
  insufficientBalance: "Insufficient balance to complete this transfer.",
  invalidRecipient: "The recipient address is invalid for the selected network.",
  securityCheck: "The recipient address failed security validation checks.",
  unableToSend: "Unable to send to this recipient.",
} as const;
