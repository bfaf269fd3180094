/**
 * The sandbox's own API under /_sandbox, routed and validated from
 * admin-openapi.yaml through the same operation index and validator as the
 * platform API: route → body → contract check (400 `invalid_request` naming
 * the field) → optional bearer token (scopes the call to that key's project)
 * → the operation's locks → its handler. Errors leave in the platform's
 * error body. Before all of it, `guard.ts` turns away other sites, foreign
 * Host names and, when an admin token is in force, calls without it.
 */
import type { Request, Response } from "express";
import type { OperationIndex } from "../contract/operations.js";
import { describeProblems, validateRequest, validateResponse } from "../contract/validate.js";
import { apiError } from "../errors/catalogue.js";
import { authenticateApiKey } from "../pipeline/authenticate.js";
import { parseBody } from "../pipeline/body.js";
import { errorResponse } from "../pipeline/errors.js";
import { type Exchange, jsonResponse, newExchange, type Outgoing } from "../pipeline/exchange.js";
import { sendOutgoing } from "../pipeline/write.js";
import type { Random } from "../random.js";
import { Snapshots } from "../store/snapshots.js";
import { type AdminAccess, guardAdminRequest } from "./guard.js";
import { adminHandlers } from "./handlers.js";
import { type AdminContext, type AdminHandler, type AdminOperationId, callerProject, type ServedFile } from "./types.js";

export const ADMIN_PREFIX = "/_sandbox";

export type AdminApiDeps = Omit<AdminContext, "snapshots" | "random"> & {
  /** The sandbox's snapshots, when another door (the node's evm_snapshot) takes them too. */
  snapshots?: Snapshots;
  /** The operations of admin-openapi.yaml. */
  operations: OperationIndex;
  random: Random;
  /** Where the sandbox is reached and its admin token, for the guard. */
  adminAccess: AdminAccess;
  /** Check every JSON answer against admin-openapi.yaml, as the platform API's are (a mismatch becomes a 500 naming it). */
  validateResponses?: boolean;
};

/** Any admin handler, as the router calls it once the request has passed the document's checks. */
type RoutedCall = { projectId?: string; pathParams: Record<string, string>; query: Record<string, string | string[]>; body: unknown };
type RoutedResult = { status: number; body?: unknown; headers?: Record<string, string> };
type RoutedHandler = ((call: RoutedCall, ctx: AdminContext) => RoutedResult | Promise<RoutedResult>) &
  Pick<AdminHandler<AdminOperationId>, "lock"> & {
    readonly htmlTitle?: (call: RoutedCall) => string;
    readonly file?: (call: RoutedCall) => Promise<ServedFile>;
  };

/**
 * Reading the journal (or the dashboard's page) is not recorded in it: a poll would bury what it looks for. Nor is
 * an export: its body is the whole state, private keys included, and the journal file would keep a copy.
 */
const UNRECORDED = new Set([
  "listSandboxRequests",
  "getSandboxRequest",
  "getSandboxRequestsHar",
  "getSandboxCoverage",
  "openSandboxDashboard",
  "getSandboxDashboardAsset",
  "exportSandboxState",
]);

/** Hosted pages that make whoever opens them an end user of their choosing. */
const SIGN_IN_PAGES = new Set(["openSandboxOAuthConsentPage", "grantSandboxOAuthConsent"]);

/** The dashboard marks its calls; its polling reads are left out of the journal too, its changes are not. */
const recorded = (ex: Exchange) =>
  !(ex.operation && UNRECORDED.has(ex.operation.operationId)) && !(ex.method === "GET" && ex.headers["x-sandbox-dashboard"] !== undefined);

const isEmptyObject = (value: unknown) => value === null || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page for a browser or webview: the answer's JSON, readable. */
function htmlPage(title: string, body: unknown): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)} · cdp-sandbox</title></head><body><h1>${escapeHtml(title)}</h1><p>Simulated by cdp-sandbox.</p><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></body></html>`;
}

export function createAdminApi(deps: AdminApiDeps): (req: Request, res: Response) => void {
  const ctx: AdminContext = {
    ...deps,
    snapshots: deps.snapshots ?? new Snapshots(deps.store, deps.random.fork("snapshots")),
    random: {
      walletSecrets: deps.random.fork("end-user-wallet-secrets"),
      grants: deps.random.fork("admin-delegation-grants"),
      webhookTests: deps.random.fork("admin-webhook-tests"),
      money: deps.random.fork("money"),
      settle: deps.random.fork("admin-settle"),
      coinbaseUsers: deps.random.fork("coinbase-users"),
      oauthConsent: deps.random.fork("oauth-consent"),
    },
  };
  const correlationIds = deps.random.fork("admin-correlation");

  /**
   * The project a call acts on: its bearer token's, or the one X-Sandbox-Project names (the dashboard holds no
   * API key); both at once must agree.
   */
  function namedProject(header: string | undefined, fromToken: string | undefined): string | undefined {
    if (header === undefined || header === "") return fromToken;
    if (!deps.store.project(header)) throw apiError("not_found", `Project ${header} was not found.`);
    if (fromToken !== undefined && fromToken !== header) {
      throw apiError("forbidden", `X-Sandbox-Project names project ${header}, but the bearer token belongs to another project.`);
    }
    return header;
  }

  async function carryOut(ex: Exchange, req: Request): Promise<Outgoing> {
    // The dashboard's page is /_sandbox/ui/ (relative links resolve under it) and /_sandbox/ui.
    const match = deps.operations.match(ex.method, ex.path === "/ui/" ? "/ui" : ex.path);
    // The hosted pages (`security: [{}]` alone) are opened by browsers and webviews, which hold no admin token; those
    // that hand out an identity are held to it off loopback all the same (guard.ts).
    const hostedPage = match.kind === "found" && match.operation.security.length === 1 && match.operation.security[0]!.length === 0;
    const signInPage = hostedPage && SIGN_IN_PAGES.has(match.operation.operationId);
    guardAdminRequest(ex.headers, signInPage ? "sign-in" : hostedPage ? "hosted" : "none", deps.adminAccess);
    if (match.kind === "malformed") throw apiError("invalid_request", `The path segment '${match.segment}' has a malformed percent-escape.`);
    if (match.kind !== "found") {
      const allowed = match.kind === "method-not-allowed" ? `; it supports ${match.allowed.join(", ")}` : "";
      throw apiError("not_found", `The sandbox admin API has no ${ex.method} ${ex.fullPath}${allowed}.`);
    }
    const op = match.operation;
    ex.operation = op;
    ex.body = parseBody(ex.rawBody, ex.headers["content-type"]);
    if (op.http.request?.body) {
      // As on the platform API: an operation that declares a body checks a missing (or null) one as {}.
      if (ex.body === undefined || ex.body === null) ex.body = {};
    } else if (isEmptyObject(ex.body)) {
      // `{}` where no body is declared says nothing (clients send it on every POST); anything more is refused.
      ex.body = undefined;
      const { "content-length": _length, "content-type": _type, ...headers } = ex.headers;
      ex.headers = headers;
    }
    const problems = validateRequest(op.http, ex);
    if (problems.length > 0) throw apiError("invalid_request", describeProblems(problems));
    const tokenProject =
      ex.headers.authorization && deps.authMode !== "none"
        ? (
            await authenticateApiKey(
              { method: ex.method, host: ex.host, path: ex.fullPath },
              { mode: deps.authMode, projects: deps.projects },
              ex.headers.authorization,
            )
          ).projectId
        : undefined;
    const projectId = namedProject(ex.headers["x-sandbox-project"], tokenProject);
    ex.projectId = projectId;
    const handler = adminHandlers[op.operationId as AdminOperationId] as unknown as RoutedHandler;
    const call: RoutedCall = { projectId, pathParams: match.pathParams, query: ex.query, body: ex.body };
    if (handler.file) {
      const file = await handler.file(call);
      return { status: 200, headers: { "content-type": file.contentType, ...file.headers }, bodyText: file.text };
    }
    const run = async () => handler(call, ctx);
    const result =
      handler.lock === "project"
        ? await deps.locks.run(callerProject(call, ctx), true, run)
        : handler.lock === "scope"
          ? await deps.locks.runExclusive(projectId ? [projectId] : deps.store.projects().map((p) => p.id), run)
          : await run();
    if (handler.htmlTitle && req.accepts(["json", "html"]) === "html") {
      return { status: result.status, headers: { "content-type": "text/html; charset=utf-8" }, bodyText: htmlPage(handler.htmlTitle(call), result.body) };
    }
    if (deps.validateResponses) {
      const problems = validateResponse(op.http, { status: result.status, headers: { "content-type": "application/json" }, body: result.body });
      if (problems.length > 0) {
        const message = `The sandbox's response to ${op.operationId} (status ${result.status}) does not match the admin contract: ${describeProblems(problems)}`;
        deps.log(message);
        throw apiError("internal_server_error", message);
      }
    }
    return jsonResponse(result.status, result.body, result.headers);
  }

  return (req, res) => {
    const ex = newExchange(req, req.originalUrl, ADMIN_PREFIX, correlationIds.hex(8));
    carryOut(ex, req)
      .catch((error: unknown) => errorResponse(error, ex.correlationId, deps.log))
      .then((out) => {
        out.headers["x-correlation-id"] = ex.correlationId;
        sendOutgoing(res, out);
        ex.response = out;
        if (recorded(ex)) deps.journal.record(ex, Date.now(), "admin");
      });
  };
}
