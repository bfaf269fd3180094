/**
 * Test harness: a started sandbox plus a supertest-based caller that signs
 * requests the way the official client does.
 */
import request from "supertest";
import { startSandbox, type Sandbox, type SandboxOptions, type ProjectCredentials } from "cdp-sandbox";
import { mintBearer, mintWalletAuth, type MintOptions } from "./tokens.js";

export type Credentials = Pick<ProjectCredentials, "apiKeyId" | "apiKeySecret" | "walletSecret">;

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is, Content-Type application/json). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Sign with X-Wallet-Auth (default: false). */
  wallet?: boolean | { withReqHash?: boolean; jti?: string; override?: MintOptions["override"]; now?: number };
  /** Send no Authorization header. */
  anonymous?: boolean;
  bearer?: { override?: MintOptions["override"]; now?: number; expiresIn?: number; method?: string; host?: string; path?: string };
  credentials?: Credentials;
  /** Act as an end user: their access token as bearer, X-Wallet-Auth signed with their Temporary Wallet Secret (unless `wallet: false`). */
  endUser?: EndUserSession;
  /** The client's own deadline in ms: past it the request fails with a timeout error (for answers that never come). */
  timeout?: number;
}

/** What `POST /_sandbox/end-users/{userId}/token` hands an end user's client. */
export interface EndUserSession {
  userId: string;
  accessToken: string;
  walletSecretId: string;
  walletSecret: string;
}

/** Signs an end user in: an access token and a Temporary Wallet Secret (in the bearer's project, else the default one). */
export async function endUserSession(sandbox: Sandbox, userId: string, credentials?: Credentials): Promise<EndUserSession> {
  const res = await call(sandbox, "POST", `/_sandbox/end-users/${userId}/token`, { body: {}, credentials, anonymous: credentials === undefined });
  if (res.status !== 201) throw new Error(`end-user token failed: ${res.status} ${res.text}`);
  return res.body as EndUserSession;
}

export function hostOf(sandbox: Sandbox): string {
  return new URL(sandbox.url).host;
}

export async function call(sandbox: Sandbox, method: string, path: string, o: CallOptions = {}) {
  const creds = o.credentials ?? sandbox.credentials;
  const url = new URL(path, sandbox.url);
  // An end user's client names its Temporary Wallet Secret in every body it signs (a test leaves it out with `walletSecretId: undefined`).
  const body = o.endUser && isPlainObject(o.body) && !("walletSecretId" in o.body) ? { ...o.body, walletSecretId: o.endUser.walletSecretId } : o.body;
  const target = { method, host: hostOf(sandbox), path: url.pathname };
  let req = request(sandbox.url)[method.toLowerCase() as "get"](url.pathname + url.search);
  if (o.endUser) {
    req = req.set("Authorization", `Bearer ${o.endUser.accessToken}`);
    if (o.wallet !== false) {
      const w = typeof o.wallet === "object" ? o.wallet : {};
      req = req.set(
        "X-Wallet-Auth",
        await mintWalletAuth(o.endUser.walletSecret, { ...target, body: JSON.parse(JSON.stringify(body ?? null)) ?? undefined, ...w }),
      );
    }
  } else if (!o.anonymous) {
    const token = await mintBearer(creds.apiKeyId, creds.apiKeySecret, {
      ...target,
      method: o.bearer?.method ?? method,
      host: o.bearer?.host ?? target.host,
      path: o.bearer?.path ?? target.path,
      now: o.bearer?.now,
      expiresIn: o.bearer?.expiresIn,
      override: o.bearer?.override,
    });
    req = req.set("Authorization", `Bearer ${token}`);
  }
  if (o.wallet && !o.endUser) {
    const w = typeof o.wallet === "object" ? o.wallet : {};
    req = req.set("X-Wallet-Auth", await mintWalletAuth(creds.walletSecret, { ...target, body: o.body, ...w }));
  }
  for (const [k, v] of Object.entries(o.headers ?? {})) req = req.set(k, v);
  if (o.timeout !== undefined) req = req.timeout(o.timeout);
  if (o.rawBody !== undefined) return req.set("Content-Type", "application/json").send(o.rawBody);
  if (o.body !== undefined) return req.set("Content-Type", "application/json").send(JSON.stringify(body));
  return req;
}

/** The node's URL for `network` (`/rpc/v1/{network}/{token}`), with the project's active client token. */
export async function nodeUrlFor(sandbox: Sandbox, network: string, credentials?: Credentials): Promise<string> {
  const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active", credentials ? { credentials } : {})).body.id as string;
  return `${sandbox.url}/rpc/v1/${network}/${token}`;
}

export async function withSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // Every test response is checked against the contract: a mismatch becomes a 500 the test sees.
  return startSandbox({ port: 0, validateResponses: true, ...options });
}

/** Credits an address on a project's ledger through the admin API (amount in the smallest unit; native when no token). */
export async function fund(sandbox: Sandbox, body: { network: string; address: string; amount: string; token?: string }, credentials?: Credentials) {
  const res = await call(sandbox, "POST", "/_sandbox/balances", { body, credentials });
  if (res.status !== 200) throw new Error(`funding failed: ${res.status} ${res.text}`);
  return res.body;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
