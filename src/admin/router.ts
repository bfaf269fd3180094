/**
 * The sandbox's own API under /_sandbox (outside /platform), described in
 * admin-openapi.yaml. A call carrying a bearer token acts on that key's
 * project; without one it acts on the whole sandbox (which is why the server
 * binds to loopback by default).
 */
import express, { type Request, type Response } from "express";
import type { AuthMode } from "../auth/bearer.js";
import type { SandboxKeys } from "../domains/types.js";
import { creditBalance } from "./balances.js";
import { depositInProject, fundAccountInProject } from "./money.js";
import { issueEndUserToken } from "../domains/end-users/tokens.js";
import { issueTemporaryWalletSecret } from "../domains/end-users/walletSecrets.js";
import { createGrant } from "../domains/end-users/accounts.js";
import { findEndUser } from "../domains/end-users/model.js";
import { parseDuration, type Clock } from "../clock.js";
import { apiError } from "../errors/catalogue.js";
import { authenticateApiKey } from "../pipeline/authenticate.js";
import { parseBody } from "../pipeline/body.js";
import { errorResponse } from "../pipeline/errors.js";
import type { Exchange } from "../pipeline/exchange.js";
import type { Journal } from "../pipeline/journal.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import { createOnrampPagesRouter } from "./onramp.js";
import { Snapshots } from "./snapshots.js";
import { deleteBundle, putBundle } from "../domains/x402/curation.js";
import { activateScenario, deactivateScenarios, listScenarios } from "../scenarios/admin.js";
import type { ScenarioEngine } from "../scenarios/engine.js";
import type { WebhookDispatcher } from "../domains/webhooks/dispatcher.js";
import { flushWebhooks, listDeliveries, sendTestEvent } from "./webhooks.js";

export interface AdminDeps {
  keys: SandboxKeys;
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  journal: Journal;
  random: Random;
  authMode: AuthMode;
  basePath: () => string;
  startedAt: number;
  /** Present when scenarios are on (always, unless a custom hook replaced the engine). */
  scenarioEngine?: ScenarioEngine;
  /** Present when the sandbox delivers webhooks (always, from startSandbox). */
  webhooks?: WebhookDispatcher;
  log: (message: string) => void;
  /** The sandbox's per-project write locks, shared with the pipeline and the node. */
  locks: ProjectLocks;
}

interface AdminCall {
  projectId?: string;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
}

type AdminHandler = (call: AdminCall, req: Request) => Promise<{ status?: number; body: unknown }> | { status?: number; body: unknown };

export function createAdminRouter(deps: AdminDeps): express.Router {
  const router = express.Router();
  const snapshots = new Snapshots(deps.store, deps.random.fork("snapshots"));
  const correlation = deps.random.fork("admin-correlation");
  const tokenSecrets = deps.random.fork("end-user-wallet-secrets");
  const grantIds = deps.random.fork("admin-delegation-grants");
  const webhookTests = deps.random.fork("admin-webhook-tests");

  /** Resolves the caller's project from an optional bearer token, parses the body, writes errors the platform's way. */
  const route = (handler: AdminHandler) => async (req: Request, res: Response) => {
    const correlationId = `${correlation.hex(8)}-SBX`;
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const body = (parseBody(raw, req.headers["content-type"]) ?? {}) as Record<string, unknown>;
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw apiError("invalid_request", "The body must be a JSON object.");
      let projectId: string | undefined;
      if (req.headers.authorization && deps.authMode !== "none") {
        const ex = { method: req.method.toUpperCase(), host: req.headers.host ?? "", fullPath: new URL(req.originalUrl, "http://x").pathname } as Exchange;
        await authenticateApiKey(ex, { mode: deps.authMode, projects: deps.projects }, req.headers.authorization);
        projectId = ex.projectId;
      }
      const result = await handler({ projectId, body, query: req.query as Record<string, unknown> }, req);
      res
        .status(result.status ?? 200)
        .set("x-correlation-id", correlationId)
        .json(result.body);
    } catch (error) {
      const out = errorResponse(error, correlationId, deps.log);
      res.status(out.status).set(out.headers).set("x-correlation-id", correlationId).send(out.bodyText);
    }
  };

  /**
   * For calls that write a project's state: the handler runs holding that
   * project's write lock (the caller's, else the default project's), so it
   * cannot interleave with a platform request or node call changing the same
   * records between their read and their commit.
   */
  const writing =
    (handler: AdminHandler): AdminHandler =>
    (call, req) =>
      deps.locks.run(call.projectId ?? deps.projects.defaultProjectId(), true, async () => handler(call, req));
  /** For calls that replace whole projects (reset, restore): the locks of every project in scope. */
  const replacing =
    (handler: AdminHandler): AdminHandler =>
    (call, req) =>
      deps.locks.runExclusive(call.projectId ? [call.projectId] : deps.store.projects().map((p) => p.id), async () => handler(call, req));

  const clockView = () => ({ now: deps.clock.iso(), frozen: deps.clock.frozen, offsetMs: deps.clock.now() - Date.now() });

  router.get(
    "/health",
    route(() => ({ body: { status: "ok", uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000), projects: deps.store.projects().length } })),
  );

  router.post(
    "/projects",
    route(async ({ body }) => {
      for (const field of ["name", "apiKeyId", "apiKeySecret", "walletSecret"]) {
        if (body[field] !== undefined && typeof body[field] !== "string") throw apiError("invalid_request", `${field} must be a string.`);
      }
      const { name, apiKeyId, apiKeySecret, walletSecret } = body as Record<string, string | undefined>;
      let credentials: Awaited<ReturnType<typeof deps.projects.create>>;
      try {
        credentials = await deps.projects.create(name, { apiKeyId, apiKeySecret, walletSecret });
      } catch (error) {
        throw apiError("invalid_request", `The supplied credentials cannot be used: ${(error as Error).message}.`);
      }
      return { status: 201, body: { basePath: deps.basePath(), ...credentials } };
    }),
  );

  const visibleProject = (call: AdminCall, id: string) => {
    if (call.projectId && call.projectId !== id) throw apiError("not_found", `Project ${id} was not found.`);
    const project = deps.store.project(id);
    if (!project) throw apiError("not_found", `Project ${id} was not found.`);
    return project;
  };

  router.get(
    "/projects/:projectId",
    route((call, req) => {
      const project = visibleProject(call, String(req.params.projectId));
      return { body: { projectId: project.id, name: project.name, createdAt: project.createdAt, settings: project.settings } };
    }),
  );

  router.patch(
    "/projects/:projectId",
    route(async (call, req) => {
      const project = visibleProject(call, String(req.params.projectId));
      const settings = call.body.settings;
      if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
        throw apiError("invalid_request", 'settings must be an object, e.g. {"settings": {"delegationEnabled": true}}.');
      }
      const updated = await deps.projects.updateSettings(project.id, settings as Record<string, unknown>);
      return { body: { projectId: project.id, name: project.name, createdAt: project.createdAt, settings: updated!.settings } };
    }),
  );

  router.get(
    "/clock",
    route(() => ({ body: clockView() })),
  );
  // Funds on any network, mainnets included (where there is no faucet): the ledger is the sandbox's to set.
  // End-user access tokens for testing the endUserAuth operations (the platform's come from its sign-in flows).
  router.post(
    "/end-users/:userId/token",
    route(
      writing(async ({ projectId }, req) => {
        const project = projectId ?? deps.projects.defaultProjectId();
        const userId = String(req.params.userId);
        const tx = deps.store.begin(project);
        if (!tx.collection("endUsers").get(userId)) throw apiError("not_found", `End user ${userId} was not found in this project.`);
        const token = await issueEndUserToken(deps.keys.endUserTokenSecret, { userId, projectId: project }, deps.clock.now());
        // The end user's client signs X-Wallet-Auth with this and names it in walletSecretId.
        const secret = issueTemporaryWalletSecret(tx, tokenSecrets, userId, Date.parse(token.expiresAt));
        await tx.commit();
        return { status: 201, body: { userId, ...token, ...secret } };
      }),
    ),
  );
  // A project-wide delegation grant, as the end user's client makes it in a sign-in flow the REST contract does not cover.
  router.post(
    "/end-users/:userId/delegation",
    route(
      writing(async ({ projectId, body }, req) => {
        const project = projectId ?? deps.projects.defaultProjectId();
        const tx = deps.store.begin(project);
        const ctx = { keys: deps.keys, clock: deps.clock, random: grantIds, store: tx, project: { id: project, settings: tx.settings() }, log: deps.log };
        const grant = createGrant(ctx, findEndUser(tx, String(req.params.userId)), undefined, body.expiresAt);
        await tx.commit();
        return { status: 201, body: { userId: grant.userId, scope: "project", expiresAt: new Date(grant.expiresAtMs).toISOString() } };
      }),
    ),
  );
  router.post("/balances", route(writing(async ({ projectId, body }) => creditBalance(deps, projectId ?? deps.projects.defaultProjectId(), body))));
  // Custodial money: balances of accounts, and deposits arriving at deposit destinations.
  const money = { store: deps.store, clock: deps.clock, random: deps.random.fork("money") };
  router.post(
    "/accounts/:accountId/fund",
    route(
      writing(({ projectId, body }, req) => fundAccountInProject(money, projectId ?? deps.projects.defaultProjectId(), String(req.params.accountId), body)),
    ),
  );
  router.post(
    "/deposit-destinations/:depositDestinationId/deposit",
    route(
      writing(({ projectId, body }, req) =>
        depositInProject(money, projectId ?? deps.projects.defaultProjectId(), String(req.params.depositDestinationId), body),
      ),
    ),
  );
  // The RSA key to encrypt imported private keys with: pass it to the client as `encryptionPublicKey`.
  router.get(
    "/import-key",
    route(() => ({ body: { publicKeyPem: deps.keys.importKey.publicKeyPem, algorithm: "RSA-OAEP-SHA256" } })),
  );

  router.post(
    "/clock",
    route(({ body }) => {
      const { set, advance, freeze } = body;
      if (set === undefined && advance === undefined && freeze === undefined) {
        throw apiError("invalid_request", 'Give one of set (ISO timestamp), advance (duration such as "15m") or freeze (boolean).');
      }
      let target: number | undefined;
      let step: number | undefined;
      if (set !== undefined) {
        target = typeof set === "string" ? Date.parse(set) : Number.NaN;
        if (!Number.isFinite(target)) throw apiError("invalid_request", `set must be an ISO-8601 timestamp, got ${JSON.stringify(set)}.`);
      }
      if (advance !== undefined) {
        step = typeof advance === "string" || typeof advance === "number" ? parseDuration(advance) : undefined;
        if (step === undefined)
          throw apiError("invalid_request", `advance must be a duration such as "15m", "1h30m" or a number of ms, got ${JSON.stringify(advance)}.`);
      }
      if (freeze !== undefined && typeof freeze !== "boolean") throw apiError("invalid_request", "freeze must be true or false.");
      // validate everything first, then change the clock once per field
      if (freeze !== undefined) deps.clock.freeze(freeze as boolean);
      if (target !== undefined) deps.clock.set(target);
      if (step !== undefined) deps.clock.advance(step);
      return { body: clockView() };
    }),
  );

  router.post(
    "/reset",
    route(
      replacing(async ({ projectId }) => {
        const targets = projectId ? [deps.store.project(projectId)!] : deps.store.projects();
        for (const project of targets) project.data = {};
        await deps.store.save();
        if (!projectId) deps.journal.clear();
        return { body: { reset: projectId ? "project" : "all", projectId } };
      }),
    ),
  );

  router.post(
    "/snapshots",
    route(({ projectId }) => ({ status: 201, body: { snapshotId: snapshots.take(projectId, deps.clock.iso()), scope: projectId ? "project" : "global" } })),
  );

  router.post(
    "/snapshots/:snapshotId/restore",
    route(
      replacing(async ({ projectId }, req) => {
        const id = String(req.params.snapshotId);
        if (!(await snapshots.restore(id, projectId))) throw apiError("not_found", `Snapshot ${id} was not found in this scope.`);
        deps.projects.reindex();
        return { body: { restored: id } };
      }),
    ),
  );

  router.get(
    "/requests",
    route(({ projectId }) => ({ body: { requests: deps.journal.list(projectId) } })),
  );
  router.delete(
    "/requests",
    route(({ projectId }) => {
      deps.journal.clear(projectId);
      return { body: { cleared: true } };
    }),
  );

  router.post(
    "/webhooks/flush",
    route(({ projectId }) => flushWebhooks(deps, projectId)),
  );
  router.get(
    "/webhooks/deliveries",
    route(({ projectId, query }) => listDeliveries(deps, projectId ?? deps.projects.defaultProjectId(), query)),
  );
  router.post(
    "/webhooks/:subscriptionId/test",
    // Not under the project's lock: it waits for the delivery, and the receiver may call the sandbox back.
    route(({ projectId, body }, req) =>
      sendTestEvent({ ...deps, random: webhookTests }, projectId ?? deps.projects.defaultProjectId(), String(req.params.subscriptionId), body),
    ),
  );

  // x402 Bazaar curation: bundles of resources (CDP-curated on the platform).
  const inProject = async <T>(projectId: string | undefined, work: (tx: ReturnType<Store["begin"]>) => T): Promise<T> => {
    const tx = deps.store.begin(projectId ?? deps.projects.defaultProjectId());
    const result = work(tx);
    await tx.commit();
    return result;
  };
  router.put(
    "/x402/bundles/:slug",
    route(
      writing(async ({ projectId, body }, req) => {
        const bundle = await inProject(projectId, (tx) => putBundle(tx, deps.clock.now(), String(req.params.slug), body));
        return { body: { slug: bundle.slug, name: bundle.name, description: bundle.description, resources: bundle.resources } };
      }),
    ),
  );
  router.delete(
    "/x402/bundles/:slug",
    route(
      writing(async ({ projectId }, req) => {
        await inProject(projectId, (tx) => deleteBundle(tx, String(req.params.slug)));
        return { body: { deleted: String(req.params.slug) } };
      }),
    ),
  );

  const engine = () => {
    if (!deps.scenarioEngine) throw apiError("not_found", "Scenarios are not available in this sandbox (a custom scenario hook is installed).");
    return deps.scenarioEngine;
  };
  router.get(
    "/scenarios",
    route((call) => listScenarios(engine(), call)),
  );
  router.post(
    "/scenarios",
    route((call) => activateScenario(engine(), call)),
  );
  router.delete(
    "/scenarios",
    route((call) => deactivateScenarios(engine(), call)),
  );

  // The hosted pages behind the Onramp API's links (session URL, payment links, upgrade page) and the code outbox.
  router.use(
    "/onramp",
    createOnrampPagesRouter({
      store: deps.store,
      clock: deps.clock,
      random: deps.random,
      log: deps.log,
      projectOf: async (req) => {
        if (!req.headers.authorization || deps.authMode === "none") return undefined;
        const ex = { method: req.method.toUpperCase(), host: req.headers.host ?? "", fullPath: new URL(req.originalUrl, "http://x").pathname } as Exchange;
        await authenticateApiKey(ex, { mode: deps.authMode, projects: deps.projects }, req.headers.authorization);
        return ex.projectId;
      },
    }),
  );

  router.use(
    route((_call, req) => {
      throw apiError("not_found", `The sandbox admin API has no ${req.method} ${req.originalUrl.split("?")[0]}.`);
    }),
  );
  return router;
}
