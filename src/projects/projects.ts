/**
 * Projects and their keys. Every API key belongs to one project and all state
 * is partitioned by project, so parallel test suites never see each other.
 * This registry keeps the key lookups (and imported public keys) in memory;
 * the records themselves live in the store.
 */
import type { KeyObject } from "node:crypto";
import { apiKeyFromSecret, generateApiKey, generateWalletSecret, walletSecretFromBase64, type ApiKey } from "../auth/credentials.js";
import type { Clock } from "../clock.js";
import type { Random } from "../random.js";
import type { ProjectMeta, ProjectRecord, SigningKeyRecord } from "../store/state.js";
import type { Store } from "../store/store.js";

export interface ProjectCredentials {
  projectId: string;
  apiKeyId: string;
  apiKeySecret: string;
  walletSecret: string;
  /** The client API key: `{node}/rpc/v1/{network}/{clientApiKey}` is the project's JSON-RPC URL for front-end code. */
  clientApiKey: string;
}

export class ProjectRegistry {
  private readonly keyToProject = new Map<string, string>();
  private readonly apiKeys = new Map<string, ApiKey>();
  private readonly walletKeys = new Map<string, KeyObject>();
  private readonly clientKeyToProject = new Map<string, string>();
  private readonly retiredKeyListeners = new Set<(clientApiKey: string) => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.reindex();
  }

  /** Rebuilds the key lookups from the store (after a snapshot restore). */
  reindex(): void {
    this.keyToProject.clear();
    this.apiKeys.clear();
    this.walletKeys.clear();
    this.clientKeyToProject.clear();
    for (const project of this.store.projects()) this.index(project);
  }

  private index(project: ProjectMeta): void {
    for (const key of project.apiKeys) {
      this.keyToProject.set(key.apiKeyId, project.id);
      if (key.verified && key.apiKeySecret) this.apiKeys.set(key.apiKeyId, apiKeyFromSecret(key.apiKeyId, key.apiKeySecret));
    }
    if (project.clientApiKey) this.clientKeyToProject.set(project.clientApiKey, project.id);
    if (project.walletSecret) this.walletKeys.set(project.id, walletSecretFromBase64(project.walletSecret).publicKey);
  }

  /**
   * A new isolated project with fresh credentials, or with the caller's own
   * (`supplied`: an Ed25519 or PKCS#8 EC API key, and optionally a wallet
   * secret), so existing environment variables work against the sandbox.
   * Throws a plain Error with a readable message when a supplied key is unusable.
   */
  async create(name?: string, supplied: { apiKeyId?: string; apiKeySecret?: string; walletSecret?: string } = {}): Promise<ProjectCredentials> {
    if ((supplied.apiKeyId === undefined) !== (supplied.apiKeySecret === undefined)) {
      throw new Error("apiKeyId and apiKeySecret must be given together");
    }
    if (supplied.apiKeyId !== undefined && this.keyToProject.has(supplied.apiKeyId)) {
      throw new Error(`API key ${supplied.apiKeyId} already belongs to a project`);
    }
    // Key material is a secret: off loopback it comes from the operating system whatever the seed (random.ts).
    const apiKey = supplied.apiKeyId !== undefined ? apiKeyFromSecret(supplied.apiKeyId, supplied.apiKeySecret!) : generateApiKey(this.random.secrets());
    const wallet = supplied.walletSecret !== undefined ? walletSecretFromBase64(supplied.walletSecret) : generateWalletSecret(this.random.secrets());
    const project: ProjectRecord = {
      id: this.random.uuid(),
      name: name ?? "sandbox project",
      createdAt: new Date(this.clock.now()).toISOString(),
      settings: {},
      apiKeys: [{ apiKeyId: apiKey.apiKeyId, apiKeySecret: apiKey.apiKeySecret, verified: true }],
      walletSecret: wallet.walletSecret,
      data: {},
    };
    project.clientApiKey = this.newClientKey(project);
    await this.store.putProject(project);
    this.index(project);
    return {
      projectId: project.id,
      apiKeyId: apiKey.apiKeyId,
      apiKeySecret: apiKey.apiKeySecret,
      walletSecret: wallet.walletSecret,
      clientApiKey: project.clientApiKey,
    };
  }

  /** The default project, created on first start (and kept in `--data FILE`). */
  async ensureDefault(): Promise<ProjectCredentials> {
    const existing = this.store.defaultProjectId && this.store.project(this.store.defaultProjectId);
    if (existing) {
      await this.clientKeyOf(existing.id); // a state kept from before client keys existed gets one now
      return this.credentialsOf(existing);
    }
    const created = await this.create("default");
    await this.store.setDefaultProject(created.projectId);
    return created;
  }

  defaultProjectId(): string {
    const id = this.store.defaultProjectId;
    if (!id) throw new Error("the default project does not exist yet");
    return id;
  }

  credentialsOf(project: ProjectMeta): ProjectCredentials {
    const key = project.apiKeys.find((k) => k.verified && k.apiKeySecret);
    return {
      projectId: project.id,
      apiKeyId: key?.apiKeyId ?? "",
      apiKeySecret: key?.apiKeySecret ?? "",
      walletSecret: project.walletSecret ?? "",
      clientApiKey: project.clientApiKey ?? "",
    };
  }

  /**
   * A client API key: 32 hex characters from a stream forked per project and rotation, so drawing one never
   * shifts the ids of anything else a seeded sandbox makes.
   */
  private newClientKey(project: Pick<ProjectMeta, "id" | "clientApiKeyRotations">): string {
    return this.random
      .fork(`client-api-key:${project.id}:${project.clientApiKeyRotations ?? 0}`)
      .secrets()
      .hex(16);
  }

  /** The project's client API key, made on first use for a project kept from before client keys existed. */
  async clientKeyOf(projectId: string): Promise<string | undefined> {
    const project = this.store.project(projectId);
    if (!project) return undefined;
    if (!project.clientApiKey) {
      project.clientApiKey = this.newClientKey(project);
      this.clientKeyToProject.set(project.clientApiKey, project.id);
      await this.store.saveProject(projectId);
    }
    return project.clientApiKey;
  }

  /** The project a client API key belongs to; undefined for an unknown key or one that was rotated away. */
  projectOfClientKey(clientApiKey: string): string | undefined {
    return this.clientKeyToProject.get(clientApiKey);
  }

  /** Replaces the project's client API key; the old one stops working at once. */
  async rotateClientKey(projectId: string): Promise<string | undefined> {
    const project = this.store.project(projectId);
    if (!project) return undefined;
    const retired = project.clientApiKey;
    if (retired) this.clientKeyToProject.delete(retired);
    project.clientApiKeyRotations = (project.clientApiKeyRotations ?? 0) + 1;
    project.clientApiKey = this.newClientKey(project);
    this.clientKeyToProject.set(project.clientApiKey, project.id);
    await this.store.saveProject(projectId);
    if (retired) for (const listener of this.retiredKeyListeners) listener(retired);
    return project.clientApiKey;
  }

  /** Calls `listener` with each client key rotated away (the node closes the sockets opened with it). */
  onClientKeyRetired(listener: (clientApiKey: string) => void): () => void {
    this.retiredKeyListeners.add(listener);
    return () => this.retiredKeyListeners.delete(listener);
  }

  /** The verifiable key with this id, if the sandbox knows its secret. */
  apiKey(apiKeyId: string): ApiKey | undefined {
    return this.apiKeys.get(apiKeyId);
  }

  projectOfKey(apiKeyId: string): string | undefined {
    return this.keyToProject.get(apiKeyId);
  }

  walletKey(projectId: string): KeyObject | undefined {
    return this.walletKeys.get(projectId);
  }

  /** `--auth verify`: an unknown key gets a project of its own on first use, checked by claims only. */
  async adoptUnknownKey(apiKeyId: string): Promise<string> {
    const known = this.keyToProject.get(apiKeyId);
    if (known) return known;
    const project: ProjectRecord = {
      id: this.random.uuid(),
      name: `unverified key ${apiKeyId}`,
      createdAt: new Date(this.clock.now()).toISOString(),
      settings: {},
      apiKeys: [{ apiKeyId, verified: false }],
      data: {},
    };
    project.clientApiKey = this.newClientKey(project);
    this.clientKeyToProject.set(project.clientApiKey, project.id);
    this.keyToProject.set(apiKeyId, project.id); // before the await: concurrent first requests share one project
    await this.store.putProject(project);
    return project.id;
  }

  /** The project's request-signing keys (empty: requests need no X-Signature). */
  signingKeys(projectId: string): readonly SigningKeyRecord[] {
    return this.store.project(projectId)?.signingKeys ?? [];
  }

  /** Registers a request-signing key; false when the project already has one under this kid. */
  async addSigningKey(projectId: string, key: SigningKeyRecord): Promise<boolean> {
    const project = this.store.project(projectId);
    if (!project || (project.signingKeys ?? []).some((k) => k.kid === key.kid)) return false;
    project.signingKeys = [...(project.signingKeys ?? []), key];
    await this.store.saveProject(projectId);
    return true;
  }

  /** Removes a request-signing key; false when the project has none under this kid. */
  async removeSigningKey(projectId: string, kid: string): Promise<boolean> {
    const project = this.store.project(projectId);
    const kept = (project?.signingKeys ?? []).filter((k) => k.kid !== kid);
    if (!project || kept.length === (project.signingKeys ?? []).length) return false;
    project.signingKeys = kept;
    await this.store.saveProject(projectId);
    return true;
  }

  async updateSettings(projectId: string, settings: Record<string, unknown>): Promise<ProjectMeta | undefined> {
    const project = this.store.project(projectId);
    if (!project) return undefined;
    project.settings = { ...project.settings, ...settings };
    await this.store.saveProject(projectId);
    return project;
  }
}
