/**
 * The sandbox the register hook redirects to, named by the environment:
 * CDP_SANDBOX_BASE_PATH (its base path, e.g. http://127.0.0.1:8080/platform),
 * the client's CDP_API_KEY_ID and CDP_API_KEY_SECRET, and optionally
 * CDP_SANDBOX_PROJECT_ID (the node token), CDP_SANDBOX_IMPORT_KEY (the PEM of
 * its import key) and CDP_SANDBOX_ADMIN_TOKEN. `cdp-sandbox run` sets them
 * all; used alone, the hook asks the sandbox for what is missing, once, at load.
 */
import { createPrivateKey, type KeyObject, randomBytes, sign } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export interface SandboxTarget {
  /** Scheme, host and port of the sandbox, without a trailing slash. */
  origin: string;
  /** host[:port] as a client names it in the Host header. */
  host: string;
  https: boolean;
  /** The project's node token: the path segment of /rpc/v1/{network}/{token}. */
  nodeToken?: string;
  /** PEM of the RSA key the sandbox decrypts imported private keys with. */
  importKeyPem?: string;
}

/** What the hook could not learn: a sentence each, to say once on stderr. */
export type Gaps = string[];

const LOAD_TIMEOUT_MS = 3000;

/** The target named by the environment, or undefined when CDP_SANDBOX_BASE_PATH is not set. */
export function targetFromEnv(env: NodeJS.ProcessEnv): SandboxTarget | undefined {
  const basePath = env.CDP_SANDBOX_BASE_PATH?.trim();
  if (!basePath) return undefined;
  const url = new URL(basePath);
  return {
    origin: url.origin,
    host: url.host,
    https: url.protocol === "https:",
    nodeToken: env.CDP_SANDBOX_PROJECT_ID || undefined,
    importKeyPem: env.CDP_SANDBOX_IMPORT_KEY || undefined,
  };
}

/**
 * Fills in the node token and the import key the environment left out, asking
 * the sandbox (in parallel, bounded by a few seconds). Returns what stays unknown.
 */
export async function completeTarget(target: SandboxTarget, env: NodeJS.ProcessEnv): Promise<Gaps> {
  const gaps: Gaps = [];
  const tasks: Promise<void>[] = [];
  if (!target.nodeToken) {
    const { CDP_API_KEY_ID: keyId, CDP_API_KEY_SECRET: secret } = env;
    if (!keyId || !secret)
      gaps.push("the node token is unknown, so JSON-RPC calls to public endpoints fail: set CDP_API_KEY_ID and CDP_API_KEY_SECRET, or CDP_SANDBOX_PROJECT_ID");
    else {
      const path = "/apikeys/v1/tokens/active";
      tasks.push(
        Promise.resolve()
          .then(() => getJson(target, path, { authorization: `Bearer ${mintBearer(keyId, secret, "GET", target.host, path)}` }))
          .then((body) => {
            const id = (body as { id?: unknown }).id;
            if (typeof id !== "string") throw new Error(`${path} answered without an id`);
            target.nodeToken = id;
          })
          .catch((error: Error) => void gaps.push(`the node token is unknown, so JSON-RPC calls to public endpoints fail: ${error.message}`)),
      );
    }
  }
  if (!target.importKeyPem) {
    const headers: Record<string, string> = env.CDP_SANDBOX_ADMIN_TOKEN ? { "x-sandbox-admin-token": env.CDP_SANDBOX_ADMIN_TOKEN } : {};
    tasks.push(
      getJson(target, "/_sandbox/import-key", headers)
        .then((body) => {
          const pem = (body as { publicKeyPem?: unknown }).publicKeyPem;
          if (typeof pem !== "string") throw new Error("/_sandbox/import-key answered without publicKeyPem");
          target.importKeyPem = pem;
        })
        .catch((error: Error) => void gaps.push(`account imports keep the production key and will fail: ${error.message}`)),
    );
  }
  await Promise.all(tasks);
  return gaps;
}

/** GET a JSON answer from the sandbox with node:http (fetch would load undici: ~50 ms). */
function getJson(target: SandboxTarget, path: string, headers: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const send = target.https ? httpsRequest : httpRequest;
    const req = send(`${target.origin}${path}`, { headers: { accept: "application/json", ...headers }, timeout: LOAD_TIMEOUT_MS }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${target.origin}${path} answered ${res.statusCode}: ${text.slice(0, 200)}`));
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error(`GET ${target.origin}${path} did not answer JSON`));
        }
      });
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${target.origin} within ${LOAD_TIMEOUT_MS} ms`)));
    req.on("error", (error: Error) => reject(new Error(`${target.origin} did not answer (${error.message})`)));
    req.end();
  });
}

/** The API key as the client reads it: a base64 64-byte Ed25519 secret, or a PKCS#8 PEM EC P-256 key. */
function signingKey(secret: string): { alg: "EdDSA" | "ES256"; key: KeyObject } {
  if (secret.includes("-----BEGIN")) return { alg: "ES256", key: createPrivateKey(secret) };
  const raw = Buffer.from(secret, "base64");
  if (raw.length !== 64) throw new Error("CDP_API_KEY_SECRET is neither a base64 Ed25519 secret nor a PEM EC key");
  const jwk = { kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") };
  return { alg: "EdDSA", key: createPrivateKey({ key: jwk, format: "jwk" }) };
}

/** A bearer JWT for one request to the sandbox itself, with the claims the platform checks. */
export function mintBearer(keyId: string, secret: string, method: string, host: string, path: string): string {
  const { alg, key } = signingKey(secret);
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part({ alg, kid: keyId, typ: "JWT", nonce: randomBytes(16).toString("hex") })}.${part({
    sub: keyId,
    iss: "cdp",
    uris: [`${method} ${host}${path}`],
    iat: now,
    nbf: now,
    exp: now + 120,
  })}`;
  const signature = alg === "EdDSA" ? sign(null, Buffer.from(input), key) : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}
