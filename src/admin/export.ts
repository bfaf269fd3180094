/**
 * GET /_sandbox/export: the state as a state file, of the caller's project or of all. The assembly hands the
 * admin API the exporter (state-files/export.ts), so the admin API and the state files import nothing of each other.
 */
import type { AdminHandler } from "./types.js";

export const exportSandboxState: AdminHandler<"exportSandboxState"> = ({ projectId }, ctx) => ({
  status: 200,
  body: ctx.exportState(projectId) as { version: 1; projects: Array<Record<string, unknown>> },
});
