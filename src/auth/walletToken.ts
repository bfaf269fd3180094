/**
 * The X-Wallet-Auth check, on the token the official client signs for wallet
 * operations: ES256 with the project's
 * wallet secret, uris for this request, a body hash when the body has
 * content, and a jti that may be used once. The token has no exp; the
 * platform treats it as valid for a minute after iat.
 */
import type { KeyObject } from "node:crypto";
import { apiError } from "../errors/catalogue.js";
import { type DecodedJwt, decodeJwt, signatureValid, urisMismatch, type RequestTarget } from "./jwt.js";
import { canonicalSha256 } from "./reqHash.js";

const WALLET_TOKEN_MAX_AGE_SECONDS = 60;
const LEEWAY_SECONDS = 30;
const PRUNE_EVERY_SECONDS = 10;

/** Remembers jtis until their token could no longer be accepted anyway. */
export interface JtiRegistry {
  /** False when the jti was already used; `untilSeconds` is the last second its token is accepted. */
  claim(jti: string, nowSeconds: number, untilSeconds: number): boolean;
  /** How many jtis are remembered now. */
  readonly size: number;
}

export function createJtiRegistry(): JtiRegistry {
  const seen = new Map<string, number>();
  let lastPrune = 0;
  return {
    claim(jti, now, untilSeconds) {
      // Every few seconds: a jti is kept at most as long as its token lives (90 s), so the map holds the tokens of
      // that window and no more, whatever the rate.
      if (now - lastPrune >= PRUNE_EVERY_SECONDS) {
        for (const [id, until] of seen) if (until < now) seen.delete(id);
        lastPrune = now;
      }
      const until = seen.get(jti);
      if (until !== undefined && until >= now) return false;
      seen.set(jti, untilSeconds);
      return true;
    },
    get size() {
      return seen.size;
    },
  };
}

const reject = (message: string) => apiError("unauthorized", message);

/** A wallet token whose signature check was handed to the signature thread early, together with the bearer's. */
export interface EarlyWalletCheck {
  token: string;
  key: KeyObject;
  jwt: DecodedJwt;
  valid: Promise<boolean>;
}

/**
 * Starts the signature check of a wallet token under `key`, before the bearer token is known to be good; undefined
 * when the token would be refused before its signature is looked at (verifyWalletAuth then refuses it as usual).
 */
export function beginWalletSignatureCheck(token: string, key: KeyObject): EarlyWalletCheck | undefined {
  const jwt = decodeJwt(token.trim());
  if (jwt?.header.alg !== "ES256") return undefined;
  return { token, key, jwt, valid: signatureValid(jwt, "ES256", key) };
}

/**
 * @param body the parsed JSON body, or undefined when the request has none
 * @param walletKey the project's wallet public key; undefined when the sandbox
 *   does not know the secret (unverified projects), so only claims are checked
 */
export async function verifyWalletAuth(
  token: string,
  target: RequestTarget,
  body: unknown,
  walletKey: KeyObject | undefined,
  jtis: JtiRegistry,
  options: {
    nowSeconds: number;
    /** Names the expected signer in messages; the project's wallet secret by default. */
    signer?: string;
    /** A check begun early (beginWalletSignatureCheck): its answer is used when it was of this token and this key. */
    early?: EarlyWalletCheck;
  },
): Promise<void> {
  const early = options.early?.token === token && options.early.key === walletKey ? options.early : undefined;
  const jwt = early?.jwt ?? decodeJwt(token.trim());
  if (!jwt) throw reject("Malformed X-Wallet-Auth token: a JWT is three base64url parts of JSON objects.");
  const { header, claims } = jwt;
  if (header.alg !== "ES256") throw reject(`X-Wallet-Auth must be signed with ES256, got alg ${JSON.stringify(header.alg)}.`);
  if (walletKey && !(await (early?.valid ?? signatureValid(jwt, "ES256", walletKey)))) {
    throw reject(`X-Wallet-Auth has a bad signature: it was not signed with ${options.signer ?? "this project's wallet secret"}.`);
  }
  const now = options.nowSeconds;
  const iat = claims.iat;
  if (typeof iat !== "number") throw reject("Malformed X-Wallet-Auth token: the iat claim must be a number (seconds).");
  if (iat - LEEWAY_SECONDS > now) throw reject(`X-Wallet-Auth not yet valid: iat ${iat} is in the future (now ${now}).`);
  if (now - iat > WALLET_TOKEN_MAX_AGE_SECONDS + LEEWAY_SECONDS) {
    throw reject(`X-Wallet-Auth expired: it was issued at ${iat}, more than ${WALLET_TOKEN_MAX_AGE_SECONDS} s ago.`);
  }
  const nbf = claims.nbf;
  if (typeof nbf === "number" && nbf - LEEWAY_SECONDS > now) throw reject(`X-Wallet-Auth not yet valid: nbf ${nbf} is in the future.`);

  const mismatch = urisMismatch(claims, target);
  if (mismatch) throw reject(`X-Wallet-Auth: ${mismatch}`);

  const reqHash = claims.reqHash;
  if (reqHash !== undefined) {
    if (typeof reqHash !== "string") throw reject("X-Wallet-Auth: the reqHash claim must be a hex string.");
    if (body === undefined || reqHash.toLowerCase() !== (await canonicalSha256(body))) {
      throw reject("X-Wallet-Auth: reqHash does not match the request body (SHA-256 of the body's JSON with keys sorted).");
    }
  } else if (claims.req !== undefined && body !== undefined) {
    // Older clients put the sorted body itself in a `req` claim.
    if ((await canonicalSha256(claims.req)) !== (await canonicalSha256(body))) throw reject("X-Wallet-Auth: the req claim does not match the request body.");
  }

  const jti = claims.jti;
  if (typeof jti !== "string" || jti === "") throw reject("Malformed X-Wallet-Auth token: the jti claim is missing.");
  // Accepted until iat + 90 s at the latest (the age check above), so remembered that long and no longer.
  if (!jtis.claim(jti, now, iat + WALLET_TOKEN_MAX_AGE_SECONDS + LEEWAY_SECONDS)) throw reject(`X-Wallet-Auth replayed: jti ${jti} was already used.`);
}
