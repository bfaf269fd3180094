/**
 * API keys and wallet secrets in the formats the official client accepts:
 * an API key secret is either 64 bytes of base64 (Ed25519 seed ‖ public key)
 * or a PKCS#8 PEM EC P-256 key; a wallet secret is base64 PKCS#8 DER P-256.
 * Keys are generated from the injected Random so `--seed` reproduces them.
 * Public keys are derived with node:crypto: a pure-JS curve builds its
 * precomputed tables on first use, which cost ~0.1 s of every start.
 */
import { createECDH, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import type { Random } from "../random.js";

type ApiKeyAlg = "EdDSA" | "ES256";

export interface ApiKey {
  apiKeyId: string;
  apiKeySecret: string;
  alg: ApiKeyAlg;
  publicKey: KeyObject;
}

export interface WalletSecret {
  walletSecret: string;
  publicKey: KeyObject;
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");

/** PKCS#8 DER of an Ed25519 key is this fixed prefix followed by the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The Ed25519 public key of a 32-byte seed, as a KeyObject and as raw bytes. */
function ed25519FromSeed(seed: Uint8Array): { publicKey: KeyObject; raw: Buffer } {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(privateKey);
  return { publicKey, raw: Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url") };
}

/** A fresh Ed25519 API key (the client's default key type). */
export function generateApiKey(random: Random): ApiKey {
  const seed = random.bytes(32);
  const { publicKey, raw } = ed25519FromSeed(seed);
  const secret = Buffer.concat([Buffer.from(seed), raw]).toString("base64");
  return { apiKeyId: random.uuid(), apiKeySecret: secret, alg: "EdDSA", publicKey };
}

/**
 * Reads a key the way the client does: PKCS#8 PEM first, then 64-byte base64.
 * Throws an Error with a readable message otherwise (SEC1 PEM included, which
 * the client rejects too).
 */
export function apiKeyFromSecret(apiKeyId: string, apiKeySecret: string): ApiKey {
  const secret = apiKeySecret.trim();
  if (secret.includes("-----BEGIN")) {
    if (!secret.includes("-----BEGIN PRIVATE KEY-----")) {
      throw new Error("apiKeySecret: only PKCS#8 PEM EC keys (-----BEGIN PRIVATE KEY-----) are accepted, as by the official client");
    }
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: secret, format: "pem" });
    } catch {
      throw new Error("apiKeySecret: the PEM could not be read as a PKCS#8 private key");
    }
    if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
      throw new Error("apiKeySecret: a PEM key must be an EC P-256 key");
    }
    return { apiKeyId, apiKeySecret, alg: "ES256", publicKey: createPublicKey(key) };
  }
  const raw = Buffer.from(secret, "base64");
  if (raw.length !== 64) {
    throw new Error("apiKeySecret: must be a PKCS#8 PEM EC key or 64 bytes of base64 (Ed25519 seed and public key)");
  }
  const derived = ed25519FromSeed(raw.subarray(0, 32));
  if (!derived.raw.equals(raw.subarray(32))) {
    throw new Error("apiKeySecret: the last 32 bytes are not the public key of the first 32 (Ed25519 seed ‖ public key)");
  }
  return { apiKeyId, apiKeySecret, alg: "EdDSA", publicKey: derived.publicKey };
}

/** The order of P-256: a private scalar must be in [1, n). */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function isValidP256Scalar(d: Uint8Array): boolean {
  const value = BigInt(`0x${Buffer.from(d).toString("hex")}`);
  return value > 0n && value < P256_ORDER;
}

/** A fresh wallet secret: base64 PKCS#8 DER of a P-256 key. */
export function generateWalletSecret(random: Random): WalletSecret {
  let d = random.bytes(32);
  while (!isValidP256Scalar(d)) d = random.bytes(32);
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(d));
  const point = ecdh.getPublicKey(); // uncompressed: 0x04 ‖ x ‖ y
  const jwk = { kty: "EC", crv: "P-256", d: b64url(d), x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) };
  const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
  const der = privateKey.export({ type: "pkcs8", format: "der" });
  return { walletSecret: der.toString("base64"), publicKey: createPublicKey(privateKey) };
}

export function walletSecretFromBase64(walletSecret: string): WalletSecret {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(walletSecret.trim(), "base64"), format: "der", type: "pkcs8" });
  } catch {
    throw new Error("walletSecret: must be base64 of a PKCS#8 DER EC P-256 private key");
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("walletSecret: must be an EC P-256 key");
  }
  return { walletSecret, publicKey: createPublicKey(key) };
}
