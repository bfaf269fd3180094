/**
 * Tokens minted exactly the way the official client mints them (the API
 * key's bearer JWT and the wallet secret's X-Wallet-Auth), with jose,
 * independently of the sandbox's own auth code.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { SignJWT, importJWK, importPKCS8 } from "jose";

export interface MintOptions {
  method: string;
  /** host[:port] as the client sees it */
  host: string;
  /** pathname including /platform */
  path: string;
  /** seconds; defaults to now */
  now?: number;
  expiresIn?: number;
  override?: { header?: Record<string, unknown>; claims?: Record<string, unknown> };
}

async function signingKey(secret: string): Promise<{ alg: "EdDSA" | "ES256"; key: Awaited<ReturnType<typeof importPKCS8>> | Uint8Array }> {
  try {
    return { alg: "ES256", key: await importPKCS8(secret, "ES256") };
  } catch {
    const raw = Buffer.from(secret, "base64");
    if (raw.length !== 64) throw new Error("Invalid key format");
    const jwk = { kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") };
    return { alg: "EdDSA", key: (await importJWK(jwk, "EdDSA")) as Awaited<ReturnType<typeof importPKCS8>> };
  }
}

export async function mintBearer(apiKeyId: string, apiKeySecret: string, o: MintOptions): Promise<string> {
  const { alg, key } = await signingKey(apiKeySecret);
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const claims = { sub: apiKeyId, iss: "cdp", uris: [`${o.method} ${o.host}${o.path}`], iat: now, nbf: now, exp: now + (o.expiresIn ?? 120) };
  return new SignJWT({ ...claims, ...o.override?.claims })
    .setProtectedHeader({ alg, kid: apiKeyId, typ: "JWT", nonce: randomBytes(16).toString("hex"), ...o.override?.header })
    .sign(key);
}

/** Deep-sorted JSON, as the client hashes it. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export async function mintWalletAuth(walletSecret: string, o: MintOptions & { body?: unknown; withReqHash?: boolean; jti?: string }): Promise<string> {
  const key = await importPKCS8(`-----BEGIN PRIVATE KEY-----\n${walletSecret}\n-----END PRIVATE KEY-----`, "ES256");
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { uris: [`${o.method} ${o.host}${o.path}`] };
  const hasBody = o.body && typeof o.body === "object" && Object.values(o.body).some((v) => v !== undefined);
  if (hasBody && o.withReqHash !== false) {
    claims.reqHash = createHash("sha256")
      .update(JSON.stringify(sortKeys(o.body)))
      .digest("hex");
  }
  return new SignJWT({ ...claims, ...o.override?.claims })
    .setProtectedHeader({ alg: "ES256", typ: "JWT", ...o.override?.header })
    .setIssuedAt(now)
    .setNotBefore(now)
    .setJti(o.jti ?? randomBytes(16).toString("hex"))
    .sign(key);
}

/** A fresh API key secret in the client's Ed25519 format: base64(seed ‖ public key). */
export function randomEd25519Secret(): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return Buffer.concat([Buffer.from(jwk.d!, "base64url"), Buffer.from(jwk.x!, "base64url")]).toString("base64");
}
