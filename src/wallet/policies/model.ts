/**
 * Policies of a project. A policy is a list of rules; each rule names one
 * operation, an action (accept/reject) and criteria that must all hold.
 * A project has at most one project-scope policy; account-scope policies are
 * attached to accounts through `accountPolicy` and cannot be deleted while
 * attached (400 policy_in_use).
 */
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";

/** A rule as the contract defines it, stored as the validated request gave it. */
export type Rule = Schema<"Rule">;

/** Any criterion of any rule, told apart by its `type`. */
export type Criterion = Extract<Rule, { criteria: unknown }>["criteria"][number];

/** The criteria of a rule (signEvmHash rules have none). */
export function criteriaOf(rule: Rule): Criterion[] {
  return ("criteria" in rule ? rule.criteria : undefined) ?? [];
}

export interface PolicyRecord {
  id: string;
  scope: Schema<"PolicyScope">;
  description?: string;
  rules: Rule[];
  createdAt: string;
  updatedAt: string;
}

const POLICIES = declareCollection<PolicyRecord>("policies");

export const policies = (store: ProjectTx): Collection<PolicyRecord> => store.collection(POLICIES);

type PolicyView = ResponseBody<"getPolicyById", 200>;

export function policyView(p: PolicyRecord): PolicyView {
  return {
    id: p.id,
    scope: p.scope,
    ...(p.description !== undefined ? { description: p.description } : {}),
    rules: p.rules,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function findPolicy(store: ProjectTx, id: string): PolicyRecord {
  const policy = policies(store).get(id);
  if (!policy) throw apiError("not_found", `Policy ${id} was not found in this project.`);
  return policy;
}
