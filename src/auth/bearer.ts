/**
 * The bearer token check, as the platform performs it on the JWT the
 * official client signs with the API key (EdDSA or ES256, `uris` naming the
 * request). Every failure says which check failed, so a client bug is obvious.
 *
 * Modes: `strict` accepts only keys the sandbox issued or registered;
 * `verify` also accepts unknown keys, checking their claims but not their
 * signature (the caller learns this from `verified: false`); `none` skips auth.
 * A sandbox bound off loopback runs `verify` as `strict` unless the operator
 * accepts unknown keys (index.ts).
 */
import type { ApiKey } from "./credentials.js";
import { decodeJwt, signatureValid, urisMismatch, type RequestTarget } from "./jwt.js";
import { apiError } from "../errors/catalogue.js";

export type AuthMode = "verify" | "strict" | "none";

/** Allowed skew between the client's clock and the machine's, in seconds. */
const DEFAULT_LEEWAY_SECONDS = 30;
/** The platform refuses tokens that live longer than this. */
const MAX_LIFETIME_SECONDS = 120;

export interface BearerResult {
  keyId: string;
  /** False when the key is unknown and only the claims could be checked (`--auth verify`). */
  verified: boolean;
}

export interface BearerOptions {
  mode: AuthMode;
  nowSeconds: number;
  leewaySeconds?: number;
  /**
   * Called with the key id once the token's signature check is on its way to the signature thread, in the same turn:
   * a check the request needs next (its X-Wallet-Auth) can go over with it, one hand-off instead of two.
   */
  alongside?: (keyId: string) => void;
}

const reject = (message: string) => apiError("unauthorized", message);

export async function verifyBearer(
  authorization: string | undefined,
  target: RequestTarget,
  resolveKey: (keyId: string) => ApiKey | undefined,
  options: BearerOptions,
): Promise<BearerResult> {
  const leeway = options.leewaySeconds ?? DEFAULT_LEEWAY_SECONDS;
  if (authorization === undefined || authorization.trim() === "") throw reject('Missing Authorization header: expected "Bearer <JWT>".');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw reject('Malformed Authorization header: expected "Bearer <JWT>".');
  const jwt = decodeJwt(match[1]!);
  if (!jwt) throw reject("Malformed token: a JWT is three base64url parts of JSON objects.");

  const { header, claims } = jwt;
  const alg = header.alg;
  if (alg !== "EdDSA" && alg !== "ES256") throw reject(`Unsupported alg ${JSON.stringify(alg)}: tokens must be signed with EdDSA or ES256.`);
  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") throw reject("Malformed token: the header has no kid (the API key id).");
  if (claims.sub !== kid) throw reject(`The sub claim (${JSON.stringify(claims.sub)}) must equal the kid header (${kid}).`);
  if (claims.iss !== "cdp") throw reject(`The iss claim must be "cdp", got ${JSON.stringify(claims.iss)}.`);

  const key = resolveKey(kid);
  if (key) {
    if (key.alg !== alg) throw reject(`The token is signed with ${alg}, but API key ${kid} is an ${key.alg} key.`);
    const valid = signatureValid(jwt, alg, key.publicKey);
    options.alongside?.(kid);
    if (!(await valid)) throw reject(`Bad signature: the token was not signed by API key ${kid}.`);
  } else if (options.mode === "strict") {
    throw reject(
      `Unknown API key ${kid}: it is not known to this sandbox (create a project with it; --auth verify serves unknown keys on loopback, and off loopback with --accept-unknown-keys).`,
    );
  }

  const { nbf, exp, iat } = claims;
  if (typeof exp !== "number" || typeof nbf !== "number") throw reject("Malformed token: the nbf and exp claims must be numbers (seconds).");
  const now = options.nowSeconds;
  // Checked apart from the leeway, which is for clock skew: a token that ends before it starts is never valid.
  if (exp < nbf) throw reject(`Malformed token: exp ${exp} is earlier than nbf ${nbf}.`);
  if (exp + leeway < now) throw reject(`Token expired at ${exp} (now ${now}); the client must mint a fresh token per request.`);
  if (nbf - leeway > now) throw reject(`Token not yet valid: nbf ${nbf} is in the future (now ${now}); check the machine clock.`);
  // The lifetime is bounded from nbf and, when the token has one, from iat: either alone could be set far apart from exp.
  if (exp - nbf > MAX_LIFETIME_SECONDS) throw reject(`Token lifetime ${exp - nbf} s (nbf to exp) exceeds the allowed ${MAX_LIFETIME_SECONDS} s.`);
  if (iat !== undefined) {
    if (typeof iat !== "number") throw reject("Malformed token: the iat claim must be a number (seconds).");
    if (iat - leeway > now) throw reject(`Token issued in the future: iat ${iat} (now ${now}); check the machine clock.`);
    if (exp - iat > MAX_LIFETIME_SECONDS) throw reject(`Token lifetime ${exp - iat} s (iat to exp) exceeds the allowed ${MAX_LIFETIME_SECONDS} s.`);
  }

  const mismatch = urisMismatch(claims, target);
  if (mismatch) throw reject(mismatch);
  return { keyId: kid, verified: key !== undefined };
}
