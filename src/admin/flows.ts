/**
 * GET /_sandbox/transfers and /_sandbox/onramp-orders: what moves on the
 * sandbox clock, each with its state timeline (past steps and the ones the
 * clock has not reached yet). Due work is settled first, as before a
 * platform read, so advancing the clock and reloading shows the new state.
 */
import type { components } from "../contract/generated/admin-types.js";
import { onrampOrders, orderView, TIMELINES } from "../products/onramp/model.js";
import { settleProject } from "../products/settle.js";
import { transfers, transferView, type TransferRecord } from "../products/transfers/model.js";
import { pageOf } from "./paging.js";
import { type AdminContext, type AdminHandler, callerProject, locking } from "./types.js";

type TimelineStep = components["schemas"]["TimelineStep"];

const step = (state: string, atMs: number, nowMs: number): TimelineStep => ({ state, at: new Date(atMs).toISOString(), reached: atMs <= nowMs });

/** The project brought up to date on the clock, committed, and a fresh transaction to read it. */
async function settled(call: { projectId?: string }, ctx: AdminContext) {
  const projectId = callerProject(call, ctx);
  const tx = ctx.store.begin(projectId);
  settleProject(tx, { clock: ctx.clock, random: ctx.random.settle });
  await tx.commit();
  return ctx.store.begin(projectId);
}

function transferState(t: TransferRecord, nowMs: number) {
  return t.status === "quoted" && t.expiresAtMs !== undefined && nowMs > t.expiresAtMs ? "expired" : t.status;
}

function transferTimeline(t: TransferRecord, nowMs: number): TimelineStep[] {
  const steps = [step(t.kind === "deposit" ? "processing" : "quoted", t.createdAtMs, nowMs)];
  if (t.status === "quoted") {
    if (t.expiresAtMs !== undefined) steps.push(step("expired", t.expiresAtMs + 1, nowMs));
    return steps;
  }
  if (t.kind !== "deposit") steps.push(step("processing", t.executedAt ? Date.parse(t.executedAt) : t.createdAtMs, nowMs));
  if (t.status === "processing") {
    if (t.settlesAtMs !== undefined && !t.awaitingTravelRule) steps.push(step("completed", t.settlesAtMs, nowMs));
  } else {
    steps.push(step(t.status, t.completedAt ? Date.parse(t.completedAt) : Date.parse(t.updatedAt), nowMs));
  }
  return steps;
}

export const listSandboxTransfers: AdminHandler<"listSandboxTransfers"> = locking("project", async (call, ctx) => {
  const tx = await settled(call, ctx);
  const { offset, limit } = pageOf(call.query);
  const now = ctx.clock.now();
  const page = transfers(tx).page(offset, limit, { descending: true });
  return {
    status: 200,
    body: {
      total: page.total,
      offset,
      items: page.items.map((t) => ({ transfer: transferView(t), state: transferState(t, now), timeline: transferTimeline(t, now) })),
    },
  };
});

export const listSandboxOnrampOrders: AdminHandler<"listSandboxOnrampOrders"> = locking("project", async (call, ctx) => {
  const tx = await settled(call, ctx);
  const { offset, limit } = pageOf(call.query);
  const now = ctx.clock.now();
  const all = onrampOrders(tx)
    .list()
    .sort((a, b) => b.createdAtMs - a.createdAtMs || b.orderId.localeCompare(a.orderId));
  return {
    status: 200,
    body: {
      total: all.length,
      offset,
      items: all.slice(offset, offset + limit).map((o) => ({
        order: orderView(o, now),
        timeline: TIMELINES[o.timeline].map((s) => step(s.status, o.createdAtMs + s.afterMs, now)),
      })),
    },
  };
});
