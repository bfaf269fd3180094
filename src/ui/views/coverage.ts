/// <reference lib="dom" />
/**
 * Contract coverage of the project shown (GET /_sandbox/coverage): the requests that broke the contract first,
 * each linking to its journal entry, then the operations of the contract with the statuses they answered and those
 * they declare but never answered (called ones first), the JSON-RPC methods called and the error-table rows seen;
 * with a `--spec` contract whose schemas the validator cannot compile, those schemas before all (their values were
 * never checked).
 */
import { api } from "../api.js";
import { badge, fill, h, table } from "../dom.js";
import type { Shell, View } from "../view.js";

/** The parts of the coverage document (schemas/coverage.schema.json) this view shows. */
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
  violations: Array<{
    door: string;
    operation: string;
    check: string;
    status: number;
    errorType?: string;
    rpcCode?: number;
    problems: string[];
    count: number;
    correlationId: string;
  }>;
  operations: Array<{
    operationId: string;
    method: string;
    path: string;
    api: string;
    called: boolean;
    calls: number;
    statuses: Record<string, number>;
    unseenStatuses: string[];
  }>;
  rpcMethods: Array<{ door: string; method: string; calls: number; outcomes: Record<string, number> }>;
  errorTable: Array<{ status: number; errorType: string; count: number }>;
}

const counts = (statuses: Record<string, number>) => Object.entries(statuses).map(([status, n]) => badge(`${status} ×${n}`));

export function coverageView(shell: Shell): View {
  const summary = h("p", { class: "muted" });
  const violations = h("div", { class: "results" });
  const operations = h("div", { class: "results" });
  const rpc = h("div", { class: "results" });
  const errors = h("div", { class: "results" });
  const showUncalled = h("input", { type: "checkbox", onchange: () => void load() });
  const uncheckedPart = h("div", {});

  async function load(): Promise<void> {
    let total: Coverage;
    let unchecked: Array<{ where: string; reason: string }>;
    try {
      const doc = await api<"getSandboxCoverage">("GET", "/coverage");
      total = doc.total as unknown as Coverage;
      unchecked = doc.uncheckedSchemas ?? [];
    } catch (error) {
      shell.say((error as Error).message, "error");
      return;
    }
    if (unchecked.length === 0) fill(uncheckedPart);
    else
      fill(
        uncheckedPart,
        h("h3", {}, "Schemas never checked"),
        h("p", { class: "muted" }, "The validator cannot compile these schemas of the contract: every value under them passes unchecked."),
        table(
          "Schemas never checked",
          [
            ["Where", (u) => h("span", { class: "mono" }, u.where)],
            ["Why", (u) => u.reason],
          ],
          unchecked,
        ),
      );
    const s = total.summary;
    summary.textContent =
      `${s.violations === 0 ? "No request broke the contract" : `${s.violations} request${s.violations === 1 ? "" : "s"} broke the contract (${s.distinctViolations} distinct)`}; ` +
      `${s.operationsCalled} of ${s.operations} operations called; ${s.errorTableRowsReproduced} of ${s.errorTableRows} error-table rows seen.`;
    fill(
      violations,
      table(
        "Contract violations",
        [
          ["Operation", (v) => h("span", { class: "mono" }, v.operation)],
          ["Door", (v) => badge(v.door)],
          ["Check", (v) => v.check],
          ["Status", (v) => badge(`${v.status}${v.errorType ? ` ${v.errorType}` : v.rpcCode !== undefined ? ` ${v.rpcCode}` : ""}`)],
          ["Problem", (v) => v.problems.join("; ")],
          ["Count", (v) => String(v.count)],
          ["First request", (v) => h("a", { href: `#journal/${encodeURIComponent(v.correlationId)}`, class: "mono" }, v.correlationId)],
        ],
        total.violations,
        "No request broke the contract.",
      ),
    );
    const shown = total.operations.filter((o) => o.called || showUncalled.checked).sort((a, b) => Number(b.called) - Number(a.called) || b.calls - a.calls);
    fill(
      operations,
      table(
        "Operations",
        [
          ["Operation", (o) => h("span", { class: "mono", title: `${o.method} ${o.path}` }, o.operationId)],
          ["API", (o) => o.api],
          ["Calls", (o) => String(o.calls)],
          ["Statuses", (o) => counts(o.statuses)],
          ["Declared, never seen", (o) => o.unseenStatuses.join(", ")],
        ],
        shown,
        "No operation was called yet.",
      ),
    );
    fill(
      rpc,
      table(
        "JSON-RPC methods",
        [
          ["Method", (m) => h("span", { class: "mono" }, m.method)],
          ["Door", (m) => badge(m.door)],
          ["Calls", (m) => String(m.calls)],
          ["Outcomes", (m) => counts(m.outcomes)],
        ],
        total.rpcMethods,
        "No JSON-RPC method was called yet.",
      ),
    );
    fill(
      errors,
      table(
        "Error-table rows",
        [
          ["Status", (r) => String(r.status)],
          ["errorType", (r) => h("span", { class: "mono" }, r.errorType)],
          ["Seen", (r) => (r.count > 0 ? String(r.count) : badge("never"))],
        ],
        total.errorTable,
      ),
    );
  }

  return {
    async mount(root) {
      fill(
        root,
        h("h2", {}, "Contract coverage"),
        summary,
        uncheckedPart,
        h("h3", {}, "Contract violations"),
        violations,
        h("h3", {}, "Operations"),
        h("label", {}, showUncalled, " show operations never called"),
        operations,
        h("h3", {}, "JSON-RPC methods"),
        rpc,
        h("h3", {}, "Rows of the platform's error table"),
        errors,
      );
      await load();
    },
    refresh: load,
  };
}
