/**
 * Signing an end user in: find them by the identity they proved (or link it
 * to the signed-in end user), create them on first sign-in, and hand out an
 * access token (the sandbox's end-user token, accepted by endUserAuth and
 * validate-token) and a 7-day refresh token. Refresh tokens are kept only
 * as SHA-256 digests; browsers other than WebKit ones get theirs as an
 * HttpOnly cookie, every other client in the body (as the client expects).
 */
import { createHash } from "node:crypto";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { endUsers, endUserView, identityOf, type AuthenticationMethod, type EndUserRecord } from "../records/endUsers.js";
import { issueEndUserToken } from "./tokens.js";
import type { HandlerContext, RequestFacts } from "../types.js";

const REFRESH_TOKEN_TTL_MS = 7 * 24 * 3600_000;
const COOKIE = "cdp_refresh_token";

interface RefreshTokenRecord {
  userId: string;
  expiresAtMs: number;
  revoked: boolean;
}

const REFRESH_TOKENS = declareCollection<RefreshTokenRecord>("endUserRefreshTokens");

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** The end user who proved `method`: the signed-in one (linking it), the one already known by it, or a new one. */
export function endUserFor(tx: ProjectTx, ctx: HandlerContext, method: AuthenticationMethod, linkToUserId: string | undefined) {
  const found = findOrCreate(tx, ctx, method, linkToUserId);
  found.user.lastAuthenticatedAt = ctx.clock.iso();
  endUsers(tx).put(found.user.userId, found.user);
  return found;
}

function findOrCreate(tx: ProjectTx, ctx: HandlerContext, method: AuthenticationMethod, linkToUserId: string | undefined) {
  const users = endUsers(tx);
  const owner = users.findBy("identity", identityOf(method));
  if (linkToUserId) {
    const user = users.get(linkToUserId);
    if (!user) throw apiError("unauthorized", `The signed-in end user ${linkToUserId} no longer exists.`);
    // Linking a method the end user (or another one) already has is refused, as the platform refuses it.
    if (owner) {
      const whose = owner.userId === user.userId ? "This end user already signs" : "Another end user already signs";
      throw apiError("already_exists", `${whose} in with ${identityOf(method)}.`);
    }
    user.authenticationMethods.push(method);
    users.put(user.userId, user);
    return { user, isNew: false };
  }
  if (owner) return { user: owner, isNew: false };
  const user: EndUserRecord = {
    userId: ctx.random.uuid(),
    authenticationMethods: [method],
    evmAccounts: [],
    evmSmartAccounts: [],
    solanaAccounts: [],
    createdAt: ctx.clock.iso(),
  };
  users.put(user.userId, user);
  return { user, isNew: true };
}

/** Whether the caller is a browser that keeps cookies for the client (every one but WebKit's own). */
function wantsCookie(headers: Record<string, string>): boolean {
  const ua = headers["user-agent"] ?? "";
  return /^Mozilla\//.test(ua) && /(Chrome|Chromium|Firefox|Edg)\//.test(ua);
}

const cookiePath = (projectId: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth`;

function refreshCookie(projectId: string, token: string, maxAgeSeconds: number): string {
  return `${COOKIE}=${token}; Path=${cookiePath(projectId)}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax`;
}

/** Issues the access token and a new refresh token: the body fields and the headers of a sign-in answer. */
export async function startSession(req: RequestFacts, ctx: HandlerContext, user: EndUserRecord) {
  const { accessToken, expiresAt } = await issueEndUserToken(ctx.keys.endUserTokenSecret, { userId: user.userId, projectId: ctx.project.id }, ctx.clock.now());
  const refreshToken = ctx.random.secrets().hex(32);
  ctx.store
    .collection(REFRESH_TOKENS)
    .insert(digest(refreshToken), { userId: user.userId, expiresAtMs: ctx.clock.now() + REFRESH_TOKEN_TTL_MS, revoked: false });
  const cookie = wantsCookie(req.headers);
  return {
    body: { endUser: endUserView(user), accessToken, validUntil: expiresAt, ...(cookie ? {} : { refreshToken }) },
    headers: cookie ? { "set-cookie": refreshCookie(ctx.project.id, refreshToken, REFRESH_TOKEN_TTL_MS / 1000) } : undefined,
  };
}

function presentedRefreshToken(req: RequestFacts, bodyToken: string | undefined): string | undefined {
  if (bodyToken) return bodyToken;
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE && value.length > 0) return value.join("=");
  }
  return undefined;
}

/**
 * A new access token for a live refresh token. The refresh token is not rotated: a page that refreshes twice at
 * start-up (React's strict mode) must not sign itself out with the first answer.
 */
export async function refreshSession(req: RequestFacts, ctx: HandlerContext, bodyToken: string | undefined) {
  const token = presentedRefreshToken(req, bodyToken);
  if (!token) throw apiError("unauthorized", "No refresh token: send it in the body (refreshToken) or the cookie set at sign-in.");
  const record = ctx.store.collection(REFRESH_TOKENS).get(digest(token));
  if (!record || record.revoked) throw apiError("unauthorized", "The refresh token is not valid (unknown, or signed out).");
  if (record.expiresAtMs <= ctx.clock.now()) throw apiError("unauthorized", "The refresh token expired; sign in again.");
  const user = endUsers(ctx.store).get(record.userId);
  if (!user) throw apiError("unauthorized", "The refresh token's end user no longer exists.");
  const { accessToken, expiresAt } = await issueEndUserToken(ctx.keys.endUserTokenSecret, { userId: user.userId, projectId: ctx.project.id }, ctx.clock.now());
  const cookie = wantsCookie(req.headers) && !bodyToken;
  const maxAge = Math.floor((record.expiresAtMs - ctx.clock.now()) / 1000);
  return {
    body: { endUser: endUserView(user), accessToken, validUntil: expiresAt, ...(cookie ? {} : { refreshToken: token }) },
    headers: cookie ? { "set-cookie": refreshCookie(ctx.project.id, token, maxAge) } : undefined,
  };
}

/** Revokes the presented refresh token (if any) and clears the cookie. */
export function endSession(req: RequestFacts, ctx: HandlerContext, bodyToken: string | undefined): Record<string, string> {
  const token = presentedRefreshToken(req, bodyToken);
  const tokens = ctx.store.collection(REFRESH_TOKENS);
  const record = token ? tokens.get(digest(token)) : undefined;
  if (token && record && !record.revoked) tokens.put(digest(token), { ...record, revoked: true });
  return { "set-cookie": refreshCookie(ctx.project.id, "", 0) };
}
