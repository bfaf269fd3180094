/**
 * Who may call the admin API. It can reset, restore and fund everything, so
 * a web page must not reach it through the user's browser: a cross-site page
 * can POST to http://127.0.0.1:8080/_sandbox/reset (its `Origin` gives it
 * away), and a DNS-rebinding page talks to the sandbox under its own domain
 * name (its `Host` gives it away). Bound to a network address the API is
 * reachable by other machines, so it then takes an admin token, which no page
 * can know. The hosted onramp pages are opened by browsers and webviews and
 * need no token; the Host and Origin checks apply to them too. The pages that
 * hand out an identity (OAuth consent) take the token too unless opted out.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { apiError } from "../errors/catalogue.js";

/** The header that carries the admin token (lowercase, as Node names headers). */
const ADMIN_TOKEN_HEADER = "x-sandbox-admin-token";

export interface AdminAccess {
  /** The host the server is bound to (as given to listen) and its port; known once it listens. */
  listening: () => { host: string; port: number } | undefined;
  /** When set, every call but the hosted pages carries it in X-Sandbox-Admin-Token, and any Host is accepted. */
  token?: string;
  /**
   * Whether the hosted pages that hand out an identity (the OAuth consent page and its answer) stay open to callers
   * without the token. Off loopback they need it unless `--open-sign-in-pages` opted in: whoever reaches the page
   * signs in as anyone they type.
   */
  signInPagesOpen: boolean;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** `host[:port]`, a bracketed IPv6 address or a name; nothing a URL parser would read as a path or user. */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

/**
 * A new admin token from the operating system's randomness, never from `--seed`: a seed is shared in scripts and
 * repositories, and whoever knows it would otherwise know the token of every network-exposed sandbox started with it.
 */
export function newAdminToken(): string {
  return randomBytes(24).toString("hex");
}

/** Whether binding to `host` keeps the server off the network. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h) || /^::ffff:127(?:\.\d{1,3}){3}$/.test(h);
}

/** `http://host:port` as the URL parser normalises it (lowercase, default port dropped), or undefined. */
function httpOrigin(authority: string): URL | undefined {
  if (!HOST_HEADER.test(authority)) return undefined;
  try {
    return new URL(`http://${authority}`);
  } catch {
    return undefined;
  }
}

const portOf = (url: URL) => (url.port === "" ? 80 : Number(url.port));

function sameSecret(given: string, expected: string): boolean {
  // Digests first: timingSafeEqual needs equal lengths, and the length of the token must not leak either.
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Throws 403 `forbidden` for a request from a foreign site or under a foreign
 * Host, and 401 `unauthorized` for a call without the admin token when one is
 * in force; returns when the request may go on. Runs before anything changes.
 */
export function guardAdminRequest(headers: Readonly<Record<string, string | undefined>>, page: "none" | "hosted" | "sign-in", access: AdminAccess): void {
  const hostHeader = headers.host ?? "";
  const requested = httpOrigin(hostHeader);
  if (access.token === undefined) {
    const bound = access.listening();
    const boundHost = bound && httpOrigin(bound.host.includes(":") ? `[${bound.host}]` : bound.host)?.hostname;
    const known = requested && bound && portOf(requested) === bound.port && (LOOPBACK_NAMES.has(requested.hostname) || requested.hostname === boundHost);
    if (!known) {
      throw apiError(
        "forbidden",
        `The sandbox admin API answers only at its own address (localhost, 127.0.0.1 or [::1]${boundHost && !LOOPBACK_NAMES.has(boundHost) ? ` or ${boundHost}` : ""} on port ${bound?.port ?? "?"}); this request named the host '${hostHeader}'.`,
      );
    }
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let sameOrigin = false;
    try {
      sameOrigin = requested !== undefined && origin !== "null" && new URL(origin).origin === requested.origin;
    } catch {
      sameOrigin = false;
    }
    if (!sameOrigin) {
      throw apiError("forbidden", `The sandbox admin API refuses calls from other sites: the request's Origin '${origin}' is not the sandbox's own.`);
    }
  }
  if (access.token === undefined || page === "hosted" || (page === "sign-in" && access.signInPagesOpen)) return;
  const given = headers[ADMIN_TOKEN_HEADER];
  if (given === undefined || given === "") throw apiError("unauthorized", "The sandbox admin API needs the admin token in the X-Sandbox-Admin-Token header.");
  if (!sameSecret(given, access.token)) throw apiError("unauthorized", "The X-Sandbox-Admin-Token header does not carry the sandbox's admin token.");
}

/** Whether a request carries the admin token (the node's test methods take it off loopback too). */
export function carriesAdminToken(headers: Readonly<Record<string, string | string[] | undefined>>, token: string): boolean {
  const given = headers[ADMIN_TOKEN_HEADER];
  return typeof given === "string" && given !== "" && sameSecret(given, token);
}
