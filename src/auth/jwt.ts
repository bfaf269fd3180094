/**
 * Compact JWS decoding and signature checks with node:crypto (faster than a
 * general JOSE library on the hot path, and the formats here are fixed:
 * EdDSA over Ed25519 and ES256 with raw r‖s signatures).
 */
import type { KeyObject } from "node:crypto";
import { verifyOffLoop } from "./verifyThread.js";

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** `<header>.<payload>` as received: what the signature covers. */
  signingInput: string;
  /** The signature part, base64url. */
  signature: string;
}

/** Undefined when the token is not three base64url parts of JSON objects. */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(h) || !/^[A-Za-z0-9_-]+$/.test(p) || !/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  try {
    const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as unknown;
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as unknown;
    if (!isRecord(header) || !isRecord(claims)) return undefined;
    return { header, claims, signingInput: token.slice(0, h.length + 1 + p.length), signature: s };
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Checked off the event loop (verifyThread.ts): the largest single cost of a request. */
export function signatureValid(jwt: DecodedJwt, alg: "EdDSA" | "ES256", key: KeyObject): Promise<boolean> {
  return verifyOffLoop(alg, key, jwt.signingInput, jwt.signature);
}

export interface RequestTarget {
  method: string;
  /** The Host header as received. */
  host: string;
  /**
   * The production host a loopback client redirected this request from (the
   * register hook's X-Sandbox-Original-Host): `uris` may name it instead of `host`.
   */
  redirectedFrom?: string;
  /** Pathname including /platform, without the query string. */
  path: string;
}

/**
 * Checks `uris[0]` = "<METHOD> <host><path>" against the request received.
 * Returns a message naming the part that differs, or undefined when it matches.
 * Lenient where the client is known to deviate: a `//` from a trailing-slash
 * basePath, and an `http://` prefix on the host (its /apikeys call). A request
 * the register hook redirected may name the host it was meant for instead.
 */
export function urisMismatch(claims: Record<string, unknown>, target: RequestTarget): string | undefined {
  const uris = claims.uris;
  if (!Array.isArray(uris) || typeof uris[0] !== "string") return "the uris claim is missing or not an array of strings";
  const uri = uris[0];
  const space = uri.indexOf(" ");
  if (space < 0) return `uris[0] "${uri}" is not "<METHOD> <host><path>"`;
  const method = uri.slice(0, space);
  let rest = uri.slice(space + 1).replace(/^https?:\/\//i, "");
  const slash = rest.indexOf("/");
  const host = slash < 0 ? rest : rest.slice(0, slash);
  rest = slash < 0 ? "/" : rest.slice(slash);
  const path = rest.split("?")[0]!.replace(/\/{2,}/g, "/");
  if (method.toUpperCase() !== target.method.toUpperCase()) return `uris[0] was signed for method ${method}, but the request is ${target.method}`;
  const signedFor = host.toLowerCase();
  if (signedFor !== target.host.toLowerCase() && signedFor !== target.redirectedFrom?.toLowerCase()) {
    const redirected = target.redirectedFrom ? ` and it was redirected from ${target.redirectedFrom}` : "";
    return `uris[0] was signed for host ${host}, but the request's Host header is ${target.host}${redirected}`;
  }
  if (path !== target.path.replace(/\/{2,}/g, "/")) return `uris[0] was signed for path ${path}, but the request path is ${target.path}`;
  return undefined;
}
