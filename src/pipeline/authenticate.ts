/**
 * Stage: who is calling, and for which project. Bearer tokens are checked
 * against the machine's wall clock (never the sandbox clock), like the
 * platform. Operations the contract marks `unauthenticated` need no token.
 * End-user access tokens (`endUserAuth`) are recognised by the end-user
 * authenticator the assembly passes in (the identity module's: the sandbox's
 * own tokens and a project's custom JWTs behind one interface); a payer's
 * Coinbase OAuth token (operations with no scheme) by one over the simulated
 * Coinbase users.
 */
import type { KeyObject } from "node:crypto";
import { type AuthMode, verifyBearer } from "../auth/bearer.js";
import type { RequestTarget } from "../auth/jwt.js";
import type { Operation } from "../contract/operations.js";
import { apiError } from "../errors/catalogue.js";
import type { RequestAuth } from "../wallet/types.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Exchange } from "./exchange.js";

/**
 * Who an end user is, as the pipeline asks it: whom an access token signs in (whatever kind of token the project
 * accepts), and the key they sign X-Wallet-Auth with. One object, so every way of signing end users in answers both.
 */
export interface EndUserAuthenticator {
  /** The end user `token` signs in, for the project the request names; undefined when the token is not an end user's. */
  authenticate(token: string, request: Pick<Exchange, "query" | "pathParams">): Promise<{ projectId: string; endUserId: string } | undefined>;
  /** The public key of an end user's Temporary Wallet Secret, or why it cannot sign. */
  walletKey(projectId: string, endUserId: string, walletSecretId: string): { key: KeyObject } | { problem: string };
}

/**
 * Recognises a payer's Coinbase OAuth access token (a simulated Coinbase user's): its user, project and scopes, or
 * why it is refused (expired); undefined when the token is not one.
 */
export type CoinbaseAuthenticator = (
  token: string,
) => { ok: true; projectId: string; coinbaseUserId: string; scopes: string[] } | { ok: false; message: string } | undefined;

export interface AuthDeps {
  mode: AuthMode;
  projects: ProjectRegistry;
  endUsers?: EndUserAuthenticator;
  coinbaseAuth?: CoinbaseAuthenticator;
  /** Called with the project an API key names as soon as its token's signature check is on its way (bearer.ts). */
  alongside?: (projectId: string) => void;
}

/** The security schemes each operation accepts, in one set: made on its first request, not on every one. */
const schemesOf = new WeakMap<Operation, ReadonlySet<string>>();

export async function authenticate(ex: Exchange, deps: AuthDeps): Promise<void> {
  const op = ex.operation!;
  let schemes = schemesOf.get(op);
  if (!schemes) {
    schemes = new Set(op.security.flat());
    schemesOf.set(op, schemes);
  }
  const authorization = ex.headers.authorization;
  if (schemes.size === 0 && authorization && deps.coinbaseAuth) {
    // No scheme: the operation takes a payer's Coinbase OAuth token, which names the project of its Coinbase user.
    const payer = deps.coinbaseAuth(authorization.replace(/^Bearer\s+/i, ""));
    if (payer && !payer.ok) throw apiError("unauthorized", payer.message);
    if (payer) {
      ex.projectId = payer.projectId;
      ex.auth = { kind: "coinbaseUser", coinbaseUserId: payer.coinbaseUserId, scopes: payer.scopes, verified: true };
      return;
    }
  }
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
  if (schemes.size === 0) {
    // Not a Coinbase token of the sandbox: the handler answers as the platform answers the caller it sees (an API key
    // is forbidden, anything else unauthorized).
    const caller = authorization ? await authenticateApiKey(apiKeyTarget(ex), deps, authorization).catch(() => undefined) : undefined;
    ex.projectId = caller?.projectId ?? deps.projects.defaultProjectId();
    ex.auth = caller?.auth ?? { kind: "none", verified: false };
    return;
  }
  if (schemes.has("endUserAuth") && authorization && deps.endUsers) {
    const token = authorization.replace(/^Bearer\s+/i, "");
    const endUser = await deps.endUsers.authenticate(token, ex);
    if (endUser) {
      ex.projectId = endUser.projectId;
      ex.auth = { kind: "endUser", endUserId: endUser.endUserId, verified: true };
      return;
    }
  }
  if (!schemes.has("apiKeyAuth") && !schemes.has("unauthenticated")) {
    throw apiError("unauthorized", `${op.operationId} needs an end-user access token (endUserAuth); an API key cannot call it.`);
  }
  const caller = await authenticateApiKey(apiKeyTarget(ex), deps, authorization);
  ex.projectId = caller.projectId;
  ex.auth = caller.auth;
}

const apiKeyTarget = (ex: Exchange): RequestTarget => ({ method: ex.method, host: ex.host, redirectedFrom: ex.redirectedFrom, path: ex.fullPath });

/**
 * The project an API-key bearer token acts for, checked as the platform checks
 * it. Also used by the node and the admin API, whose calls are not operations.
 */
export async function authenticateApiKey(
  target: RequestTarget,
  deps: Omit<AuthDeps, "endUsers">,
  authorization: string | undefined,
): Promise<{ projectId: string; auth: RequestAuth }> {
  const alongside = deps.alongside;
  const result = await verifyBearer(authorization, target, (kid) => deps.projects.apiKey(kid), {
    mode: deps.mode,
    nowSeconds: Math.floor(Date.now() / 1000),
    alongside:
      alongside &&
      ((kid) => {
        const projectId = deps.projects.projectOfKey(kid);
        if (projectId !== undefined) alongside(projectId);
      }),
  });
  const projectId = deps.projects.projectOfKey(result.keyId) ?? (await deps.projects.adoptUnknownKey(result.keyId));
  return { projectId, auth: { kind: "apiKey", keyId: result.keyId, verified: result.verified } };
}
