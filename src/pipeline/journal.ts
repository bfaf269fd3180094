/**
 * The request journal behind `GET /_sandbox/requests`: the most recent
 * requests of each project, with what the pipeline decided about them. Every
 * entry has a sequence number, increasing across projects, so a reader can ask
 * for what came after the last entry it saw (the dashboard polls that way).
 * The request and response of the most recent ones are kept too, for
 * `GET /_sandbox/requests/{correlationId}`: bodies cost more than entries, so
 * fewer of them are kept, each cut at BODY_LIMIT characters.
 *
 * Every door of the sandbox records here: the pipeline (platform API), the
 * admin API, the JSON-RPC node (one entry per method of a batch) and
 * WebSocket subscriptions (`recordCall`). With `--journal FILE`, each entry
 * is also appended to the file with its bodies (journalFile.ts).
 */
import type { EvmRevertTrace } from "../chain/evm/revertTrace.js";
import type { PolicyDecision } from "../wallet/policies/decisions.js";
import { CoverageTally } from "./coverageTally.js";
import type { Exchange, ViolationKind } from "./exchange.js";

export type { ViolationKind } from "./exchange.js";
import { redactedBody, redactedLocation } from "./redact.js";
import { shareStrings } from "../store/shareStrings.js";

export interface JournalEntry {
  /** Increasing across all projects: later requests have larger numbers. */
  sequence: number;
  correlationId: string;
  time: string;
  method: string;
  path: string;
  operationId?: string;
  status: number;
  errorType?: string;
  problems: Array<{ location: string; message: string }>;
  scenarios: string[];
  mock: boolean;
  idempotentReplay: boolean;
  /** The first request whose effect this one repeated without its idempotency key. */
  duplicateOf?: string;
  /** Which rule of which policy decided each policy check the request went through. */
  policyDecisions?: PolicyDecision[];
  auth: string;
  durationMs: number;
  /** Which door the request came through. */
  kind: JournalKind;
  /** The JSON-RPC method of a node call, or the message of a WebSocket subscription. */
  rpcMethod?: string;
  rpcError?: { code: number; message: string };
  /** Where the EVM runs the request caused failed: a reverted transaction, a reverting eth_call. */
  evmReverts?: EvmRevertTrace[];
  /** The caller broke the contract, and which check said so (contract coverage counts these as violations). */
  violation?: ViolationKind;
}

export type JournalKind = "platform" | "admin" | "node" | "websocket";

/**
 * A request that did not go through the pipeline (a node call, a WebSocket message), as its door saw it.
 *
 * @example
 *   journal.recordCall({ kind: "websocket", method: "WS", path: "/rpc/v1/base-sepolia/<token>", rpcMethod: "eth_subscribe",
 *     correlationId, receivedAt, durationMs: 0, status: 101, projectId });
 */
export interface CallRecord {
  kind: JournalKind;
  projectId?: string;
  correlationId: string;
  /** Wall-clock ms when it arrived. */
  receivedAt: number;
  method: string;
  path: string;
  operationId?: string;
  rpcMethod?: string;
  rpcError?: { code: number; message: string };
  evmReverts?: EvmRevertTrace[];
  errorType?: string;
  /** The error body's errorMessage, when the answer was one (kept for a violation's description). */
  errorMessage?: string;
  violation?: ViolationKind;
  status: number;
  durationMs: number;
  auth?: string;
  request?: { headers?: Record<string, string>; body?: string };
  response?: { headers?: Record<string, string>; body?: string };
}

/** Where entries go besides memory (the `--journal FILE` sink): each entry with its request and response. */
export interface JournalSink {
  write(entry: JournalEntry, detail: JournalDetail): void;
  /** Whether the sink still writes, for `GET /_sandbox/health`. */
  status(): JournalFileStatus;
}

/** The `--journal FILE` sink's state: writing, or turned off by a write error (named). */
export interface JournalFileStatus {
  file: string;
  writing: boolean;
  error?: string;
}

/** What went over the wire, as far as the journal keeps it. */
interface Message {
  headers: Record<string, string>;
  body?: string;
  /** The body was longer than BODY_LIMIT characters and is cut there. */
  truncated?: boolean;
}

export interface JournalDetail {
  request: Message & { query: string };
  response: Message & { status: number };
}

/**
 * A request and its response as recorded: references to what the pipeline already holds, written out (credentials
 * cut, bodies decoded and cut) only when someone reads them, since most are never read.
 */
interface KeptExchange {
  query: Readonly<Record<string, unknown>>;
  requestHeaders: Record<string, string>;
  /** At most BODY_BYTES of the body (a copy only when it was longer). */
  requestBody: Buffer;
  requestCut: boolean;
  status: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

/** Which entries a page holds: newest `limit` of those matching, between two sequence numbers. */
export interface JournalQuery {
  /** Only entries with a larger sequence number. */
  after?: number;
  /** Only entries with a smaller sequence number. */
  before?: number;
  limit?: number;
  /** `2xx`…`5xx`, an exact status, or `error` (400 and up, and network faults). */
  status?: string;
  operationId?: string;
  kind?: JournalKind;
  /** Case-insensitive text in the path, operationId, correlationId, error type, problems or scenarios. */
  text?: string;
  duplicates?: boolean;
}

/**
 * The query as a string, from what the request carried: validation may have turned values into numbers (or
 * `Infinity`) and lists, so each value is written as text, one pair per item of a list.
 */
function queryText(query: Readonly<Record<string, unknown>> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) for (const item of [value].flat()) params.append(name, String(item));
  return params.toString();
}

const GLOBAL = "*";
const TRIM_BATCH = 256;
/** The empty list most entries hold as their problems and scenarios, one for all (two arrays were 64 B an entry). */
const NOTHING: never[] = Object.freeze([]) as never[];
const BODY_LIMIT = 16_384;
/** Enough bytes for BODY_LIMIT characters of UTF-8. */
const BODY_BYTES = BODY_LIMIT * 4;
/** Headers whose value is a credential: a JWT keeps its header and claims (useful when a call is refused), not its signature. */
const CREDENTIAL_HEADERS = new Set(["authorization", "x-wallet-auth", "x-sandbox-admin-token", "cookie", "set-cookie", "proxy-authorization", "x-api-key"]);

function withoutSignature(value: string): string {
  const jwt = /^(Bearer\s+)?([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/.exec(value);
  return jwt ? `${jwt[1] ?? ""}${jwt[2]}.<signature removed>` : "<removed>";
}

/** Headers as the journal shows them: credentials cut (a JWT keeps its header and claims, not its signature). */
function redactedHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    kept[name] = CREDENTIAL_HEADERS.has(lower) ? withoutSignature(value) : lower === "location" ? redactedLocation(value) : value;
  }
  return kept;
}

/**
 * A message with its credentials cut, in headers and body (redact.ts), and its body cut at `limit` characters (the
 * sink cuts it itself, per entry). Done when a message is shown or written, never on the request's path.
 */
function message(headers: Record<string, string> | undefined, body: string | undefined, cut = false, limit = BODY_LIMIT): Message {
  const kept = redactedHeaders(headers);
  if (body === undefined || body === "") return { headers: kept };
  return cut || body.length > limit
    ? { headers: kept, body: redactedBody(body.slice(0, limit)), truncated: true }
    : { headers: kept, body: redactedBody(body) };
}

/** A kept exchange written out as the admin API shows it. */
function detailOf(k: KeptExchange): JournalDetail {
  return {
    request: { ...message(k.requestHeaders, k.requestBody.toString("utf8"), k.requestCut), query: queryText(k.query) },
    response: { status: k.status, ...message(k.responseHeaders, k.responseBody) },
  };
}

function statusMatches(status: number, wanted: string): boolean {
  if (wanted === "error") return status === 0 || status >= 400;
  if (/^[1-5]xx$/.test(wanted)) return Math.floor(status / 100) === Number(wanted[0]);
  return status === Number(wanted);
}

function textMatches(e: JournalEntry, needle: string): boolean {
  const haystack = [
    e.path,
    e.method,
    e.operationId,
    e.rpcMethod,
    e.rpcError?.message,
    e.correlationId,
    e.errorType,
    String(e.status),
    ...e.scenarios,
    ...e.problems.map((p) => `${p.location} ${p.message}`),
  ];
  return haystack.some((s) => s?.toLowerCase().includes(needle));
}

export class Journal {
  private readonly entries = new Map<string, JournalEntry[]>();
  private readonly details = new Map<string, Map<string, KeptExchange>>();
  private sequence = 0;
  private sink: JournalSink | undefined;
  /** What the whole run exercised; not emptied with the journal (coverageTally.ts). */
  readonly tally = new CoverageTally();

  /**
   * @param capacity entries kept per project
   * @param detailCapacity requests and responses kept per project (the most recent)
   */
  constructor(
    private readonly capacity = 10_000,
    private readonly detailCapacity = 500,
  ) {}

  /** Sends every entry from now on to `sink` as well (`--journal FILE`). */
  attach(sink: JournalSink | undefined): void {
    this.sink = sink;
  }

  /** The attached sink's state, if there is one. */
  sinkStatus(): JournalFileStatus | undefined {
    return this.sink?.status();
  }

  record(ex: Exchange, wallNow: number, kind: JournalKind = "platform"): void {
    const status = ex.fault ? 0 : (ex.response?.status ?? 0);
    let errorType: string | undefined;
    let errorMessage: string | undefined;
    if (status >= 400 && ex.response?.bodyText) {
      try {
        ({ errorType, errorMessage } = JSON.parse(ex.response.bodyText) as { errorType?: string; errorMessage?: string });
      } catch {
        // not JSON
      }
    }
    const entry: JournalEntry = {
      sequence: ++this.sequence,
      correlationId: ex.correlationId,
      time: new Date(ex.receivedAt).toISOString(),
      method: ex.method,
      path: ex.fullPath,
      operationId: ex.operation?.operationId,
      status,
      errorType,
      problems: ex.problems.length === 0 ? NOTHING : ex.problems.map((p) => ({ location: p.location, message: p.message })),
      scenarios: ex.scenarios.length === 0 ? NOTHING : ex.scenarios,
      mock: ex.mock,
      idempotentReplay: ex.idempotentReplay,
      ...(ex.duplicateOf ? { duplicateOf: ex.duplicateOf } : {}),
      ...(ex.policyDecisions?.length ? { policyDecisions: ex.policyDecisions } : {}),
      ...(ex.evmReverts?.length ? { evmReverts: ex.evmReverts } : {}),
      // A check refuses with a 4xx; a 500 while checking is the sandbox's failure, not the caller's.
      ...(ex.violation && status >= 400 && status < 500 ? { violation: ex.violation } : {}),
      auth: ex.auth.kind === "none" ? "none" : `${ex.auth.kind}${ex.auth.verified ? "" : " (unverified)"}`,
      durationMs: wallNow - ex.receivedAt,
      kind,
    };
    const key = ex.projectId ?? GLOBAL;
    this.push(key, entry);
    this.tally.count(key, entry, errorMessage);
    const body = ex.rawBody ?? Buffer.alloc(0);
    const responseBody = ex.response?.bodyText;
    if (this.sink) {
      this.sink.write(entry, {
        request: { ...message(ex.headers, body.toString("utf8"), false, Number.POSITIVE_INFINITY), query: queryText(ex.query) },
        response: { status, ...message(ex.response?.headers, responseBody, false, Number.POSITIVE_INFINITY) },
      });
    }
    this.keepDetail(key, ex.correlationId, {
      query: ex.query,
      requestHeaders: ex.headers,
      requestBody: body.length > BODY_BYTES ? Buffer.from(body.subarray(0, BODY_BYTES)) : body,
      requestCut: body.length > BODY_BYTES,
      status,
      responseHeaders: ex.response?.headers,
      responseBody: responseBody !== undefined && responseBody.length > BODY_LIMIT ? responseBody.slice(0, BODY_LIMIT + 1) : responseBody,
    });
  }

  /** Records a request of another door than the pipeline's (node, WebSocket). */
  recordCall(call: CallRecord): void {
    const entry: JournalEntry = {
      sequence: ++this.sequence,
      correlationId: call.correlationId,
      time: new Date(call.receivedAt).toISOString(),
      method: call.method,
      path: call.path,
      ...(call.operationId ? { operationId: call.operationId } : {}),
      status: call.status,
      ...(call.errorType ? { errorType: call.errorType } : {}),
      problems: NOTHING,
      scenarios: NOTHING,
      mock: false,
      idempotentReplay: false,
      auth: call.auth ?? "none",
      durationMs: call.durationMs,
      kind: call.kind,
      ...(call.rpcMethod ? { rpcMethod: call.rpcMethod } : {}),
      ...(call.rpcError ? { rpcError: call.rpcError } : {}),
      ...(call.evmReverts ? { evmReverts: call.evmReverts } : {}),
      ...(call.violation ? { violation: call.violation } : {}),
    };
    const key = call.projectId ?? GLOBAL;
    this.push(key, entry);
    this.tally.count(key, entry, call.errorMessage);
    const requestBody = Buffer.from(call.request?.body ?? "", "utf8");
    if (this.sink) {
      this.sink.write(entry, {
        request: { ...message(call.request?.headers, call.request?.body, false, Number.POSITIVE_INFINITY), query: "" },
        response: { status: call.status, ...message(call.response?.headers, call.response?.body, false, Number.POSITIVE_INFINITY) },
      });
    }
    this.keepDetail(key, call.correlationId, {
      query: {},
      requestHeaders: call.request?.headers ?? {},
      requestBody: requestBody.length > BODY_BYTES ? Buffer.from(requestBody.subarray(0, BODY_BYTES)) : requestBody,
      requestCut: requestBody.length > BODY_BYTES,
      status: call.status,
      responseHeaders: call.response?.headers,
      responseBody: call.response?.body,
    });
  }

  private push(key: string, entry: JournalEntry): void {
    let list = this.entries.get(key);
    if (!list) {
      list = [];
      this.entries.set(key, list);
    }
    // A project's requests repeat their path, method, operation and auth entry after entry, each a string of its own
    // (a send's path ~100 bytes, in each of 10,000 entries): an entry takes the equal strings of the two before it.
    shareStrings(entry, list.at(-1), undefined, list.at(-2));
    list.push(entry);
    // Trimmed in batches: dropping one entry per request shifts the whole list every time.
    if (list.length >= this.capacity + TRIM_BATCH) list.splice(0, list.length - this.capacity);
  }

  private keepDetail(key: string, correlationId: string, detail: KeptExchange): void {
    let kept = this.details.get(key);
    if (!kept) {
      kept = new Map();
      this.details.set(key, kept);
    }
    kept.set(correlationId, detail);
    // A Map iterates in insertion order: the first key is the oldest.
    if (kept.size > this.detailCapacity) kept.delete(kept.keys().next().value!);
  }

  /** The most recent `capacity` entries of one list, oldest first. */
  private recent(list: JournalEntry[]): JournalEntry[] {
    return list.slice(Math.max(0, list.length - this.capacity));
  }

  /** The recent requests of a project (or of all), oldest first. */
  list(projectId?: string): JournalEntry[] {
    return projectId
      ? this.recent(this.entries.get(projectId) ?? [])
      : [...this.entries.values()].flatMap((l) => this.recent(l)).sort((a, b) => a.sequence - b.sequence);
  }

  /**
   * A page of a project's (or every) entries that match `query`, oldest first: the newest `limit` of them;
   * `total` counts every match, `lastSequence` is the newest entry's number (0 before any).
   */
  page(projectId: string | undefined, query: JournalQuery): { entries: JournalEntry[]; total: number; lastSequence: number } {
    const needle = query.text?.trim().toLowerCase();
    const matches = (e: JournalEntry) =>
      (query.before === undefined || e.sequence < query.before) &&
      (query.status === undefined || statusMatches(e.status, query.status)) &&
      (query.operationId === undefined || e.operationId === query.operationId) &&
      (query.kind === undefined || e.kind === query.kind) &&
      (!query.duplicates || e.duplicateOf !== undefined) &&
      (!needle || textMatches(e, needle));
    // A project's own list is walked in place (its recent window); all projects' are merged first.
    const all = projectId ? (this.entries.get(projectId) ?? []) : this.list();
    const oldest = projectId ? Math.max(0, all.length - this.capacity) : 0;
    const found: JournalEntry[] = [];
    let total = 0;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    // Newest first, so the page is the newest `limit` matches; the walk goes on only to count. Sequence numbers grow
    // along the list, so the walk stops at the first entry not after `after` (a poll for what is new reads only that).
    for (let i = all.length - 1; i >= oldest; i--) {
      if (query.after !== undefined && all[i]!.sequence <= query.after) break;
      if (!matches(all[i]!)) continue;
      total++;
      if (found.length < limit) found.push(all[i]!);
    }
    return { entries: found.reverse(), total, lastSequence: all.at(-1)?.sequence ?? 0 };
  }

  /** The newest entry's sequence number and how many entries a project (or all) has. */
  position(projectId?: string): { lastSequence: number; entries: number } {
    if (projectId) {
      const list = this.entries.get(projectId) ?? [];
      return { lastSequence: list.at(-1)?.sequence ?? 0, entries: Math.min(list.length, this.capacity) };
    }
    let lastSequence = 0;
    let entries = 0;
    for (const list of this.entries.values()) {
      lastSequence = Math.max(lastSequence, list.at(-1)?.sequence ?? 0);
      entries += Math.min(list.length, this.capacity);
    }
    return { lastSequence, entries };
  }

  /** One entry with its request and response (when still kept), from a project's list or from all. */
  find(projectId: string | undefined, correlationId: string): { entry: JournalEntry; detail?: JournalDetail } | undefined {
    const keys = projectId ? [projectId] : [...this.entries.keys()];
    for (const key of keys) {
      const entry = this.recent(this.entries.get(key) ?? []).findLast((e) => e.correlationId === correlationId);
      const kept = this.details.get(key)?.get(correlationId);
      if (entry) return { entry, detail: kept && detailOf(kept) };
    }
    return undefined;
  }

  /** Every entry of a project (or of all), oldest first, each with its request and response while they are kept. */
  withDetails(projectId?: string): Array<{ entry: JournalEntry; detail?: JournalDetail }> {
    const keys = projectId ? [projectId] : [...this.entries.keys()];
    const out: Array<{ entry: JournalEntry; detail?: JournalDetail }> = [];
    for (const key of keys) {
      const kept = this.details.get(key);
      for (const entry of this.recent(this.entries.get(key) ?? [])) {
        const detail = kept?.get(entry.correlationId);
        out.push({ entry, ...(detail ? { detail: detailOf(detail) } : {}) });
      }
    }
    return out.sort((a, b) => a.entry.sequence - b.entry.sequence);
  }

  clear(projectId?: string): void {
    if (projectId) {
      this.entries.delete(projectId);
      this.details.delete(projectId);
    } else {
      this.entries.clear();
      this.details.clear();
    }
  }
}
