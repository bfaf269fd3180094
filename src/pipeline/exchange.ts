/**
 * One request travelling through the pipeline. Each stage reads what earlier
 * stages filled in and adds its own part; the writer turns `response` into bytes.
 */
import type { IncomingMessage } from "node:http";
import type { EarlyWalletCheck } from "../auth/walletToken.js";
import type { EvmRevertTrace } from "../chain/evm/revertTrace.js";
import type { Operation } from "../contract/operations.js";
import type { Problem } from "../contract/validate.js";
import type { PolicyDecision } from "../wallet/policies/decisions.js";
import type { RequestAuth } from "../wallet/types.js";

/**
 * Which check of the caller's side of the contract refused a request: `route` (no operation or node serves it),
 * `body` (unreadable, not JSON, too large or too deep), `auth` (bearer, request signature or wallet token),
 * `validation` (the operation's parameters, headers and body), `rpc` (a JSON-RPC message or params the node
 * refuses). Answers the state or the configuration produced (not found, conflicts, policies, scenarios) are none.
 */
export type ViolationKind = "route" | "body" | "auth" | "validation" | "rpc";

export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  /** Serialized once, so idempotent replays are byte for byte. */
  bodyText?: string;
}

/** A network-level fault instead of a response (scenarios). */
export type Fault = "reset" | "hang" | "close-after-headers" | "truncate";

export interface Exchange {
  correlationId: string;
  receivedAt: number; // wall clock ms
  method: string;
  /** Full pathname as received, e.g. /platform/v2/evm/accounts. */
  fullPath: string;
  /** The request target as received: pathname and query, e.g. /platform/v2/evm/accounts?pageSize=2 (request signing covers it). */
  target: string;
  /** Pathname relative to /platform. */
  path: string;
  host: string;
  /** The production host the register hook redirected this request from (see `redirectedFrom`). */
  redirectedFrom?: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  rawBody: Buffer;
  body: unknown;
  operation?: Operation;
  pathParams: Record<string, string>;
  projectId?: string;
  auth: RequestAuth;
  /** The wallet token's signature check, begun with the bearer token's (walletAuth.ts). */
  earlyWalletCheck?: EarlyWalletCheck;
  problems: Problem[];
  /** Names of scenario rules that fired (the journal shows them). */
  scenarios: string[];
  mock: boolean;
  idempotentReplay: boolean;
  /** The correlation id of the request whose effect this one repeated (duplicates.ts). */
  duplicateOf?: string;
  /** Which policy rules decided the request's policy checks (the journal shows them). */
  policyDecisions?: PolicyDecision[];
  /** Where the EVM runs the operation caused failed (the journal shows them). */
  evmReverts?: EvmRevertTrace[];
  response?: Outgoing;
  fault?: Fault;
  /**
   * The check of the caller's side of the contract in progress (route, body, authentication, validation); cleared
   * once the request passed them all. A refusal while it is set is the caller's violation, recorded as such.
   */
  violation?: ViolationKind;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Outgoing {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    bodyText: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** A path the URL parser would leave as it is: no dot segments, backslashes, percent-escapes or other characters to normalize. */
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_~!$&'()*+,;=:@-]|\.(?!\.?(?:\/|$))|\/(?!\.\.?(?:\/|$)))*$/;

/**
 * Pathname and query of the request target, as `new URL()` reads them (it is only asked when the path is not plain);
 * no query when the target has none, so most requests build no parameters at all.
 */
function splitTarget(target: string): { pathname: string; search?: URLSearchParams } {
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  if (PLAIN_PATH.test(path) && !target.includes("#")) return { pathname: path, search: q < 0 ? undefined : new URLSearchParams(target.slice(q + 1)) };
  const url = new URL(target, "http://sandbox.invalid");
  return { pathname: url.pathname, search: url.searchParams };
}

function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const key of new Set(search.keys())) {
    // `name[]=a&name[]=b` is how axios (the official client's HTTP library) writes an array: read as `name=a&name=b`.
    const name = key.endsWith("[]") && key.length > 2 ? key.slice(0, -2) : key;
    values.set(name, [...(values.get(name) ?? []), ...search.getAll(key)]);
  }
  // Built from entries, so every name is an own property: `__proto__[]=…` is a name like any other, never the
  // object's prototype.
  return Object.fromEntries([...values].map(([name, all]) => [name, all.length === 1 ? all[0]! : all]));
}

/**
 * The request's headers, one string each. node:http joins repeated headers itself and leaves only `set-cookie` as
 * a list; without one, its object (made for this request alone) is taken as it is instead of copied.
 */
function headersOf(received: IncomingMessage["headers"]): Record<string, string> {
  if (received["set-cookie"] === undefined) return received as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(received)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * A new exchange for a request: `target` is the request target as received
 * (Express's `originalUrl` where a router is mounted), `prefix` the base path
 * the operation paths are relative to (/platform, /_sandbox).
 */
export function newExchange(req: IncomingMessage & { body?: unknown }, target: string, prefix: string, correlationHex: string): Exchange {
  const { pathname: fullPath, search } = splitTarget(target);
  const headers = headersOf(req.headers);
  return {
    correlationId: `${correlationHex}-SBX`,
    receivedAt: Date.now(),
    method: (req.method ?? "GET").toUpperCase(),
    fullPath,
    target,
    path: fullPath.startsWith(prefix) ? fullPath.slice(prefix.length) || "/" : fullPath,
    host: headers.host ?? "",
    redirectedFrom: redirectedFrom(req),
    query: search === undefined ? {} : queryOf(search),
    headers,
    rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    body: undefined,
    pathParams: {},
    auth: { kind: "none", verified: false },
    problems: [],
    scenarios: [],
    mock: false,
    idempotentReplay: false,
  };
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6. */
const LOOPBACK_ADDRESS = /^(?:127(?:\.\d{1,3}){3}|::1|::ffff:127(?:\.\d{1,3}){3})$/i;
const HOST_NAME = /^[a-z0-9.-]+(?::\d{1,5})?$/i;

/**
 * The host named in X-Sandbox-Original-Host, which the register hook adds when
 * it sends a request meant for a production host to the sandbox: the client
 * signed that request's tokens for that host. Believed only from a loopback
 * connection, where the sender runs on this machine: a client elsewhere must
 * sign for the Host it sends.
 */
export function redirectedFrom(req: Pick<IncomingMessage, "headers" | "socket">): string | undefined {
  const header = req.headers["x-sandbox-original-host"];
  if (typeof header !== "string" || !HOST_NAME.test(header)) return undefined;
  return LOOPBACK_ADDRESS.test(req.socket?.remoteAddress ?? "") ? header : undefined;
}
