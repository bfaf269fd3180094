/**
 * Custom authentication: the developer's own identity provider signs the end
 * user's JWT, and the project is configured with its JWKS (inline, or a
 * loopback URL the sandbox fetches), issuer and audience
 * (settings.embeddedWallets.customAuth). The JWT is checked with jose on the
 * sandbox clock; the end user is the one known by the JWT's key id and `sub`,
 * created on first sign-in. The same JWT is then the bearer of every call.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from "jose";
import { apiError } from "../../errors/catalogue.js";
import type { Store } from "../../store/store.js";
import { endUsers, endUserView, identityOf } from "../records/endUsers.js";
import type { Handler } from "../types.js";
import { assertMethodEnabled, projectSettings } from "./project.js";
import { embeddedWalletSettings, type CustomAuthSettings } from "./settings.js";
import { endUserFor } from "./session.js";

const remoteSets = new Map<string, JWTVerifyGetKey>();

function keySet(custom: CustomAuthSettings): JWTVerifyGetKey {
  if (custom.jwks) return createLocalJWKSet(custom.jwks as Parameters<typeof createLocalJWKSet>[0]);
  if (!custom.jwksUrl) throw apiError("unauthorized", "The project has no JWKS for custom authentication (settings.embeddedWallets.customAuth).");
  const url = new URL(custom.jwksUrl);
  // Offline by design: only a server on this machine is asked for keys.
  if (!["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) throw apiError("unauthorized", "customAuth.jwksUrl must be a loopback URL.");
  let set = remoteSets.get(url.href);
  if (!set) {
    set = createRemoteJWKSet(url, { cooldownDuration: 0 });
    if (remoteSets.size > 64) remoteSets.clear();
    remoteSets.set(url.href, set);
  }
  return set;
}

/** The verified JWT's key id and subject, or the reason it is refused (401). */
async function verifyCustomJwt(custom: CustomAuthSettings | undefined, token: string, nowMs: number): Promise<{ kid: string; sub: string }> {
  if (!custom?.issuer) throw apiError("unauthorized", "Custom authentication is not configured for this project (settings.embeddedWallets.customAuth.issuer).");
  try {
    const { payload, protectedHeader } = await jwtVerify(token, keySet(custom), {
      issuer: custom.issuer,
      audience: custom.audience,
      currentDate: new Date(nowMs),
    });
    if (typeof payload.sub !== "string" || payload.sub === "") throw apiError("unauthorized", "The JWT has no sub.");
    return { kid: protectedHeader.kid ?? "", sub: payload.sub };
  } catch (error) {
    if (error instanceof Error && error.name === "ApiError") throw error;
    throw apiError("unauthorized", `The JWT is not valid for this project's custom authentication: ${(error as Error).message}`);
  }
}

export const authenticateUserWithCustomAuth: Handler<"authenticateUserWithCustomAuth"> = async (req, ctx) => {
  const settings = projectSettings(req.pathParams.projectId, ctx);
  assertMethodEnabled(settings, "jwt");
  const token = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
  if (!token) throw apiError("unauthorized", "Send the end user's JWT as the bearer token.");
  const { kid, sub } = await verifyCustomJwt(settings.customAuth, token, ctx.clock.now());
  const { user, isNew } = endUserFor(ctx.store, ctx, { type: "jwt", kid, sub }, undefined);
  return { status: 200, body: { endUser: endUserView(user), isNewEndUser: isNew, message: "Signed in." } };
};

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
  const tx = store.begin(projectId);
  try {
    const custom = embeddedWalletSettings(tx.settings()).customAuth;
    const { kid, sub } = await verifyCustomJwt(custom, token, nowMs);
    const user = endUsers(tx).findBy("identity", identityOf({ type: "jwt", kid, sub }));
    return user ? { projectId, endUserId: user.userId } : undefined;
  } catch {
    return undefined;
  } finally {
    tx.discard();
  }
}
