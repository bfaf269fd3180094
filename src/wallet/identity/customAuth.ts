/**
 * Custom authentication: the developer's own identity provider signs the end
 * user's JWT, and the project is configured with its JWKS (inline, or a
 * loopback URL the sandbox fetches: jwks.ts), issuer and audience
 * (settings.embeddedWallets.customAuth). The JWT is checked with jose on the
 * sandbox clock; it must carry `exp`, and live at most MAX_LIFETIME_S (from its
 * `iat`, or from now without one). The end user is the one known by the JWT's
 * key id and `sub`, created on first sign-in. The same JWT is then the bearer
 * of every call.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from "jose";
import { apiError } from "../../errors/catalogue.js";
import type { Store } from "../../store/store.js";
import { endUsers, endUserView, identityOf } from "../records/endUsers.js";
import type { BeforeLock, Handler } from "../types.js";
import { cachedJwks, prepareJwks } from "./jwks.js";
import { assertMethodEnabled, projectSettings } from "./project.js";
import { embeddedWalletSettings, type CustomAuthSettings } from "./settings.js";
import { endUserFor } from "./session.js";

/** The longest lifetime a custom-auth JWT may claim: a day. */
const MAX_LIFETIME_S = 24 * 3600;

/** The loopback URL of the project's key set; remote ones are refused (the sandbox stays offline). */
function loopbackJwksUrl(custom: CustomAuthSettings): string {
  if (!custom.jwksUrl) throw apiError("unauthorized", "The project has no JWKS for custom authentication (settings.embeddedWallets.customAuth).");
  const url = new URL(custom.jwksUrl);
  if (!["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) throw apiError("unauthorized", "customAuth.jwksUrl must be a loopback URL.");
  return url.href;
}

function keySet(custom: CustomAuthSettings): JWTVerifyGetKey {
  if (custom.jwks) return createLocalJWKSet(custom.jwks as Parameters<typeof createLocalJWKSet>[0]);
  return cachedJwks(loopbackJwksUrl(custom));
}

/** Fetches (when due) the key set a JWT will be checked against: before any lock is held. */
async function prepareKeysFor(custom: CustomAuthSettings | undefined, token: string): Promise<void> {
  if (!custom || custom.jwks || !custom.jwksUrl) return;
  let url: string;
  let kid: string | undefined;
  try {
    url = loopbackJwksUrl(custom);
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return; // refused when verified
  }
  await prepareJwks(url, kid);
}

const bearerOf = (headers: Record<string, string>) => (headers.authorization ?? "").replace(/^Bearer\s+/i, "");

/** The verified JWT's key id and subject, or the reason it is refused (401). */
async function verifyCustomJwt(custom: CustomAuthSettings | undefined, token: string, nowMs: number): Promise<{ kid: string; sub: string }> {
  if (!custom?.issuer || !custom.audience) {
    throw apiError("unauthorized", "Custom authentication is not configured for this project (settings.embeddedWallets.customAuth: issuer and audience).");
  }
  try {
    const { payload, protectedHeader } = await jwtVerify(token, keySet(custom), {
      issuer: custom.issuer,
      audience: custom.audience,
      currentDate: new Date(nowMs),
      requiredClaims: ["exp"],
    });
    if (typeof payload.sub !== "string" || payload.sub === "") throw apiError("unauthorized", "The JWT has no sub.");
    const lifetime = payload.exp! - (typeof payload.iat === "number" ? payload.iat : Math.floor(nowMs / 1000));
    if (lifetime > MAX_LIFETIME_S) throw apiError("unauthorized", `The JWT lives ${lifetime} s; custom authentication accepts at most ${MAX_LIFETIME_S} s.`);
    return { kid: protectedHeader.kid ?? "", sub: payload.sub };
  } catch (error) {
    if (error instanceof Error && error.name === "ApiError") throw error;
    throw apiError("unauthorized", `The JWT is not valid for this project's custom authentication: ${(error as Error).message}`);
  }
}

const prepareCustomAuthKeys: BeforeLock = (req, project) => prepareKeysFor(embeddedWalletSettings(project.settings).customAuth, bearerOf(req.headers));

const authenticate: Handler<"authenticateUserWithCustomAuth"> = async (req, ctx) => {
  const settings = projectSettings(req.pathParams.projectId, ctx);
  assertMethodEnabled(settings, "jwt");
  const token = bearerOf(req.headers);
  if (!token) throw apiError("unauthorized", "Send the end user's JWT as the bearer token.");
  const { kid, sub } = await verifyCustomJwt(settings.customAuth, token, ctx.clock.now());
  const { user, isNew } = endUserFor(ctx.store, ctx, { type: "jwt", kid, sub }, undefined);
  return { status: 200, body: { endUser: endUserView(user), isNewEndUser: isNew, message: "Signed in." } };
};

export const authenticateUserWithCustomAuth: Handler<"authenticateUserWithCustomAuth"> = Object.assign(authenticate, { beforeLock: prepareCustomAuthKeys });

/**
 * Recognises a custom-auth JWT as the bearer of an embedded-wallet call, for the project it names
 * (`projectID`, as the client sends it): the end user it signs in, or undefined when it is not one.
 */
export async function customJwtEndUser(store: Store, projectId: string | undefined, token: string, nowMs: number) {
  if (!projectId || !store.projects().some((p) => p.id === projectId)) return undefined;
  try {
    decodeProtectedHeader(token);
  } catch {
    return undefined;
  }
  const custom = embeddedWalletSettings(store.project(projectId)?.settings ?? {}).customAuth;
  // The bearer check runs before the project's lock: the key set may be fetched here.
  await prepareKeysFor(custom, token);
  const tx = store.begin(projectId);
  try {
    const { kid, sub } = await verifyCustomJwt(custom, token, nowMs);
    const user = endUsers(tx).findBy("identity", identityOf({ type: "jwt", kid, sub }));
    return user ? { projectId, endUserId: user.userId } : undefined;
  } catch {
    return undefined;
  } finally {
    tx.discard();
  }
}
