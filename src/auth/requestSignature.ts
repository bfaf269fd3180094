/**
 * Request signing, the optional layer above the bearer token: once a project has registered an RSA public key
 * (at least 2048 bits) under a `kid`, every request authenticated with one of its API keys must also carry
 * `X-Signature`, a JWS in compact serialization signed with the matching private key. The bearer token stays
 * mandatory; the signature binds the exact request to a key only the project's server holds.
 *
 * What the JWS covers (its payload, a JSON object):
 *   method    the HTTP method, uppercase ("POST")
 *   uri       the request target as sent: path and query ("/platform/v2/evm/accounts?pageSize=2")
 *   bodyHash  lowercase hex SHA-256 of the body's bytes as sent (of no bytes when there is no body)
 *   iat       when it was signed, in seconds; within 300 s of the sandbox clock, either way
 *   jti       a value never used before by the project within that window (a replay is refused)
 * Its protected header names `alg` (RS256, RS384, RS512, PS256, PS384 or PS512) and the `kid` of a registered key.
 */
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { compactVerify, decodeProtectedHeader } from "jose";
import { apiError } from "../errors/catalogue.js";
import type { SigningKeyRecord } from "../store/state.js";

export const SIGNATURE_HEADER = "x-signature";
/** How far `iat` may be from the sandbox clock, in seconds, either way; also how long a jti is remembered. */
const SIGNATURE_WINDOW_SECONDS = 300;
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
const MIN_MODULUS_BITS = 2048;
const KID = /^[A-Za-z0-9._-]{1,128}$/;

/** The public key of a registration (SPKI or PKCS#1 PEM), normalised to SPKI PEM; 400 unless it is RSA of at least 2048 bits. */
export function readSigningKey(kid: string, pem: string): { publicKeyPem: string; modulusLength: number } {
  if (!KID.test(kid)) throw apiError("invalid_request", "kid must be 1 to 128 letters, digits, '.', '_' or '-'.");
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw apiError("invalid_request", `publicKey is not a PEM public key: ${(error as Error).message}.`);
  }
  if (key.asymmetricKeyType !== "rsa") {
    throw apiError(
      "invalid_request",
      `publicKey must be an RSA key (RSASSA-PKCS1-v1_5 or RSASSA-PSS signing); got ${key.asymmetricKeyType ?? "another kind"}.`,
    );
  }
  const modulusLength = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (modulusLength < MIN_MODULUS_BITS) throw apiError("invalid_request", `publicKey has ${modulusLength} bits; at least ${MIN_MODULUS_BITS} are required.`);
  return { publicKeyPem: key.export({ type: "spki", format: "pem" }).toString(), modulusLength };
}

/** Remembers the jtis of one project's signatures while they could be accepted, so that each is accepted once. */
export interface SignatureJtis {
  /** False when the jti was already used; `untilSeconds` is the last second of the sandbox clock its signature is accepted. */
  claim(jti: string, nowSeconds: number, untilSeconds: number): boolean;
}

/** How often (sandbox seconds) the jtis of signatures no longer accepted are dropped. */
const PRUNE_EVERY_SECONDS = 10;

export function createSignatureJtis(): SignatureJtis {
  const seen = new Map<string, number>();
  let lastPrune = Number.NEGATIVE_INFINITY;
  return {
    claim(jti, now, untilSeconds) {
      if (now - lastPrune >= PRUNE_EVERY_SECONDS) {
        for (const [id, until] of seen) if (until < now) seen.delete(id);
        lastPrune = now;
      }
      const until = seen.get(jti);
      if (until !== undefined && until >= now) return false;
      seen.set(jti, untilSeconds);
      return true;
    },
  };
}

export interface SignedRequest {
  method: string;
  target: string;
  rawBody: Buffer;
}

const reject = (message: string) => apiError("unauthorized", `X-Signature: ${message}`);

/** Checks `header` (the X-Signature value) against the request and the project's keys; throws 401 with the reason. */
export async function verifyRequestSignature(
  header: string | undefined,
  request: SignedRequest,
  keys: readonly SigningKeyRecord[],
  nowSeconds: number,
  jtis: SignatureJtis,
): Promise<void> {
  const kids = keys.map((k) => k.kid).join(", ");
  if (header === undefined || header.trim() === "") {
    throw reject(`missing: this project requires every request to be signed with one of its request-signing keys (${kids}).`);
  }
  let kid: unknown;
  let alg: unknown;
  try {
    ({ kid, alg } = decodeProtectedHeader(header.trim()));
  } catch {
    throw reject("not a JWS in compact serialization (three base64url parts).");
  }
  if (typeof alg !== "string" || !ALGORITHMS.includes(alg)) throw reject(`alg must be one of ${ALGORITHMS.join(", ")}; got ${JSON.stringify(alg)}.`);
  const key = keys.find((k) => k.kid === kid);
  if (!key) throw reject(`kid ${JSON.stringify(kid)} is not a request-signing key of this project (its keys: ${kids}).`);
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(header.trim(), createPublicKey(key.publicKeyPem), { algorithms: ALGORITHMS }));
  } catch {
    throw reject(`bad signature: not signed by the private key of ${key.kid}.`);
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw reject("the payload is not a JSON object.");
  }
  if (claims === null || typeof claims !== "object") throw reject("the payload is not a JSON object.");
  if (claims.method !== request.method) throw reject(`signed for method ${JSON.stringify(claims.method)}; the request is ${request.method}.`);
  if (claims.uri !== request.target) throw reject(`signed for uri ${JSON.stringify(claims.uri)}; the request is ${JSON.stringify(request.target)}.`);
  const bodyHash = createHash("sha256").update(request.rawBody).digest("hex");
  if (typeof claims.bodyHash !== "string" || claims.bodyHash.toLowerCase() !== bodyHash) {
    throw reject("bodyHash is not the SHA-256 (hex) of the request's body bytes.");
  }
  const iat = claims.iat;
  if (typeof iat !== "number" || !Number.isFinite(iat)) throw reject("iat must be a number (seconds).");
  if (Math.abs(iat - nowSeconds) > SIGNATURE_WINDOW_SECONDS) {
    throw reject(`iat ${iat} is more than ${SIGNATURE_WINDOW_SECONDS} s from the sandbox clock (${nowSeconds}).`);
  }
  if (typeof claims.jti !== "string" || claims.jti === "" || claims.jti.length > 256) throw reject("jti must be a non-empty string (at most 256 characters).");
  // Accepted while iat is within the window of the clock, so remembered until iat + the window and no longer.
  if (!jtis.claim(`${key.kid}\u0000${claims.jti}`, nowSeconds, iat + SIGNATURE_WINDOW_SECONDS))
    throw reject(`jti ${JSON.stringify(claims.jti)} was already used: a signature is accepted once.`);
}
