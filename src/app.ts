/**
 * Assembles the sandbox: the /platform pipeline, the /_sandbox admin API, and
 * the error body for everything else. Nothing else happens here.
 *
 * /platform requests go straight to the pipeline, past Express: its router
 * and response helpers cost more CPU per request than authentication,
 * validation and the handler together (docs/performance.md). They still get the
 * same body reader, and Express keeps the routes as a fallback for request
 * targets the quick test does not recognise. The node's usual JSON-RPC call (a
 * POST from a program, no browser origin, plain path segments) goes straight to
 * its handler the same way; preflights, browsers and unusual paths take the
 * Express routes, with their CORS.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import { ADMIN_PREFIX, type AdminApiDeps, createAdminApi } from "./admin/api.js";
import { apiError } from "./errors/catalogue.js";
import { errorResponse } from "./pipeline/errors.js";
import { sendOutgoing } from "./pipeline/write.js";
import { createNodeRouter, createNodeRpc } from "./node/http.js";
import type { NodeTesting } from "./node/evm/testDoor.js";
import { exportState } from "./state-files/export.js";
import { Snapshots } from "./store/snapshots.js";
import { applyCors } from "./pipeline/cors.js";
import { createPipeline, PLATFORM_PREFIX, type PipelineDeps } from "./pipeline/pipeline.js";
import { ProjectLocks } from "./pipeline/locks.js";

export type AppDeps = PipelineDeps &
  Omit<AdminApiDeps, "operations" | "platformOperations" | "random" | "log" | "locks"> & {
    /** The operations of admin-openapi.yaml. */
    adminOperations: AdminApiDeps["operations"];
    bodyLimit?: string;
    /** The sandbox's per-project write locks, when something outside the app (the node's WebSockets) writes too. */
    locks?: ProjectLocks;
    /** The node's dev accounts and who may call its test methods (evm/testDoor.ts); without it, neither. */
    nodeTesting?: Pick<NodeTesting, "devAccounts" | "allows">;
    /** The time budget of one node request's read-only EVM work, in ms (undefined: the default; 0: none). */
    evmTimeoutMs?: number;
  };

/** What `http.createServer` takes. */
export type SandboxListener = (req: IncomingMessage, res: ServerResponse) => void;

const PLATFORM_TARGET = /^\/platform(?:[/?]|$)/i;
/** `/rpc/v1/{network}/{token}` with segments that need no decoding, and no query: what Express's route would read the same. */
const PLAIN_RPC_TARGET = /^\/rpc\/v1\/([A-Za-z0-9_.~-]+)\/([A-Za-z0-9_.~-]+)$/;

export function createApp(deps: AppDeps): SandboxListener {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Bodies are read raw: the pipeline parses JSON itself so that malformed input gets the platform's 400.
  const readBody = express.raw({ type: () => true, limit: deps.bodyLimit ?? "5mb" }) as unknown as (
    req: IncomingMessage,
    res: ServerResponse,
    next: (error?: Error & { status?: number }) => void,
  ) => void;
  app.use(readBody);
  const locks = deps.locks ?? new ProjectLocks(); // one per sandbox: the pipeline, the node and the admin API all write ledgers
  // One set of snapshots: the admin API's and the node's evm_snapshot are the same project snapshots.
  const snapshots = new Snapshots(deps.store, deps.random.fork("snapshots"));
  app.use(ADMIN_PREFIX, createAdminApi({ ...deps, operations: deps.adminOperations, platformOperations: deps.operations, locks, snapshots }));
  const pipeline = createPipeline({ ...deps, locks });
  const correlationIds = deps.random.fork("correlation-outside");
  const send = (res: ServerResponse, status: number, out: ReturnType<typeof errorResponse>, correlationId: string) =>
    sendOutgoing(res, { ...out, status, headers: { ...out.headers, "x-correlation-id": correlationId } });
  // Errors raised before the pipeline (body too large, broken encoding) are client mistakes, never 500s.
  const unreadableBody = (error: Error & { status?: number }, res: ServerResponse, platformRequest?: IncomingMessage) => {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 400;
    const id = `${correlationIds.hex(8)}-SBX`;
    const message = `The request body could not be read: ${error.message}.`;
    const out = errorResponse(apiError("invalid_request", message), id);
    send(res, status, out, id);
    // A platform request the pipeline never saw (too large a body) is still the caller's violation of the contract.
    if (platformRequest) {
      const path = (platformRequest.url ?? "/").split("?")[0]!;
      const match = deps.operations.match(platformRequest.method ?? "GET", path.slice(PLATFORM_PREFIX.length));
      deps.journal.recordCall({
        kind: "platform",
        correlationId: id,
        receivedAt: Date.now(),
        method: (platformRequest.method ?? "GET").toUpperCase(),
        path,
        ...(match.kind === "found" ? { operationId: match.operation.operationId } : {}),
        status,
        errorType: "invalid_request",
        errorMessage: message,
        violation: "body",
        durationMs: 0,
        response: { body: out.bodyText },
      });
    }
  };
  const nodeDeps = {
    store: deps.store,
    projects: deps.projects,
    clock: deps.clock,
    random: deps.random.fork("node"),
    authMode: deps.authMode,
    locks,
    journal: deps.journal,
    evmTimeoutMs: deps.evmTimeoutMs,
    testing: deps.nodeTesting && {
      ...deps.nodeTesting,
      snapshots,
      exportProject: (projectId: string) => exportState(deps.store, deps.clock, projectId),
      reindex: () => deps.projects.reindex(),
    },
  };
  const nodeRpc = createNodeRpc(nodeDeps);
  app.use(createNodeRouter(nodeDeps, nodeRpc));
  const cors = { store: deps.store, defaultProjectId: () => deps.projects.defaultProjectId() };
  const platform = (req: IncomingMessage, res: ServerResponse) =>
    applyCors(req, res, cors)
      ? undefined
      : pipeline(req, res).catch((error: unknown) => {
          // The pipeline answers every error itself; this is a failure while writing the answer.
          deps.log(`could not send the response: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          if (res.headersSent) return void res.destroy();
          const id = `${correlationIds.hex(8)}-SBX`;
          send(res, 500, errorResponse(error, id), id);
        });
  app.all("/platform", platform);
  app.all("/platform/{*rest}", platform);
  app.use((req: Request, res: Response) => {
    const id = `${correlationIds.hex(8)}-SBX`;
    const out = errorResponse(apiError("not_found", `Nothing is served at ${req.method} ${req.path}; the API lives under /platform.`), id);
    send(res, out.status, out, id);
  });
  app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => unreadableBody(error, res));
  return (req, res) => {
    const url = req.url ?? "";
    if (PLATFORM_TARGET.test(url)) return void readBody(req, res, (error) => (error ? unreadableBody(error, res, req) : void platform(req, res)));
    const rpc = req.method === "POST" && req.headers.origin === undefined ? PLAIN_RPC_TARGET.exec(url) : null;
    if (!rpc) return void app(req as Request, res as Response);
    readBody(req, res, (error) => {
      if (error) return unreadableBody(error, res);
      // As Express answers a handler that failed: the error handler below.
      nodeRpc(req, res, rpc[1]!, rpc[2]!).catch((failure: Error) => (res.headersSent ? res.destroy() : unreadableBody(failure, res)));
    });
  };
}
