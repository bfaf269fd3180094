/**
 * Key import and export envelopes, as the official client builds them: the client sends a raw private key encrypted with RSA-OAEP-SHA256
 * under an RSA public key; for export it sends the base64 DER SPKI of its own
 * RSA key and receives the raw key encrypted under it.
 *
 * The platform imports under its own embedded key; the sandbox cannot hold
 * that private key, so it publishes its own import key
 * (`GET /_sandbox/import-key`), which users pass as `encryptionPublicKey`.
 */
import { constants, createPrivateKey, createPublicKey, generateKeyPair, privateDecrypt, publicEncrypt, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { apiError } from "../errors/catalogue.js";

export interface ImportKey {
  /** PEM SPKI, what users pass as `encryptionPublicKey`. */
  publicKeyPem: string;
  privateKey: KeyObject;
}

const generateRsaKeyPair = promisify(generateKeyPair);

/**
 * RSA-2048 is enough for a local sandbox and keeps start-up fast (4096 takes
 * seconds). Generated off the main thread (0.3–0.5 s of prime search here),
 * so the rest of the start-up runs meanwhile.
 */
async function newImportKey(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateRsaKeyPair("rsa", { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

let early: ReturnType<typeof newImportKey> | undefined;

/**
 * Starts generating an import key right away, for the next `generateImportKey`
 * (the command calls it before loading everything else, so the key is ready
 * by the time the store asks; a key kept in `--data` makes it unused).
 */
export function pregenerateImportKey(): void {
  early ??= newImportKey();
  early.catch(() => undefined); // a failure surfaces where the key is awaited
}

export function generateImportKey(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const key = early ?? newImportKey();
  early = undefined;
  return key;
}

export function importKeyFromPem(privateKeyPem: string): ImportKey {
  const privateKey = createPrivateKey(privateKeyPem);
  return { privateKey, publicKeyPem: createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString() };
}

/** The raw key inside `encryptedPrivateKey`, or 400 saying how to encrypt it so the sandbox can read it. */
export function openImportEnvelope(importKey: ImportKey, encryptedPrivateKey: string): Buffer {
  try {
    return privateDecrypt(
      { key: importKey.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
      Buffer.from(encryptedPrivateKey, "base64"),
    );
  } catch {
    throw apiError(
      "invalid_request",
      "encryptedPrivateKey could not be decrypted with the sandbox's import key. Encrypt the raw key with RSA-OAEP-SHA256 under the key from GET /_sandbox/import-key (with the official client: pass it as encryptionPublicKey).",
    );
  }
}

/** Encrypts `raw` for the client's `exportEncryptionKey` (base64 DER SPKI RSA). */
export function sealExportEnvelope(exportEncryptionKey: string, raw: Uint8Array): string {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(exportEncryptionKey, "base64"), format: "der", type: "spki" });
  } catch {
    throw apiError("invalid_request", "exportEncryptionKey must be the base64 DER (SPKI) encoding of an RSA public key.");
  }
  if (key.asymmetricKeyType !== "rsa") throw apiError("invalid_request", "exportEncryptionKey must be an RSA public key.");
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, raw).toString("base64");
}
