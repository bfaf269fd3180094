/**
 * Onramp orders and their state machine, driven by the sandbox clock (no
 * timers: the status is computed from the clock whenever an order is read).
 *
 *   headless (phone + email given):
 *     PENDING_AUTH ─15 s→ PENDING_PAYMENT ─15 s→ PROCESSING ─30 s→ COMPLETED (txHash)
 *   embedded (neither given; project setting onrampEmbeddedEnabled):
 *     PENDING_VERIFICATION ─30 s→ PENDING_AUTH → … as above, each step 15/15/30 s later
 *   the reserved declining test number: PENDING_AUTH ─15 s→ FAILED
 *
 * PENDING_AUTH waits for the buyer to authorize in the payment link's wallet
 * button (the sandbox's simulated buyer does so after 15 s); PENDING_PAYMENT
 * is the card payment settling; PROCESSING buys and sends the crypto. On
 * COMPLETED the asset lands at the destination address on the project's
 * ledger, in a transaction whose hash is the order's txHash. Each status is
 * announced by webhook once, when the sandbox first sees it reached (events.ts).
 */
import type { ResponseBody } from "../../contract/types.js";
import type { ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export type OnrampOrderStatus = ResponseBody<"getOnrampOrderById", 200>["order"]["status"];
type OrderView = ResponseBody<"getOnrampOrderById", 200>["order"];

const SECOND = 1000;

/** Offsets from creation at which each status begins. */
export const TIMELINES: Record<"headless" | "embedded" | "declined", Array<{ status: OnrampOrderStatus; afterMs: number }>> = {
  headless: [
    { status: "ONRAMP_ORDER_STATUS_PENDING_AUTH", afterMs: 0 },
    { status: "ONRAMP_ORDER_STATUS_PENDING_PAYMENT", afterMs: 15 * SECOND },
    { status: "ONRAMP_ORDER_STATUS_PROCESSING", afterMs: 30 * SECOND },
    { status: "ONRAMP_ORDER_STATUS_COMPLETED", afterMs: 60 * SECOND },
  ],
  embedded: [
    { status: "ONRAMP_ORDER_STATUS_PENDING_VERIFICATION", afterMs: 0 },
    { status: "ONRAMP_ORDER_STATUS_PENDING_AUTH", afterMs: 30 * SECOND },
    { status: "ONRAMP_ORDER_STATUS_PENDING_PAYMENT", afterMs: 45 * SECOND },
    { status: "ONRAMP_ORDER_STATUS_PROCESSING", afterMs: 60 * SECOND },
    { status: "ONRAMP_ORDER_STATUS_COMPLETED", afterMs: 90 * SECOND },
  ],
  declined: [
    { status: "ONRAMP_ORDER_STATUS_PENDING_AUTH", afterMs: 0 },
    { status: "ONRAMP_ORDER_STATUS_FAILED", afterMs: 15 * SECOND },
  ],
};

/** Statuses in which the buyer has not paid yet, so the payment link still works. */
export const AWAITING_BUYER: OnrampOrderStatus[] = ["ONRAMP_ORDER_STATUS_PENDING_VERIFICATION", "ONRAMP_ORDER_STATUS_PENDING_AUTH"];

export interface OnrampOrderRecord {
  orderId: string;
  createdAtMs: number;
  timeline: keyof typeof TIMELINES;
  /** The priced order as the platform shows it (amounts, fees, rate, destination). */
  priced: Omit<OrderView, "orderId" | "status" | "createdAt" | "updatedAt" | "txHash" | "partnerUserRef">;
  /** Payment total in US cents: what the weekly guest limit counts. */
  usdTotalCents: string;
  /** The guest buyer (headless orders). */
  phoneNumber?: string;
  email?: string;
  partnerUserRef: string;
  partnerOrderRef?: string;
  /** Hash (or Solana signature) of the delivering transaction, revealed once completed. */
  txHash: string;
  /** Token of the payment link (`/_sandbox/onramp/…?sessionToken=`). */
  paymentLinkToken: string;
  locale?: string;
  /** Index in its timeline of the last status announced by webhook (events.ts); absent on orders from before webhooks. */
  announcedStage?: number;
  /** When the next status not yet announced begins; absent once the last one is announced. */
  nextAnnouncementAtMs?: number;
}

export const ONRAMP_ORDERS = declareCollection<OnrampOrderRecord>("onrampOrders", { dueAt: (o) => o.nextAnnouncementAtMs });

export const onrampOrders = (store: ProjectTx) => store.collection(ONRAMP_ORDERS);

/** The status in force at `nowMs`, and since when. */
export function stageAt(order: OnrampOrderRecord, nowMs: number): { status: OnrampOrderStatus; sinceMs: number } {
  let current = TIMELINES[order.timeline][0]!;
  for (const stage of TIMELINES[order.timeline]) if (order.createdAtMs + stage.afterMs <= nowMs) current = stage;
  return { status: current.status, sinceMs: order.createdAtMs + current.afterMs };
}

/** When the asset lands (undefined for an order that fails). */
export function completionAtMs(order: Pick<OnrampOrderRecord, "timeline" | "createdAtMs">): number | undefined {
  const done = TIMELINES[order.timeline].find((s) => s.status === "ONRAMP_ORDER_STATUS_COMPLETED");
  return done ? order.createdAtMs + done.afterMs : undefined;
}

/** Orders that count against a buyer's guest limits: every order that has not failed (pending ones will complete). */
export function countsAgainstLimits(order: OnrampOrderRecord): boolean {
  return order.timeline !== "declined";
}

export function orderView(order: OnrampOrderRecord, nowMs: number): OrderView {
  const { status, sinceMs } = stageAt(order, nowMs);
  return {
    orderId: order.orderId,
    ...order.priced,
    status,
    ...(status === "ONRAMP_ORDER_STATUS_COMPLETED" ? { txHash: order.txHash } : {}),
    createdAt: new Date(order.createdAtMs).toISOString(),
    updatedAt: new Date(sinceMs).toISOString(),
    partnerUserRef: order.partnerUserRef,
  };
}
