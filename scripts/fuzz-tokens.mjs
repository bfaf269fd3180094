/**
 * Tokens for the fuzzer, minted with jose the way the official client mints
 * them (the API key's bearer JWT, the wallet secret's X-Wallet-Auth with the
 * hash of the key-sorted body), and the forged ones an attacker would try:
 * alg none, HS256 keyed with the public key, kid ≠ sub, lifetimes past 120 s.
 */
import { createHash, createPublicKey } from "node:crypto";
import { SignJWT, importJWK, importPKCS8 } from "jose";

/** @param {string} secret an API key secret: base64 Ed25519 seed ‖ public key, or a PKCS#8 PEM EC key */
async function apiKeyOf(secret) {
  if (secret.includes("BEGIN")) {
    const key = await importPKCS8(secret, "ES256");
    return { alg: "ES256", key, publicPem: createPublicKey(secret).export({ type: "spki", format: "pem" }).toString() };
  }
  const raw = Buffer.from(secret, "base64");
  const jwk = { kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") };
  const publicPem = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" })
    .export({ type: "spki", format: "pem" })
    .toString();
  return { alg: "EdDSA", key: await importJWK(jwk, "EdDSA"), publicPem };
}

/** Deep-sorted JSON, as the client hashes it for reqHash. */
function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  }
  return value;
}

/** The reqHash the client puts in X-Wallet-Auth, or undefined when the body has nothing to hash (or is too deep to sort). */
function reqHashOf(body) {
  if (!body || typeof body !== "object" || !Object.values(body).some((v) => v !== undefined)) return undefined;
  try {
    return createHash("sha256")
      .update(JSON.stringify(sortKeys(body)))
      .digest("hex");
  } catch {
    return undefined; // a body nested past the stack: the client could not hash it either, and sends none (as on retries)
  }
}

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * Signs for one project's credentials.
 * @param {{ apiKeyId: string, apiKeySecret: string, walletSecret?: string }} credentials (an empty apiKeySecret: wallet tokens only)
 * @param {() => string} nonce hex, from the run's seeded randomness
 */
export async function makeSigner(credentials, nonce) {
  const api = credentials.apiKeySecret ? await apiKeyOf(credentials.apiKeySecret) : undefined;
  const wallet = credentials.walletSecret
    ? await importPKCS8(`-----BEGIN PRIVATE KEY-----\n${credentials.walletSecret}\n-----END PRIVATE KEY-----`, "ES256")
    : undefined;
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  /**
   * A bearer token for `METHOD host path`; `times` and `claims`/`header` override what the client would send.
   * @param {{ method: string, host: string, path: string, times?: { iat?: number, nbf?: number, exp?: number }, claims?: object, header?: object }} t
   */
  function bearer(t) {
    const now = nowSeconds();
    const times = { iat: now, nbf: now, exp: now + 120, ...t.times };
    const claims = { sub: credentials.apiKeyId, iss: "cdp", uris: [`${t.method} ${t.host}${t.path}`], ...times, ...t.claims };
    return new SignJWT(claims).setProtectedHeader({ alg: api.alg, kid: credentials.apiKeyId, typ: "JWT", nonce: nonce(), ...t.header }).sign(api.key);
  }

  /** A token with alg none: header and claims as the client's, no signature. */
  function unsigned(t) {
    const now = nowSeconds();
    const header = { alg: "none", kid: credentials.apiKeyId, typ: "JWT" };
    const claims = { sub: credentials.apiKeyId, iss: "cdp", uris: [`${t.method} ${t.host}${t.path}`], iat: now, nbf: now, exp: now + 120 };
    return `${b64(header)}.${b64(claims)}.`;
  }

  /** HS256 keyed with the API key's public key (PEM): accepted only by a verifier that lets the token pick its algorithm. */
  function publicKeyHmac(t) {
    const now = nowSeconds();
    return new SignJWT({ sub: credentials.apiKeyId, iss: "cdp", uris: [`${t.method} ${t.host}${t.path}`], iat: now, nbf: now, exp: now + 120 })
      .setProtectedHeader({ alg: "HS256", kid: credentials.apiKeyId, typ: "JWT" })
      .sign(new TextEncoder().encode(api.publicPem));
  }

  /**
   * X-Wallet-Auth for `METHOD host path` over `body`.
   * @param {{ method: string, host: string, path: string, body?: unknown, withReqHash?: boolean, jti?: string, now?: number, claims?: object, header?: object }} t
   */
  function walletAuth(t) {
    if (!wallet) throw new Error("these credentials have no wallet secret");
    const now = t.now ?? nowSeconds();
    const claims = { uris: [`${t.method} ${t.host}${t.path}`], iat: now, nbf: now, jti: t.jti ?? nonce() };
    const hash = t.withReqHash === false ? undefined : reqHashOf(t.body);
    if (hash) claims.reqHash = hash;
    return new SignJWT({ ...claims, ...t.claims }).setProtectedHeader({ alg: "ES256", typ: "JWT", ...t.header }).sign(wallet);
  }

  return { apiKeyId: credentials.apiKeyId, bearer, unsigned, publicKeyHmac, walletAuth };
}

/** X-Wallet-Auth signed with an end user's Temporary Wallet Secret. */
export async function makeEndUserWalletSigner(walletSecret, nonce) {
  const signer = await makeSigner({ apiKeyId: "", apiKeySecret: "", walletSecret }, nonce);
  return signer.walletAuth;
}
