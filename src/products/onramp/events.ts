/**
 * The onramp.transaction.* webhook events of guest-checkout orders, in the
 * platform's Headless Onramp shape (the order as `getOnrampOrderById` shows
 * it, with `eventType` added, flat). An order's status moves on the sandbox
 * clock without anyone writing it (model.ts), so each status is announced
 * once, when the sandbox first looks after the order reached it — in the step
 * that runs before every platform request (src/products/settle.ts), which also
 * lands the order's delivery — and carries the time it was reached
 * (`updatedAt`). Several statuses reached since the last look are announced
 * in order.
 *
 * | status reached                        | event                        |
 * |---------------------------------------|------------------------------|
 * | the first one (order created)         | onramp.transaction.created   |
 * | PENDING_AUTH (embedded), PENDING_PAYMENT, PROCESSING | onramp.transaction.updated |
 * | COMPLETED                             | onramp.transaction.success   |
 * | FAILED                                | onramp.transaction.failed    |
 */
import type { Store } from "../../store/store.js";
import { emitWebhookEvent, type EmitContext } from "../../wallet/events/emit.js";
import { ONRAMP_ORDERS, onrampOrders, orderView, TIMELINES, type OnrampOrderRecord, type OnrampOrderStatus } from "./model.js";

type OnrampEventType = "onramp.transaction.created" | "onramp.transaction.updated" | "onramp.transaction.success" | "onramp.transaction.failed";

function eventTypeOf(stage: number, status: OnrampOrderStatus): OnrampEventType {
  if (stage === 0) return "onramp.transaction.created";
  if (status === "ONRAMP_ORDER_STATUS_COMPLETED") return "onramp.transaction.success";
  if (status === "ONRAMP_ORDER_STATUS_FAILED") return "onramp.transaction.failed";
  return "onramp.transaction.updated";
}

/** When the stage after `stage` begins, or undefined after the last one. */
function nextStageAtMs(order: Pick<OnrampOrderRecord, "timeline" | "createdAtMs">, stage: number): number | undefined {
  const next = TIMELINES[order.timeline][stage + 1];
  return next ? order.createdAtMs + next.afterMs : undefined;
}

function announce(ctx: EmitContext, order: OnrampOrderRecord, stage: number): void {
  const { status, afterMs } = TIMELINES[order.timeline][stage]!;
  const eventType = eventTypeOf(stage, status);
  emitWebhookEvent(ctx, { eventType, data: { eventType, ...orderView(order, order.createdAtMs + afterMs) } });
}

/** A new order: announces its first status and notes when the next one is due. */
export function announceCreatedOrder(ctx: EmitContext, order: OnrampOrderRecord): OnrampOrderRecord {
  announce(ctx, order, 0);
  const nextAtMs = nextStageAtMs(order, 0);
  return { ...order, announcedStage: 0, ...(nextAtMs !== undefined ? { nextAnnouncementAtMs: nextAtMs } : {}) };
}

/** Whether an order of the project reached a status not yet announced (committed state, no transaction). */
export function hasDueOrderAnnouncements(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, ONRAMP_ORDERS, nowMs);
}

/** Announces every status the orders reached by `nowMs` and have not announced, in the order they were reached. */
export function announceDueOrders(ctx: EmitContext, nowMs: number): void {
  const due: Array<{ order: OnrampOrderRecord; stage: number; atMs: number }> = [];
  for (const order of onrampOrders(ctx.store).dueBy(nowMs)) {
    let stage = order.announcedStage ?? 0;
    for (let at = nextStageAtMs(order, stage); at !== undefined && at <= nowMs; at = nextStageAtMs(order, stage)) {
      stage += 1;
      due.push({ order, stage, atMs: at });
    }
    const { nextAnnouncementAtMs: _reached, ...rest } = order;
    const nextAtMs = nextStageAtMs(order, stage);
    onrampOrders(ctx.store).put(order.orderId, { ...rest, announcedStage: stage, ...(nextAtMs !== undefined ? { nextAnnouncementAtMs: nextAtMs } : {}) });
  }
  due.sort((a, b) => a.atMs - b.atMs || a.order.createdAtMs - b.order.createdAtMs);
  for (const { order, stage } of due) announce(ctx, order, stage);
}
