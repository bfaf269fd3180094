/** GET /_sandbox/export: the state as a state file (src/state-files/export.ts), of the caller's project or of all. */
import { exportState } from "../state-files/export.js";
import type { AdminHandler } from "./types.js";

export const exportSandboxState: AdminHandler<"exportSandboxState"> = ({ projectId }, ctx) => ({
  status: 200,
  body: exportState(ctx.store, ctx.clock, projectId) as { version: 1; projects: Array<Record<string, unknown>> },
});
