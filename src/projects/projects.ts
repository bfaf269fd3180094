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
}

export class ProjectRegistry {
  private readonly keyToProject = new Map<string, string>();
  private readonly apiKeys = new Map<string, ApiKey>();
  private readonly walletKeys = new Map<string, KeyObject>();

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
    for (const project of this.store.projects()) this.index(project);
  }

  private index(project: ProjectMeta): void {
    for (const key of project.apiKeys) {
      this.keyToProject.set(key.apiKeyId, project.id);
      if (key.verified && key.apiKeySecret) this.apiKeys.set(key.apiKeyId, apiKeyFromSecret(key.apiKeyId, key.apiKeySecret));
    }
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
    const apiKey = supplied.apiKeyId !== undefined ? apiKeyFromSecret(supplied.apiKeyId, supplied.apiKeySecret!) : generateApiKey(this.random);
    const wallet = supplied.walletSecret !== undefined ? walletSecretFromBase64(supplied.walletSecret) : generateWalletSecret(this.random);
    const project: ProjectRecord = {
      id: this.random.uuid(),
      name: name ?? "sandbox project",
      createdAt: new Date(this.clock.now()).toISOString(),
      settings: {},
      apiKeys: [{ apiKeyId: apiKey.apiKeyId, apiKeySecret: apiKey.apiKeySecret, verified: true }],
      walletSecret: wallet.walletSecret,
      data: {},
    };
    await this.store.putProject(project);
    this.index(project);
    return { projectId: project.id, apiKeyId: apiKey.apiKeyId, apiKeySecret: apiKey.apiKeySecret, walletSecret: wallet.walletSecret };
  }

  /** The default project, created on first start (and kept in `--data FILE`). */
  async ensureDefault(): Promise<ProjectCredentials> {
    const existing = this.store.defaultProjectId && this.store.project(this.store.defaultProjectId);
    if (existing) return this.credentialsOf(existing);
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
    return { projectId: project.id, apiKeyId: key?.apiKeyId ?? "", apiKeySecret: key?.apiKeySecret ?? "", walletSecret: project.walletSecret ?? "" };
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
