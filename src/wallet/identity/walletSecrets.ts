/**
 * Temporary Wallet Secrets: when an end user signs for themself (no
 * delegation), the platform wants X-Wallet-Auth signed with a short-lived
 * P-256 key held by the end user's client, and the key's id in the body as
 * `walletSecretId`. The sandbox issues one with every end-user access token
 * (`POST /_sandbox/end-users/{userId}/token`) and keeps only its public half,
 * expiring with the token on the sandbox clock.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { generateWalletSecret } from "../../auth/credentials.js";
import { shownValue } from "../../errors/catalogue.js";
import type { Random } from "../../random.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx, Store } from "../../store/store.js";

interface TemporaryWalletSecret {
  walletSecretId: string;
  userId: string;
  /** base64 DER SPKI of the P-256 public key. */
  publicKey: string;
  expiresAtMs: number;
}

const TEMPORARY_WALLET_SECRETS = declareCollection<TemporaryWalletSecret>("endUserWalletSecrets");

/** Creates a secret for `userId`; the private half is returned once and never kept. */
export function issueTemporaryWalletSecret(
  tx: ProjectTx,
  random: Random,
  userId: string,
  expiresAtMs: number,
): { walletSecretId: string; walletSecret: string } {
  const { walletSecret, publicKey } = generateWalletSecret(random.secrets());
  const walletSecretId = random.uuid();
  const record: TemporaryWalletSecret = {
    walletSecretId,
    userId,
    publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    expiresAtMs,
  };
  const secrets = tx.collection(TEMPORARY_WALLET_SECRETS);
  // Expired secrets can never verify anything again: forget them while we are here.
  for (const old of secrets.filter((s) => s.expiresAtMs < expiresAtMs - 24 * 3600_000)) secrets.delete(old.walletSecretId);
  secrets.insert(walletSecretId, record);
  return { walletSecretId, walletSecret };
}

/**
 * Registers the public half of a key the end user's own client made (the embedded-wallet client's
 * `PUT …/wallet-secrets`): the same id again replaces the key; an id of another end user is refused.
 */
export function registerTemporaryWalletSecret(
  tx: ProjectTx,
  record: { walletSecretId: string; userId: string; publicKey: string; expiresAtMs: number },
): { problem?: "taken" | "not-p256" } {
  const secrets = tx.collection(TEMPORARY_WALLET_SECRETS);
  const existing = secrets.get(record.walletSecretId);
  if (existing && existing.userId !== record.userId) return { problem: "taken" };
  try {
    const key = createPublicKey({ key: Buffer.from(record.publicKey, "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") return { problem: "not-p256" };
  } catch {
    return { problem: "not-p256" };
  }
  secrets.put(record.walletSecretId, record);
  return {};
}

export type TemporaryWalletKey = { key: KeyObject } | { problem: string };

/** The public key an end user's X-Wallet-Auth must verify with, or why there is none. */
export function temporaryWalletKey(store: Store, projectId: string, userId: string, walletSecretId: string, nowMs: number): TemporaryWalletKey {
  const record = store.committedRecord(projectId, TEMPORARY_WALLET_SECRETS, walletSecretId);
  if (!record || record.userId !== userId) {
    return {
      problem: `walletSecretId ${shownValue(walletSecretId)} is not a Temporary Wallet Secret of end user ${userId}; use the one issued with the access token.`,
    };
  }
  if (record.expiresAtMs <= nowMs) {
    return {
      problem: `Temporary Wallet Secret ${shownValue(walletSecretId)} expired at ${new Date(record.expiresAtMs).toISOString()}; sign in again for a new one.`,
    };
  }
  return { key: publicKeyOf(record.publicKey) };
}

/**
 * One KeyObject per secret, not one per request: the signature thread keeps
 * each key it is sent (auth/verifyThread.ts). Bounded: the oldest are dropped.
 */
const keyObjects = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 1024;

function publicKeyOf(spkiBase64: string): KeyObject {
  let key = keyObjects.get(spkiBase64);
  if (!key) {
    key = createPublicKey({ key: Buffer.from(spkiBase64, "base64"), format: "der", type: "spki" });
    if (keyObjects.size >= MAX_CACHED_KEYS) keyObjects.delete(keyObjects.keys().next().value!);
    keyObjects.set(spkiBase64, key);
  }
  return key;
}
