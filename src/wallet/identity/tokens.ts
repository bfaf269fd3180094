/**
 * End users' access tokens, as the sandbox issues them: at the end of a sign-in
 * (session.ts) and on request of the admin API (POST /_sandbox/end-users/{userId}/token).
 * HS256 JWTs with the sandbox's own secret, `sub` = userId, `pid` = project,
 * expiring on the sandbox clock so time travel expires them.
 */
import { jwtVerify, SignJWT } from "jose";

const END_USER_TOKEN_TTL_SECONDS = 60 * 60;
const ISSUER = "cdp-sandbox:end-user";

export interface EndUserTokenClaims {
  userId: string;
  projectId: string;
}

export async function issueEndUserToken(secret: Uint8Array, claims: EndUserTokenClaims, nowMs: number): Promise<{ accessToken: string; expiresAt: string }> {
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + END_USER_TOKEN_TTL_SECONDS;
  const accessToken = await new SignJWT({ pid: claims.projectId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(claims.userId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret);
  return { accessToken, expiresAt: new Date(exp * 1000).toISOString() };
}

export type EndUserTokenCheck = { ok: true; claims: EndUserTokenClaims } | { ok: false; reason: "malformed" | "expired" | "invalid" };

export async function checkEndUserToken(secret: Uint8Array, token: string, nowMs: number): Promise<EndUserTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, algorithms: ["HS256"], currentDate: new Date(nowMs) });
    if (typeof payload.sub !== "string" || typeof payload.pid !== "string") return { ok: false, reason: "invalid" };
    return { ok: true, claims: { userId: payload.sub, projectId: payload.pid } };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_JWT_EXPIRED") return { ok: false, reason: "expired" };
    if (code === "ERR_JWS_INVALID" || code === "ERR_JWT_INVALID") return { ok: false, reason: "malformed" };
    return { ok: false, reason: "invalid" };
  }
}
