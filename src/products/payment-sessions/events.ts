/**
 * The acceptance.payment_session.* webhook events, one per transition, in the
 * platform's envelope: `eventId` (the X-Event-Id header's id), `eventType`,
 * `timestamp` (when the transition happened on the sandbox clock) and `data`:
 * the session's summary as it stands after the transition and, for an
 * action's transition, that action.
 *
 * | event                                   | transition                                  |
 * |-----------------------------------------|---------------------------------------------|
 * | created / canceled                      | createPaymentSession / cancelPaymentSession |
 * | authorization_pending                   | a wallet or x402 authorization is accepted  |
 * | capture_pending / void_pending / refund_pending | the merchant's request (or autoCapture) |
 * | {action}_succeeded / {action}_failed    | the action's transaction lands              |
 */
import type { EventType } from "../../wallet/events/model.js";
import { emitWebhookEvent, type EmitContext } from "../../wallet/events/emit.js";
import {
  authorizationView,
  captureView,
  refundView,
  sessionSummary,
  voidView,
  type ActionKind,
  type AuthorizationRecord,
  type CaptureRecord,
  type PaymentSessionRecord,
  type RefundRecord,
  type VoidRecord,
} from "./model.js";

/** The action part of an event's data: the action's own view, less the session id the summary already carries. */
function actionData(s: PaymentSessionRecord, kind: ActionKind, id: string): Record<string, unknown> {
  const find = <T extends { id: string }>(list: T[]) => list.find((a) => a.id === id)!;
  const views = {
    authorization: () => authorizationView(s, find<AuthorizationRecord>(s.authorizations)),
    capture: () => captureView(s, find<CaptureRecord>(s.captures)),
    void: () => voidView(s, find<VoidRecord>(s.voids)),
    refund: () => refundView(s, find<RefundRecord>(s.refunds)),
  };
  const { paymentSessionId: _session, message: _message, source, ...rest } = views[kind]() as Record<string, unknown>;
  // A refund's source is the merchant's funding, which the event does not carry; an authorization's is the payer.
  return kind === "authorization" ? { ...rest, source } : rest;
}

/** Sends the event of the session's current status; `action` names the action that moved it, if one did. */
export function emitSessionEvent(ctx: EmitContext, s: PaymentSessionRecord, atMs: number, action?: { kind: ActionKind; id: string }): void {
  const eventType = `acceptance.payment_session.${s.status}` as EventType;
  const data = { paymentSession: sessionSummary(s), ...(action ? { [action.kind]: actionData(s, action.kind, action.id) } : {}) };
  emitWebhookEvent(ctx, { eventType, data: (eventId: string) => ({ eventId, eventType, timestamp: new Date(atMs).toISOString(), data }) });
}
