/**
 * Which catalogue case a contract violation of a request is. Almost all are
 * invalid_request; a few the platform reports with an errorType of their
 * own keep it — the metadata limits of transfers and deposit destinations,
 * and a transfer target's malformed email — so the same body gets the same
 * errorType whether the contract or a handler notices the problem first.
 */
import { describeProblems, type Problem } from "../contract/validate.js";
import { apiError, type ApiError, type ErrorCase } from "./catalogue.js";

/** Only the money-movement operations report these; elsewhere (webhook metadata, say) it stays invalid_request. */
const MONEY = new Set(["createTransfer", "createDepositDestination"]);

const SPECIFIC: Array<{ test: (p: Problem) => boolean; name: ErrorCase }> = [
  { test: (p) => p.location === "body.metadata" && /more than \d+ properties/.test(p.message), name: "metadata_too_many_entries" },
  { test: (p) => p.location.startsWith("body.metadata.") && /more than \d+ characters/.test(p.message), name: "metadata_value_too_long" },
  { test: (p) => p.location === "body.target.email" && /must match (format|pattern)|more than \d+ characters/.test(p.message), name: "target_email_invalid" },
];

export function errorForProblems(problems: Problem[], operationId: string): ApiError {
  if (!MONEY.has(operationId)) return apiError("invalid_request", describeProblems(problems));
  // A oneOf no variant matched is one summary problem: its closest variant's problems say which case it is.
  const all = problems.flatMap((p) => [p, ...(p.causes ?? [])]);
  for (const { test, name } of SPECIFIC) {
    const matching = all.filter(test);
    if (matching.length === 0) continue;
    const unique = [...new Map(matching.map((p) => [`${p.location}\n${p.message}`, p])).values()];
    return apiError(name, describeProblems(unique));
  }
  return apiError("invalid_request", describeProblems(problems));
}
