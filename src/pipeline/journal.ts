/**
 * The request journal behind `GET /_sandbox/requests`: the most recent
 * requests of each project, with what the pipeline decided about them.
 */
import type { Exchange } from "./exchange.js";

export interface JournalEntry {
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
  auth: string;
  durationMs: number;
}

const GLOBAL = "*";
const TRIM_BATCH = 256;

export class Journal {
  private readonly entries = new Map<string, JournalEntry[]>();
  constructor(private readonly capacity = 1000) {}

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
      auth: ex.auth.kind === "none" ? "none" : `${ex.auth.kind}${ex.auth.verified ? "" : " (unverified)"}`,
      durationMs: wallNow - ex.receivedAt,
    };
    this.push(ex.projectId ?? GLOBAL, entry);
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

  /** The most recent `capacity` entries of one list, oldest first. */
  private recent(list: JournalEntry[]): JournalEntry[] {
    return list.slice(Math.max(0, list.length - this.capacity));
  }

  /** Oldest first. Without a project: every project's entries, merged by time. */
  /** The recent requests of a project (or of all), oldest first; `duplicates` keeps those that repeated an effect. */
  list(projectId?: string, filter: { duplicates?: boolean } = {}): JournalEntry[] {
    const all = projectId
      ? this.recent(this.entries.get(projectId) ?? [])
      : [...this.entries.values()].flatMap((l) => this.recent(l)).sort((a, b) => a.time.localeCompare(b.time));
    return filter.duplicates ? all.filter((e) => e.duplicateOf !== undefined) : all;
  }

  clear(projectId?: string): void {
    if (projectId) this.entries.delete(projectId);
    else this.entries.clear();
  }
}
