/**
 * The acceptance.disbursement.* webhook events: `pending` when a disbursement
 * is created, `succeeded` or `failed` when it lands, each once, in the
 * platform's envelope (`eventId` as in the X-Event-Id header, `eventType`,
 * `timestamp` of the transition on the sandbox clock, `data` the disbursement
 * as GET shows it right after).
 */
import { emitWebhookEvent, type EmitContext } from "../../wallet/events/emit.js";
import { disbursementView, type DisbursementRecord } from "./model.js";

export function emitDisbursementEvent(ctx: EmitContext, d: DisbursementRecord, atMs: number): void {
  const eventType = `acceptance.disbursement.${d.status}` as const;
  const data = disbursementView(d);
  emitWebhookEvent(ctx, { eventType, data: (eventId: string) => ({ eventId, eventType, timestamp: new Date(atMs).toISOString(), data }) });
}
