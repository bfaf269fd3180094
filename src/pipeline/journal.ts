/**
 * The request journal behind `GET /_sandbox/requests`: the most recent
 * requests of each project, with what the pipeline decided about them. Every
 * entry has a sequence number, increasing across projects, so a reader can ask
 * for what came after the last entry it saw (the dashboard polls that way).
 * The request and response of the most recent ones are kept too, for
 * `GET /_sandbox/requests/{correlationId}`: bodies cost more than entries, so
 * fewer of them are kept, each cut at BODY_LIMIT characters.
 */
import type { PolicyDecision } from "../domains/policies/decisions.js";
import type { Exchange } from "./exchange.js";

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
const BODY_LIMIT = 16_384;
/** Enough bytes for BODY_LIMIT characters of UTF-8. */
const BODY_BYTES = BODY_LIMIT * 4;
/** Headers whose value is a credential: a JWT keeps its header and claims (useful when a call is refused), not its signature. */
const CREDENTIAL_HEADERS = new Set(["authorization", "x-wallet-auth", "x-sandbox-admin-token"]);

function withoutSignature(value: string): string {
  const jwt = /^(Bearer\s+)?([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/.exec(value);
  return jwt ? `${jwt[1] ?? ""}${jwt[2]}.<signature removed>` : "<removed>";
}

function message(headers: Record<string, string> | undefined, body: string | undefined, cut = false): Message {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) kept[name] = CREDENTIAL_HEADERS.has(name.toLowerCase()) ? withoutSignature(value) : value;
  if (body === undefined || body === "") return { headers: kept };
  return cut || body.length > BODY_LIMIT ? { headers: kept, body: body.slice(0, BODY_LIMIT), truncated: true } : { headers: kept, body };
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

  /**
   * @param capacity entries kept per project
   * @param detailCapacity requests and responses kept per project (the most recent)
   */
  constructor(
    private readonly capacity = 10_000,
    private readonly detailCapacity = 500,
  ) {}

  record(ex: Exchange, wallNow: number): void {
    const status = ex.fault ? 0 : (ex.response?.status ?? 0);
    let errorType: string | undefined;
    if (status >= 400 && ex.response?.bodyText) {
      try {
        errorType = (JSON.parse(ex.response.bodyText) as { errorType?: string }).errorType;
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
      problems: ex.problems.map((p) => ({ location: p.location, message: p.message })),
      scenarios: ex.scenarios,
      mock: ex.mock,
      idempotentReplay: ex.idempotentReplay,
      ...(ex.duplicateOf ? { duplicateOf: ex.duplicateOf } : {}),
      ...(ex.policyDecisions?.length ? { policyDecisions: ex.policyDecisions } : {}),
      auth: ex.auth.kind === "none" ? "none" : `${ex.auth.kind}${ex.auth.verified ? "" : " (unverified)"}`,
      durationMs: wallNow - ex.receivedAt,
    };
    const key = ex.projectId ?? GLOBAL;
    this.push(key, entry);
    const body = ex.rawBody ?? Buffer.alloc(0);
    const responseBody = ex.response?.bodyText;
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

  private push(key: string, entry: JournalEntry): void {
    let list = this.entries.get(key);
    if (!list) {
      list = [];
      this.entries.set(key, list);
    }
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
