/** Bearer and X-Wallet-Auth tokens as the official client mints them, for the benches (each token is used once). */
import { createHash, randomBytes } from "node:crypto";
import { SignJWT, importJWK, importPKCS8 } from "jose";

/** `(method, host, path) => Promise<bearer JWT>` for an API key. */
export async function bearerFactory(apiKeyId, apiKeySecret) {
  const raw = Buffer.from(apiKeySecret, "base64");
  const key = await importJWK({ kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") }, "EdDSA");
  return (method, host, path) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sub: apiKeyId, iss: "cdp", uris: [`${method} ${host}${path}`] })
      .setProtectedHeader({ alg: "EdDSA", kid: apiKeyId, typ: "JWT", nonce: randomBytes(16).toString("hex") })
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 120)
      .sign(key);
  };
}

/** The value with every object's keys in order: the wallet token's body hash is over this canonical JSON. */
export function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

/** `(method, host, path, body) => Promise<X-Wallet-Auth JWT>` for a wallet secret. */
export async function walletFactory(walletSecret) {
  const key = await importPKCS8(`-----BEGIN PRIVATE KEY-----\n${walletSecret}\n-----END PRIVATE KEY-----`, "ES256");
  return (method, host, path, body) => {
    const now = Math.floor(Date.now() / 1000);
    const reqHash = createHash("sha256")
      .update(JSON.stringify(sortKeys(body)))
      .digest("hex");
    return new SignJWT({ uris: [`${method} ${host}${path}`], reqHash })
      .setProtectedHeader({ alg: "ES256", typ: "JWT" })
      .setIssuedAt(now)
      .setNotBefore(now)
      .setJti(randomBytes(16).toString("hex"))
      .sign(key);
  };
}
