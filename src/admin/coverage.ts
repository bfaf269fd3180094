/**
 * Contract coverage: what a run exercised of the platform's contract, per project and in total, drawn from the
 * journal's tally (pipeline/coverageTally.ts) and the webhook deliveries in the store. It answers
 * `GET /_sandbox/coverage` and `sandbox.coverage()`, and is the `coverage.json` of a report; its shape is the JSON
 * Schema shipped as schemas/coverage.schema.json.
 *
 * A violation is a request refused because the caller broke the contract (the journal entry says which check);
 * every other answer, an error the state or a scenario produced included, is coverage.
 */
import type { OperationIndex } from "../contract/operations.js";
import type { UncheckableSchema } from "../contract/uncheckable.js";
import { deliveries, subscriptions } from "../wallet/events/model.js";
import { ERROR_TABLE, errorKey } from "../errors/errorTable.js";
import type { ProjectTally, Violation } from "../pipeline/coverageTally.js";
import type { Journal } from "../pipeline/journal.js";
import type { Store } from "../store/store.js";
import type { AdminHandler } from "./types.js";

export type { Violation } from "../pipeline/coverageTally.js";

interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  /** `embedded-wallet` for the operations an end user's client calls under /v2/embedded-wallet-api. */
  api: "platform" | "embedded-wallet";
  called: boolean;
  calls: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** Statuses the contract declares for the operation that the run never saw. */
  unseenStatuses: string[];
}

interface Coverage {
  summary: {
    operations: number;
    operationsCalled: number;
    requests: number;
    violations: number;
    distinctViolations: number;
    errorTableRows: number;
    errorTableRowsReproduced: number;
  };
  operations: OperationCoverage[];
  violations: Violation[];
  rpcMethods: Array<{ door: string; method: string; calls: number; outcomes: Record<string, number> }>;
  scenarios: Array<{ name: string; fired: number }>;
  errorTable: Array<{ case: string; status: number; errorType: string; count: number }>;
  webhooks: Array<{
    eventType: string;
    deliveries: number;
    /** Deliveries by the outcome of their last attempt: the receiver's HTTP status, `timeout`, `connection_refused`…, or `pending`. */
    outcomes: Record<string, number>;
    /** Deliveries whose receiver answered other than 2xx or did not answer (last attempt). */
    failing: Array<{ subscriptionId: string; eventId: string; target: string; outcome: string; attempts: number }>;
  }>;
}

export interface CoverageDocument {
  /** The document's format (schemas/coverage.schema.json); a change that breaks readers raises it. */
  version: 1;
  /** Wall-clock time it was drawn. */
  generatedAt: string;
  /** Every project together, requests no project could be told for (an unknown route without credentials) included. */
  total: Coverage;
  projects: Array<{ projectId: string; name: string } & Coverage>;
  /** In a report written with `--journal`: the journal file, where each violation's correlation id finds its request. */
  journal?: string;
  /**
   * With a contract of the user's (`--spec`) whose schemas the validator cannot compile: each of them, where it is and
   * why. The values under them were never checked, so the run's verdict says nothing of them.
   */
  uncheckedSchemas?: UncheckableSchema[];
}

export interface CoverageSources {
  /** The platform contract's operations (openapi.yaml). */
  operations: OperationIndex;
  journal: Journal;
  store: Store;
}

const merge = <K>(into: Map<K, number>, from: ReadonlyMap<K, number>) => {
  for (const [k, n] of from) into.set(k, (into.get(k) ?? 0) + n);
};

/** Several projects' counts as one. */
function mergeTallies(tallies: ProjectTally[]): ProjectTally {
  const out: ProjectTally = { operations: new Map(), rpcMethods: new Map(), scenarios: new Map(), errors: new Map(), violations: new Map() };
  for (const t of tallies) {
    for (const [op, statuses] of t.operations) merge(out.operations.get(op) ?? out.operations.set(op, new Map()).get(op)!, statuses);
    for (const [m, outcomes] of t.rpcMethods) merge(out.rpcMethods.get(m) ?? out.rpcMethods.set(m, new Map()).get(m)!, outcomes);
    merge(out.scenarios, t.scenarios);
    merge(out.errors, t.errors);
    for (const [key, v] of t.violations) {
      const known = out.violations.get(key);
      if (known) known.count += v.count;
      else out.violations.set(key, { ...v });
    }
  }
  return out;
}

const sum = (counts: Iterable<number>) => [...counts].reduce((a, b) => a + b, 0);
const record = <K extends string | number>(counts: ReadonlyMap<K, number>) =>
  Object.fromEntries([...counts].sort(([a], [b]) => String(a).localeCompare(String(b))).map(([k, n]) => [String(k), n]));

/** How a delivery's last attempt ended: the receiver's status, why nothing came back, or `pending`. */
function outcomeOf(attempt: { httpCode?: number; errorName?: string } | undefined): string {
  if (!attempt) return "pending";
  return attempt.errorName && attempt.errorName !== "http_error" ? attempt.errorName : String(attempt.httpCode ?? "pending");
}

function webhookCoverage(store: Store, projectIds: string[]): Coverage["webhooks"] {
  const byType = new Map<string, Coverage["webhooks"][number]>();
  for (const projectId of projectIds) {
    const tx = store.begin(projectId);
    const targets = new Map(
      subscriptions(tx)
        .list()
        .map((s) => [s.subscriptionId, s.target.url]),
    );
    deliveries(tx).each((d) => {
      let row = byType.get(d.eventType);
      if (!row) {
        row = { eventType: d.eventType, deliveries: 0, outcomes: {}, failing: [] };
        byType.set(d.eventType, row);
      }
      const outcome = outcomeOf(d.attempts.at(-1));
      row.deliveries++;
      row.outcomes[outcome] = (row.outcomes[outcome] ?? 0) + 1;
      if (outcome !== "pending" && !/^2\d\d$/.test(outcome)) {
        row.failing.push({
          subscriptionId: d.subscriptionId,
          eventId: d.eventId,
          target: targets.get(d.subscriptionId) ?? "",
          outcome,
          attempts: d.attempts.length,
        });
      }
    });
  }
  return [...byType.values()].sort((a, b) => a.eventType.localeCompare(b.eventType));
}

function coverageOf(tally: ProjectTally, operations: OperationIndex, webhooks: Coverage["webhooks"]): Coverage {
  const ops: OperationCoverage[] = operations.all.map((op) => {
    const statuses = tally.operations.get(op.operationId) ?? new Map<number, number>();
    const declared = [...new Set(op.http.responses.map((r) => r.code))];
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.pathTemplate,
      api: op.pathTemplate.startsWith("/v2/embedded-wallet-api/") ? "embedded-wallet" : "platform",
      called: statuses.size > 0,
      calls: sum(statuses.values()),
      statuses: record(statuses),
      unseenStatuses: declared.filter((code) => !statuses.has(Number(code))).sort(),
    };
  });
  const violations = [...tally.violations.values()].sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation));
  const rpcMethods = [...tally.rpcMethods]
    .map(([name, outcomes]) => {
      const [door, method] = [name.slice(0, name.indexOf(" ")), name.slice(name.indexOf(" ") + 1)];
      return { door, method, calls: sum(outcomes.values()), outcomes: record(outcomes) };
    })
    .sort((a, b) => a.door.localeCompare(b.door) || a.method.localeCompare(b.method));
  const errorTable = ERROR_TABLE.map((row) => ({ ...row, count: tally.errors.get(errorKey(row.status, row.errorType)) ?? 0 }));
  return {
    summary: {
      operations: ops.length,
      operationsCalled: ops.filter((o) => o.called).length,
      requests: sum(ops.map((o) => o.calls)) + sum(rpcMethods.map((m) => m.calls)),
      violations: sum(violations.map((v) => v.count)),
      distinctViolations: violations.length,
      errorTableRows: errorTable.length,
      errorTableRowsReproduced: errorTable.filter((r) => r.count > 0).length,
    },
    operations: ops,
    violations,
    rpcMethods,
    scenarios: [...tally.scenarios].map(([name, fired]) => ({ name, fired })).sort((a, b) => a.name.localeCompare(b.name)),
    errorTable,
    webhooks,
  };
}

/**
 * The coverage document of the run so far: of every project, or of one (`projectId`; its counts are then the total).
 *
 * @example
 *   const doc = coverageDocument({ operations, journal, store });
 *   doc.total.violations; // [{ operation: "createEvmAccount", status: 400, problems: ["body/name: ..."], count: 1, ... }]
 */
export function coverageDocument(sources: CoverageSources, projectId?: string): CoverageDocument {
  const tallies = sources.journal.tally.all();
  const projects = sources.store.projects().filter((p) => projectId === undefined || p.id === projectId);
  const empty = mergeTallies([]);
  const perProject = projects.map((p) => ({
    projectId: p.id,
    name: p.name,
    ...coverageOf(tallies.get(p.id) ?? empty, sources.operations, webhookCoverage(sources.store, [p.id])),
  }));
  const everything = projectId === undefined ? [...tallies.values()] : [tallies.get(projectId) ?? empty];
  const total = coverageOf(
    mergeTallies(everything),
    sources.operations,
    webhookCoverage(
      sources.store,
      projects.map((p) => p.id),
    ),
  );
  const { unchecked } = sources.operations;
  return {
    version: 1,
    generatedAt: new Date().toISOString(),
    total,
    projects: perProject,
    ...(unchecked.length > 0 ? { uncheckedSchemas: [...unchecked] } : {}),
  };
}

/** `GET /_sandbox/coverage`: the document of every project, or of the caller's. */
export const getSandboxCoverage: AdminHandler<"getSandboxCoverage"> = ({ projectId }, ctx) => {
  const doc = coverageDocument({ operations: ctx.platformOperations, journal: ctx.journal, store: ctx.store }, projectId);
  return { status: 200, body: doc as unknown as { version: 1; generatedAt: string; total: Record<string, unknown>; projects: Array<Record<string, unknown>> } };
};

/**
 * One line that names a violation: operation, status, first problem, count and the first request's correlation id.
 *
 * @example
 *   describeViolation(v); // "createEvmAccount 400 invalid_request: body/name: must match pattern ... (×2, first 1a2b-SBX)"
 */
export function describeViolation(v: Violation): string {
  const code = v.errorType ? ` ${v.errorType}` : v.rpcCode !== undefined ? ` (JSON-RPC ${v.rpcCode})` : "";
  return `${v.operation} ${v.status}${code}: ${v.problems[0] ?? ""} (×${v.count}, first ${v.correlationId})`;
}
