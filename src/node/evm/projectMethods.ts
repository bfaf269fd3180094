/**
 * The test methods that replace a project's records as a whole: snapshots (`evm_snapshot`/`evm_revert`, the same
 * snapshots `POST /_sandbox/snapshots` takes with the project's key), reset (`POST /_sandbox/reset` of the project)
 * and state dumps (`anvil_dumpState`/`anvil_loadState`, in the export's format). They run under the project's
 * lock but outside a ledger transaction (`testDoor.ts`), since they put whole records in place.
 *
 * As with the admin API, a snapshot stays after a revert (it can be reverted to again), and a reset keeps the
 * project and its credentials but no record: accounts, end users and the ledger all go, as on a new chain.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import type { Clock } from "../../clock.js";
import type { Snapshots } from "../../store/snapshots.js";
import type { Store } from "../../store/store.js";
import { RpcError, type RpcMethod } from "../jsonRpc.js";
import { stringParam } from "./params.js";

export interface ProjectMethodContext {
  /** The sandbox's store (answer() reads it as the scope of EVM revert traces). */
  store: Store;
  projectId: string;
  clock: Clock;
  snapshots: Snapshots;
  /** Makes the registry read the projects again (a snapshot may hold another client key). */
  reindex: () => void;
  /** The project as a state file (what GET /_sandbox/export answers with its key). */
  exportProject: (projectId: string) => unknown;
}

type ProjectMethod = RpcMethod<ProjectMethodContext>;

const snapshot: ProjectMethod = (_params, ctx) => ctx.snapshots.take(ctx.projectId, ctx.clock.iso());

const revert: ProjectMethod = async (params, ctx) => {
  const id = stringParam("evm_revert", params, 0, "a snapshot id that evm_snapshot returned");
  if (!(await ctx.snapshots.restore(id, ctx.projectId)))
    throw new RpcError(
      -32602,
      `invalid params of evm_revert: no snapshot ${JSON.stringify(id)} of this project (evm_snapshot returns one; GET /_sandbox/snapshots lists them)`,
    );
  ctx.reindex();
  return true;
};

/** Forking a live chain is beyond the sandbox: `forking.jsonRpcUrl` is refused; anything else resets the project. */
const resetOf =
  (method: string): ProjectMethod =>
  async (params, ctx) => {
    const options = params[0];
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options)))
      throw new RpcError(-32602, `invalid params of ${method}: params[0] must be an object or absent`);
    const forking = (options as { forking?: { jsonRpcUrl?: unknown } } | undefined)?.forking;
    if (forking && typeof forking === "object" && forking.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null)
      throw new RpcError(-32602, `invalid params of ${method}: the sandbox cannot fork a live chain (forking.jsonRpcUrl); call it without forking`);
    await ctx.store.clearRecords([ctx.projectId]);
    return method === "hardhat_reset" ? true : null;
  };

/** The project's state as 0x hex of the gzipped export, as Anvil dumps its state (gzipped JSON, hex). */
const dumpState: ProjectMethod = (_params, ctx) => `0x${gzipSync(JSON.stringify(ctx.exportProject(ctx.projectId))).toString("hex")}`;

/** What `anvil_loadState` takes: a dump (hex of gzipped or plain JSON), or the export as an object. */
function readState(value: unknown): unknown {
  if (value && typeof value === "object") return value;
  if (typeof value !== "string" || !/^0x(?:[0-9a-fA-F]{2})+$/.test(value)) return undefined;
  const bytes = Buffer.from(value.slice(2), "hex");
  try {
    return JSON.parse((bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Puts a dump's records in place of the project's (its identity and credentials stay): one project, all or nothing. */
const loadState: ProjectMethod = async (params, ctx) => {
  const state = readState(params[0]) as { version?: unknown; projects?: Array<{ records?: unknown }> } | undefined;
  const entries = state && state.version === 1 && Array.isArray(state.projects) ? state.projects : undefined;
  const records = entries?.length === 1 ? entries[0]?.records : undefined;
  if (!records || typeof records !== "object" || Array.isArray(records) || Object.values(records).some((c) => !c || typeof c !== "object"))
    throw new RpcError(
      -32602,
      "invalid params of anvil_loadState: params[0] must be what anvil_dumpState returned (hex of the gzipped export of one project) or GET /_sandbox/export's body for one project",
    );
  return ctx.store.replaceRecords(ctx.projectId, records as Parameters<typeof ctx.store.replaceRecords>[1]);
};

export const evmProjectMethods: Readonly<Record<string, ProjectMethod>> = {
  evm_snapshot: snapshot,
  evm_revert: revert,
  anvil_reset: resetOf("anvil_reset"),
  hardhat_reset: resetOf("hardhat_reset"),
  anvil_dumpState: dumpState,
  anvil_loadState: loadState,
};
