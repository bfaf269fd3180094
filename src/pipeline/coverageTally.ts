/**
 * What a run exercised, counted as the journal records it: per project, each operation's answers by status, each
 * JSON-RPC method's outcomes, the scenarios that fired, the error answers by status and errorType, and the
 * caller's contract violations. The journal keeps only recent entries; these counts keep the whole run, and
 * clearing the journal (or resetting the state) leaves them, so a suite that cleans up between tests cannot hide
 * a violation from the verdict. The admin door is not counted: the verdict is on the client of the platform.
 */
import type { ViolationKind } from "./exchange.js";

/** What the tally reads of a journal entry (journal.ts's JournalEntry has it all). */
interface TalliedEntry {
  kind: string;
  correlationId: string;
  method: string;
  path: string;
  operationId?: string;
  rpcMethod?: string;
  rpcError?: { code: number; message: string };
  status: number;
  errorType?: string;
  problems: Array<{ location: string; message: string }>;
  scenarios: string[];
  violation?: ViolationKind;
}

/** One distinct contract violation: the same operation, status, errorType and first problem, counted. */
export interface Violation {
  /** The door it came through: platform, node or websocket. */
  door: string;
  /** The operationId; a JSON-RPC method; `METHOD path` for a request no operation serves. */
  operation: string;
  /** Which check of the caller's side of the contract refused it. */
  check: ViolationKind;
  status: number;
  errorType?: string;
  /** The JSON-RPC error code, on the node's doors. */
  rpcCode?: number;
  /** The first problems named (validation), else the refusal's message. */
  problems: string[];
  count: number;
  /** The journal entry of the first occurrence. */
  correlationId: string;
}

/** Counts of one project (or of requests no project could be told for). */
export interface ProjectTally {
  /** operationId → status → answers. */
  operations: Map<string, Map<number, number>>;
  /** `door method` (node, websocket) → outcome (`ok` or the JSON-RPC error code) → calls. */
  rpcMethods: Map<string, Map<string, number>>;
  scenarios: Map<string, number>;
  /** `status errorType` → answers (errorTable.ts's key). */
  errors: Map<string, number>;
  violations: Map<string, Violation>;
}

/** How many problems a violation keeps: the first ones are what a reader fixes first. */
const PROBLEMS_KEPT = 3;
/**
 * Distinct violations and JSON-RPC method names kept per project: both come from what callers send (any path, any
 * method name), so a fuzzer could grow them without end. Past the bound, new ones are counted together.
 */
const DISTINCT_KEPT = 1000;

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

function newTally(): ProjectTally {
  return { operations: new Map(), rpcMethods: new Map(), scenarios: new Map(), errors: new Map(), violations: new Map() };
}

export class CoverageTally {
  private readonly projects = new Map<string, ProjectTally>();

  /** Counts one journal entry under `key` (a project id, or the journal's key for requests of no project). */
  count(key: string, entry: TalliedEntry, errorMessage: string | undefined): void {
    if (entry.kind === "admin") return;
    let tally = this.projects.get(key);
    if (!tally) {
      tally = newTally();
      this.projects.set(key, tally);
    }
    if (entry.rpcMethod !== undefined) {
      let name = `${entry.kind} ${entry.rpcMethod}`;
      if (tally.rpcMethods.size >= DISTINCT_KEPT && !tally.rpcMethods.has(name)) name = `${entry.kind} (other methods)`;
      let outcomes = tally.rpcMethods.get(name);
      if (!outcomes) {
        outcomes = new Map();
        tally.rpcMethods.set(name, outcomes);
      }
      bump(outcomes, entry.rpcError ? String(entry.rpcError.code) : "ok");
    } else if (entry.operationId !== undefined && entry.kind === "platform") {
      let statuses = tally.operations.get(entry.operationId);
      if (!statuses) {
        statuses = new Map();
        tally.operations.set(entry.operationId, statuses);
      }
      bump(statuses, entry.status);
    }
    for (const name of entry.scenarios) bump(tally.scenarios, name);
    if (entry.errorType !== undefined && entry.status >= 400) bump(tally.errors, `${entry.status} ${entry.errorType}`);
    if (entry.violation) this.countViolation(tally, entry, errorMessage);
  }

  private countViolation(tally: ProjectTally, entry: TalliedEntry, errorMessage: string | undefined): void {
    let operation = entry.operationId && !entry.rpcMethod ? entry.operationId : (entry.rpcMethod ?? `${entry.method} ${entry.path}`);
    const problems = entry.problems.length
      ? entry.problems.slice(0, PROBLEMS_KEPT).map((p) => `${p.location}: ${p.message}`)
      : [entry.rpcError?.message ?? errorMessage ?? `status ${entry.status}`];
    let key = `${entry.kind} ${operation} ${entry.status} ${entry.errorType ?? entry.rpcError?.code ?? ""} ${problems[0]}`;
    if (tally.violations.size >= DISTINCT_KEPT && !tally.violations.has(key)) {
      key = `${entry.kind} ${entry.violation} (more)`;
      operation = "(more distinct violations)";
      problems.splice(0, problems.length, `more distinct violations than ${DISTINCT_KEPT}, counted together from here on`);
    }
    const known = tally.violations.get(key);
    if (known) {
      known.count++;
      return;
    }
    tally.violations.set(key, {
      door: entry.kind,
      operation,
      check: entry.violation!,
      status: entry.status,
      ...(entry.errorType ? { errorType: entry.errorType } : {}),
      ...(entry.rpcError ? { rpcCode: entry.rpcError.code } : {}),
      problems,
      count: 1,
      correlationId: entry.correlationId,
    });
  }

  /** The counts of each key (projects, and the journal's key for requests of no project), as they stand. */
  all(): ReadonlyMap<string, ProjectTally> {
    return this.projects;
  }
}
