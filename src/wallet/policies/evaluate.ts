/**
 * Policy evaluation before a governed operation. The project's policy (if
 * any) and the account's policy (if any) each decide on their own: their
 * rules are read in order, the first rule for this operation whose criteria
 * all hold decides, and a policy with no such rule rejects. Both must accept.
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { criterionHolds } from "./criteria.js";
import { reportPolicyDecision } from "./decisions.js";
import type { PolicyFacts } from "./facts.js";
import { criteriaOf, policies, type PolicyRecord } from "./model.js";

export interface PolicyCheck {
  /** The rule operation name, e.g. signEvmTransaction, sendSolTransaction. */
  operation: string;
  /** Policy ids attached to the account acting. */
  accountPolicies: string[];
  facts: PolicyFacts;
}

function decide(store: ProjectTx, policy: PolicyRecord, check: PolicyCheck): void {
  const decided = (action: "accept" | "reject", rule?: number) =>
    reportPolicyDecision(store, { policyId: policy.id, scope: policy.scope, operation: check.operation, ...(rule ? { rule } : {}), action });
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.operation !== check.operation) continue;
    if (!criteriaOf(rule).every((c) => criterionHolds(c, check.facts))) continue;
    decided(rule.action, index + 1);
    if (rule.action === "accept") return;
    throw apiError("policy_violation", `Rejected by ${policy.scope} policy ${policy.id}, rule ${index + 1} (reject ${rule.operation}).`);
  }
  decided("reject");
  throw apiError("policy_violation", `Rejected by ${policy.scope} policy ${policy.id}: no rule for ${check.operation} accepts this request.`);
}

export function enforcePolicies(store: ProjectTx, check: PolicyCheck): void {
  const all = policies(store);
  const project = all.find((p) => p.scope === "project");
  if (project) decide(store, project, check);
  for (const id of check.accountPolicies) {
    const policy = all.get(id);
    if (policy) decide(store, policy, check);
  }
}
