/**
 * The coverage document as a short Markdown summary for a CI job's page (the GitHub Action appends it to the
 * step summary): one table of figures, then the violations, the schemas never checked (a `--spec` contract's that the
 * validator cannot compile), then the operations exercised with their statuses.
 */
import type { CoverageDocument } from "./coverage.js";

/** A table cell: pipes and line breaks would end it. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

const counts = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${status} ×${n}`)
    .join(", ");

/** At most this many rows per table: a summary, not the report (coverage.json has it all). */
const ROWS = 50;

export function summaryMarkdown(doc: CoverageDocument, journal?: string): string {
  const { summary, violations, operations, rpcMethods, errorTable } = doc.total;
  const called = operations.filter((o) => o.called);
  const statusesSeen = new Set(called.flatMap((o) => Object.keys(o.statuses)));
  const lines = [
    "## cdp-sandbox: contract coverage",
    "",
    "| | |",
    "|---|---|",
    `| Contract violations | ${summary.violations === 0 ? "none" : `**${summary.violations}** (${summary.distinctViolations} distinct)`} |`,
    `| Operations exercised | ${summary.operationsCalled} of ${summary.operations} |`,
    `| Statuses seen | ${[...statusesSeen].sort().join(", ") || "none"} |`,
    `| JSON-RPC methods called | ${rpcMethods.length} |`,
    `| Error-table rows reproduced | ${summary.errorTableRowsReproduced} of ${summary.errorTableRows}${
      summary.errorTableRowsReproduced
        ? `: ${errorTable
            .filter((r) => r.count > 0)
            .map((r) => `${r.status} ${r.errorType}`)
            .join(", ")}`
        : ""
    } |`,
    `| Requests | ${summary.requests} |`,
    ...(doc.uncheckedSchemas ? [`| Schemas never checked | **${doc.uncheckedSchemas.length}**: the validator cannot compile them (below) |`] : []),
    "",
  ];
  if (violations.length > 0) {
    lines.push("### Contract violations", "", "| Operation | Status | Problem | Count | First correlation id |", "|---|---|---|---|---|");
    for (const v of violations.slice(0, ROWS)) {
      lines.push(
        `| ${cell(v.operation)} | ${v.status}${v.errorType ? ` ${v.errorType}` : ""} | ${cell(v.problems[0] ?? "")} | ${v.count} | \`${v.correlationId}\` |`,
      );
    }
    if (violations.length > ROWS) lines.push("", `… and ${violations.length - ROWS} more in coverage.json.`);
    lines.push("");
  }
  if (doc.uncheckedSchemas) {
    // What the verdict above cannot speak for: values under these schemas pass whatever they are.
    lines.push("### Schemas never checked", "", "| Where | Why the validator cannot compile it |", "|---|---|");
    for (const u of doc.uncheckedSchemas.slice(0, ROWS)) lines.push(`| ${cell(u.where)} | ${cell(u.reason)} |`);
    if (doc.uncheckedSchemas.length > ROWS) lines.push("", `… and ${doc.uncheckedSchemas.length - ROWS} more in coverage.json.`);
    lines.push("");
  }
  if (called.length > 0) {
    lines.push("### Operations exercised", "", "| Operation | Statuses | Declared, never seen |", "|---|---|---|");
    for (const o of called.slice(0, ROWS)) lines.push(`| ${cell(o.operationId)} | ${counts(o.statuses)} | ${o.unseenStatuses.join(", ")} |`);
    if (called.length > ROWS) lines.push("", `… and ${called.length - ROWS} more in coverage.json.`);
    lines.push("");
  }
  if (journal) lines.push(`Each request is in the journal (${journal}) under its correlation id.`, "");
  return lines.join("\n");
}
