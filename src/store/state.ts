/** The shape of everything the sandbox keeps, as written to `--data FILE`. */

interface ApiKeyRecord {
  apiKeyId: string;
  /** Kept for keys the sandbox issued, so it can print them again after a restart. */
  apiKeySecret?: string;
  /** false: a key the sandbox met for the first time in `--auth verify` mode; only its claims are checked. */
  verified: boolean;
}

/** A registered request-signing key of a project. */
export interface SigningKeyRecord {
  kid: string;
  /** SPKI PEM of the RSA public key (at least 2048 bits). */
  publicKeyPem: string;
  modulusLength: number;
  createdAt: string;
}

export interface ProjectRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Behaviour switches of the project, e.g. `delegationEnabled`. */
  settings: Record<string, unknown>;
  apiKeys: ApiKeyRecord[];
  /** base64 PKCS#8 DER P-256; absent for projects created from an unknown key. */
  walletSecret?: string;
  /**
   * The client API key: the last segment of the node's JSON-RPC URL, public by design (it ships in front-end code).
   * Rotation replaces it; the old one is forgotten, so its URL answers 401.
   */
  clientApiKey?: string;
  /** How many times the client API key was rotated: the seeded stream of the next key depends on it. */
  clientApiKeyRotations?: number;
  /** Request-signing keys (auth/requestSignature.ts): once there is one, every API-key request carries X-Signature. */
  signingKeys?: SigningKeyRecord[];
  /** Domain collections: collection name → record id → record. */
  data: Record<string, Record<string, unknown>>;
}

/** What of a project is read outside the store: everything but its records. */
export type ProjectMeta = Omit<ProjectRecord, "data">;

export interface SandboxState {
  /** Marks the file as a sandbox data file (dataFile.ts); files written before it existed lack it until rewritten. */
  format: "cdp-sandbox-state";
  version: 1;
  defaultProjectId?: string;
  /** The RSA key users encrypt imported private keys with (`GET /_sandbox/import-key`). */
  importKey?: { publicKeyPem: string; privateKeyPem: string };
  /** Hex HMAC secret of the end-user access tokens the sandbox issues. */
  endUserTokenSecret?: string;
  /** How many times the sandbox has started on this state: with `--seed`, each start draws its ids from a stream of its own. */
  starts?: number;
  /**
   * A random id written anew with each snapshot of the data file: its index (`FILE.index`) names it, so an index is
   * only used beside the very file version it was written for.
   */
  snapshotId?: string;
  projects: Record<string, ProjectRecord>;
}

export const emptyState = (): SandboxState => ({ format: "cdp-sandbox-state", version: 1, projects: {} });
