/** The sandbox's state as a whole: reset it, snapshot and restore it, and read or empty the request journal. */
import { apiError } from "../errors/catalogue.js";
import type { JournalKind } from "../pipeline/journal.js";
import { integerOf, textOf } from "./paging.js";
import { type AdminHandler, locking } from "./types.js";

/** Projects and their credentials survive; their records do not. Without a bearer token the journal is emptied too. */
export const resetSandbox: AdminHandler<"resetSandbox"> = locking("scope", async ({ projectId }, ctx) => {
  await ctx.store.clearRecords(projectId ? [projectId] : ctx.store.projects().map((p) => p.id));
  if (!projectId) ctx.journal.clear();
  return { status: 200, body: { reset: projectId ? "project" : "all", projectId } };
});

export const takeSandboxSnapshot: AdminHandler<"takeSandboxSnapshot"> = ({ projectId }, ctx) => ({
  status: 201,
  body: { snapshotId: ctx.snapshots.take(projectId, ctx.clock.iso()), scope: projectId ? "project" : "global" },
});

export const restoreSandboxSnapshot: AdminHandler<"restoreSandboxSnapshot"> = locking("scope", async ({ projectId, pathParams }, ctx) => {
  const id = pathParams.snapshotId;
  if (!(await ctx.snapshots.restore(id, projectId))) throw apiError("not_found", `Snapshot ${id} was not found in this scope.`);
  ctx.projects.reindex();
  return { status: 200, body: { restored: id } };
});

export const listSandboxSnapshots: AdminHandler<"listSandboxSnapshots"> = ({ projectId }, ctx) => ({
  status: 200,
  body: { snapshots: ctx.snapshots.list(projectId) },
});

export const listSandboxRequests: AdminHandler<"listSandboxRequests"> = ({ projectId, query }, ctx) => {
  const page = ctx.journal.page(projectId, {
    after: integerOf(query.after),
    before: integerOf(query.before),
    limit: integerOf(query.limit),
    status: textOf(query.status),
    operationId: textOf(query.operationId),
    kind: textOf(query.kind) as JournalKind | undefined,
    text: textOf(query.q),
    duplicates: query.duplicates === "true",
  });
  return { status: 200, body: { requests: page.entries, total: page.total, lastSequence: page.lastSequence } };
};

/** One journal entry with its request and response, while the journal keeps them. */
export const getSandboxRequest: AdminHandler<"getSandboxRequest"> = ({ projectId, pathParams }, ctx) => {
  const found = ctx.journal.find(projectId, pathParams.correlationId);
  if (!found) throw apiError("not_found", `The journal holds no request ${pathParams.correlationId} in this scope.`);
  return { status: 200, body: { entry: found.entry, ...found.detail } };
};

export const clearSandboxRequests: AdminHandler<"clearSandboxRequests"> = ({ projectId }, ctx) => {
  ctx.journal.clear(projectId);
  return { status: 200, body: { cleared: true } };
};
