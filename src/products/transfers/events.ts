/**
 * The payments.transfers.* webhook events. Each one is sent once, for the
 * transition that caused it, with the platform's envelope: `eventID` (the
 * same id as the X-Event-Id header), `eventType`, `timestamp` (when the
 * transition happened on the sandbox clock, not when it was delivered) and
 * `data`, the transfer as `GET /v2/transfers/{id}` shows it right after the
 * transition.
 *
 * | event                     | transition                                                    |
 * |---------------------------|---------------------------------------------------------------|
 * | quoted                    | createTransfer (also with execute: true, which quotes first)  |
 * | processing                | execution (executeFundTransfer, or execute: true), a deposit arriving |
 * | completed / failed        | settlement on the sandbox clock; a deposit credited           |
 * | expired                   | a quote's expiresAt passing without execution                 |
 * | travel_rule_incomplete    | a deposit held for its originator's travel-rule details       |
 * | travel_rule_completed     | submitDepositTravelRule completing those details              |
 */
import type { EmitContext } from "../../wallet/events/emit.js";
import { emitWebhookEvent } from "../../wallet/events/emit.js";
import { transferView, type TransferRecord } from "./model.js";

export type TransferEventType =
  | "payments.transfers.quoted"
  | "payments.transfers.processing"
  | "payments.transfers.completed"
  | "payments.transfers.failed"
  | "payments.transfers.expired"
  | "payments.transfers.travel_rule_incomplete"
  | "payments.transfers.travel_rule_completed";

/** Sends `eventType` for `transfer` as it stands now; `atMs` is when the transition happened (default: now). */
export function emitTransferEvent(ctx: EmitContext, eventType: TransferEventType, transfer: TransferRecord, atMs = ctx.clock.now()): void {
  const data = transferView(transfer);
  emitWebhookEvent(ctx, { eventType, data: (eventId: string) => ({ eventID: eventId, eventType, timestamp: new Date(atMs).toISOString(), data }) });
}
