/**
 * Assembles the sandbox: the /platform pipeline, the /_sandbox admin API, and
 * the error body for everything else. Nothing else happens here.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { createAdminRouter, type AdminDeps } from "./admin/router.js";
import { apiError } from "./errors/catalogue.js";
import { errorResponse } from "./pipeline/errors.js";
import { createNodeRouter } from "./chain/rpc.js";
import { authenticateApiKey } from "./pipeline/authenticate.js";
import type { Exchange } from "./pipeline/exchange.js";
import { createPipeline, type PipelineDeps } from "./pipeline/pipeline.js";
import { ProjectLocks } from "./pipeline/locks.js";

export type AppDeps = PipelineDeps & Omit<AdminDeps, "random" | "log"> & { bodyLimit?: string };

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Bodies are read raw: the pipeline parses JSON itself so that malformed input gets the platform's 400.
  app.use(express.raw({ type: () => true, limit: deps.bodyLimit ?? "5mb" }));
  app.use("/_sandbox", createAdminRouter({ ...deps, random: deps.random, log: deps.log }));
  const locks = new ProjectLocks(); // one per sandbox: the pipeline and the node both write ledgers
  const pipeline = createPipeline({ ...deps, locks });
  const correlationIds = deps.random.fork("correlation-outside");
  const send = (res: Response, status: number, out: ReturnType<typeof errorResponse>, correlationId: string) =>
    res.status(status).set({ ...out.headers, "x-correlation-id": correlationId }).send(out.bodyText);
  app.use(
    createNodeRouter({
      store: deps.store,
      projects: deps.projects,
      clock: deps.clock,
      random: deps.random.fork("node"),
      locks,
      authenticate: async (req) => {
        if (deps.authMode === "none") return deps.projects.defaultProjectId();
        const ex = { method: "GET", host: req.headers.host ?? "", fullPath: new URL(req.originalUrl, "http://x").pathname } as Exchange;
        await authenticateApiKey(ex, { mode: deps.authMode, projects: deps.projects }, req.headers.authorization);
        return ex.projectId!;
      },
    }),
  );
  app.all("/platform", pipeline);
  app.all("/platform/{*rest}", pipeline);
  app.use((req: Request, res: Response) => {
    const id = `${correlationIds.hex(8)}-SBX`;
    const out = errorResponse(apiError("not_found", `Nothing is served at ${req.method} ${req.path}; the API lives under /platform.`), id);
    send(res, out.status, out, id);
  });
  // Errors raised before the pipeline (body too large, broken encoding) are client mistakes, never 500s.
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 400;
    const id = `${correlationIds.hex(8)}-SBX`;
    const out = errorResponse(apiError("invalid_request", `The request body could not be read: ${error.message}.`), id);
    send(res, status, out, id);
  });
  return app;
}
