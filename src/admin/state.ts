/** The sandbox's state as a whole: reset it, snapshot and restore it, and read or empty the request journal. */
import { apiError } from "../errors/catalogue.js";
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

export const listSandboxRequests: AdminHandler<"listSandboxRequests"> = ({ projectId, query }, ctx) => ({
  status: 200,
  body: { requests: ctx.journal.list(projectId, { duplicates: query.duplicates === "true" }) },
});

export const clearSandboxRequests: AdminHandler<"clearSandboxRequests"> = ({ projectId }, ctx) => {
  ctx.journal.clear(projectId);
  return { status: 200, body: { cleared: true } };
};
