/**
 * The coverage document as JUnit XML, the format GitHub, GitLab, Jenkins and CircleCI show as test results: one
 * failing test case per distinct contract violation, one passing case per operation and JSON-RPC method the run
 * exercised. A report with no requests is two empty suites, still a valid file. A `--spec` contract whose schemas the
 * validator cannot compile adds a third suite: one skipped case per such schema, whose values were never checked.
 */
import type { CoverageDocument } from "./coverage.js";

/** XML 1.0 text: the five entities escaped, characters XML cannot carry at all dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const counts = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${status} ×${n}`)
    .join(", ");

/**
 * @param journal where the journal entries are (a file, or the admin API's URL), named in each failure so a reader
 *   finds the request by its correlation id
 */
export function junitXml(doc: CoverageDocument, journal?: string): string {
  const { violations, operations, rpcMethods } = doc.total;
  const failures = violations.map((v) => {
    const name = `${v.operation} answered ${v.status}${v.errorType ? ` ${v.errorType}` : v.rpcCode !== undefined ? ` (JSON-RPC ${v.rpcCode})` : ""}: ${v.problems[0]}`;
    const detail = [
      `${v.count} request(s) through the ${v.door} door broke the contract (${v.check} check).`,
      ...v.problems.map((p) => `- ${p}`),
      `First one: correlation id ${v.correlationId}${journal ? ` in the journal at ${journal}` : ""}.`,
    ].join("\n");
    return `    <testcase classname="cdp-sandbox.violations" name="${xml(name)}" time="0">\n      <failure type="contract_violation" message="${xml(name)}">${xml(detail)}</failure>\n    </testcase>`;
  });
  const exercised = [
    ...operations
      .filter((o) => o.called)
      .map((o) => ({ classname: `cdp-sandbox.${o.api}`, name: `${o.operationId} (${o.method} ${o.path})`, out: `statuses: ${counts(o.statuses)}` })),
    ...rpcMethods.map((m) => ({ classname: `cdp-sandbox.${m.door}`, name: m.method, out: `outcomes: ${counts(m.outcomes)}` })),
  ].map((c) => `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}" time="0">\n      <system-out>${xml(c.out)}</system-out>\n    </testcase>`);
  const unchecked = (doc.uncheckedSchemas ?? []).map(
    (u) =>
      `    <testcase classname="cdp-sandbox.unchecked" name="${xml(u.where)}" time="0">\n      <skipped message="${xml(`never checked: the validator cannot compile this schema (${u.reason})`)}"/>\n    </testcase>`,
  );
  const suite = (name: string, cases: string[], failed: number, skipped = 0) =>
    `  <testsuite name="${name}" tests="${cases.length}" failures="${failed}" errors="0" skipped="${skipped}" timestamp="${doc.generatedAt}" time="0">\n${cases.map((c) => `${c}\n`).join("")}  </testsuite>`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="cdp-sandbox contract" tests="${failures.length + exercised.length + unchecked.length}" failures="${failures.length}" errors="0" time="0">`,
    suite("cdp-sandbox: contract violations", failures, failures.length),
    suite("cdp-sandbox: operations exercised", exercised, 0),
    ...(unchecked.length > 0 ? [suite("cdp-sandbox: schemas never checked", unchecked, 0, unchecked.length)] : []),
    `</testsuites>`,
    "",
  ].join("\n");
}
