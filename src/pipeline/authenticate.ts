/**
 * Stage: who is calling, and for which project. Bearer tokens are checked
 * against the machine's wall clock (never the sandbox clock), like the
 * platform. Operations the contract marks `unauthenticated` need no token.
 * End-user access tokens (`endUserAuth`) are recognised by an optional
 * authenticator supplied by the end-user feature.
 */
import { verifyBearer, type AuthMode } from "../auth/bearer.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Exchange } from "./exchange.js";

/** Recognises an end-user access token; resolves undefined when the token is not one. */
export type EndUserAuthenticator = (token: string, ex: Exchange) => Promise<{ projectId: string; endUserId: string } | undefined>;

export interface AuthDeps {
  mode: AuthMode;
  projects: ProjectRegistry;
  endUserAuth?: EndUserAuthenticator;
}

export async function authenticate(ex: Exchange, deps: AuthDeps): Promise<void> {
  const op = ex.operation!;
  const schemes = new Set(op.security.flat());
  const authorization = ex.headers.authorization;
  if (schemes.has("unauthenticated") && !authorization) {
    ex.projectId = deps.projects.defaultProjectId();
    ex.auth = { kind: "none", verified: false };
    return;
  }
  if (deps.mode === "none") {
    ex.projectId = deps.projects.defaultProjectId();
    ex.auth = { kind: "none", verified: false };
    return;
  }
  if (schemes.has("endUserAuth") && authorization && deps.endUserAuth) {
    const token = authorization.replace(/^Bearer\s+/i, "");
    const endUser = await deps.endUserAuth(token, ex);
    if (endUser) {
      ex.projectId = endUser.projectId;
      ex.auth = { kind: "endUser", endUserId: endUser.endUserId, verified: true };
      return;
    }
  }
  if (!schemes.has("apiKeyAuth") && !schemes.has("unauthenticated")) {
    throw apiError("unauthorized", `${op.operationId} needs an end-user access token (endUserAuth); an API key cannot call it.`);
  }
  await authenticateApiKey(ex, deps, authorization);
}

/** Also used by the admin API, whose calls may carry a bearer token to scope them to a project. */
export async function authenticateApiKey(ex: Exchange, deps: AuthDeps, authorization: string | undefined): Promise<void> {
  const result = await verifyBearer(authorization, { method: ex.method, host: ex.host, path: ex.fullPath }, (kid) => deps.projects.apiKey(kid), {
    mode: deps.mode,
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  const projectId = deps.projects.projectOfKey(result.keyId) ?? (await deps.projects.adoptUnknownKey(result.keyId));
  ex.projectId = projectId;
  ex.auth = { kind: "apiKey", keyId: result.keyId, verified: result.verified };
}
