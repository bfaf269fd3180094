/**
 * What the tools (`cdp-sandbox mcp`, `trigger`, `listen`) talk to: one sandbox
 * over HTTP, whether this process started it or it runs elsewhere. The admin
 * API (/_sandbox) with the admin token, and the platform API (/platform) as
 * one project's client: a bearer JWT per request, signed with the project's
 * API key, and an X-Wallet-Auth token signed with its wallet secret. Going
 * over HTTP for both kinds of sandbox keeps one code path, and every call goes
 * through the request pipeline, the journal and the webhooks like any client's.
 */
import { createPrivateKey, randomUUID, sign } from "node:crypto";
import { reqHashOf } from "../auth/reqHash.js";
import { mintBearer } from "../register/sandbox.js";

/** A JSON body as the sandbox answered it: the tools read it field by field, as a test does. */
// biome-ignore lint/suspicious/noExplicitAny: answers are the contract's JSON, checked by the sandbox that sent them
export type Json = any;

/** An answer of the sandbox: its status and parsed JSON body (the platform's error body on a refusal). */
export interface Answer {
  status: number;
  body: Json;
}

/** A project's credentials, as the ready line, `--credentials-file` and GET /_sandbox/projects/{id}/credentials give them. */
export interface ProjectKeys {
  projectId: string;
  apiKeyId: string;
  apiKeySecret: string;
  walletSecret?: string;
}

/** A call the sandbox answered with something other than 2xx. */
export class RefusedError extends Error {
  constructor(
    readonly call: string,
    readonly answer: Answer,
  ) {
    const message = typeof answer.body?.errorMessage === "string" ? answer.body.errorMessage : JSON.stringify(answer.body).slice(0, 300);
    super(`${call} answered ${answer.status}: ${message}`);
  }
}

export class SandboxClient {
  readonly host: string;

  constructor(
    readonly url: string,
    readonly adminToken: string | undefined,
  ) {
    this.host = new URL(url).host;
  }

  /** A call to the admin API; `project` names the project it acts on (X-Sandbox-Project). */
  admin(method: string, path: string, o: { body?: unknown; project?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.adminToken) headers["x-sandbox-admin-token"] = this.adminToken;
    if (o.project) headers["x-sandbox-project"] = o.project;
    return this.send(method, `/_sandbox${path}`, o.body, headers);
  }

  /** A call to the platform API as `keys`' project; `path` starts at /v2. */
  platform(keys: ProjectKeys, method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
    const full = `/platform${path}`;
    const pathOnly = full.split("?")[0]!;
    const headers: Record<string, string> = {
      authorization: `Bearer ${mintBearer(keys.apiKeyId, keys.apiKeySecret, method, this.host, pathOnly)}`,
      ...o.headers,
    };
    if (keys.walletSecret && method !== "GET") headers["x-wallet-auth"] = walletAuth(keys.walletSecret, method, this.host, pathOnly, o.body);
    return this.send(method, full, o.body, headers);
  }

  /** A call to the platform API without credentials (what a browser's sign-in sends). */
  anonymous(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.send(method, `/platform${path}`, body, {});
  }

  /** Like `admin`, but a refusal throws. */
  async adminOk(method: string, path: string, o: { body?: unknown; project?: string } = {}): Promise<Json> {
    return ok(`${method} /_sandbox${path}`, await this.admin(method, path, o));
  }

  /** Like `platform`, but a refusal throws. */
  async platformOk(keys: ProjectKeys, method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Json> {
    return ok(`${method} /platform${path}`, await this.platform(keys, method, path, o));
  }

  /** The credentials of a project (the default one when `projectId` is absent), read from the admin API. */
  async projectKeys(projectId?: string): Promise<ProjectKeys> {
    const id = projectId ?? (await this.adminOk("GET", "/projects")).projects.find((p: { isDefault: boolean }) => p.isDefault)?.projectId;
    if (!id) throw new Error("the sandbox has no default project");
    return await this.adminOk("GET", `/projects/${encodeURIComponent(id)}/credentials`);
  }

  private async send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (a hosted page): kept as text.
    }
    return { status: res.status, body: parsed };
  }
}

function ok(call: string, answer: Answer): Json {
  if (answer.status >= 300) throw new RefusedError(call, answer);
  return answer.body;
}

/** The X-Wallet-Auth token the official client sends: ES256 over the method, target and the body's hash, single use. */
function walletAuth(walletSecret: string, method: string, host: string, path: string, body: unknown): string {
  const key = createPrivateKey({ key: Buffer.from(walletSecret, "base64"), format: "der", type: "pkcs8" });
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = { uris: [`${method} ${host}${path}`], iat: now, nbf: now, jti: randomUUID(), ...(body === undefined ? {} : { reqHash: reqHashOf(body) }) };
  const input = `${part({ alg: "ES256", typ: "JWT" })}.${part(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}
