/**
 * Policies of a project. A policy is a list of rules; each rule names one
 * operation, an action (accept/reject) and criteria that must all hold.
 * A project has at most one project-scope policy; account-scope policies are
 * attached to accounts through `accountPolicy` and cannot be deleted while
 * attached (400 policy_in_use).
 */
import type { ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";

export interface Criterion {
  type: string;
  [field: string]: unknown;
}

export interface Rule {
  action: "accept" | "reject";
  operation: string;
  criteria?: Criterion[];
}

export interface PolicyRecord {
  id: string;
  scope: "project" | "account";
  description?: string;
  rules: Rule[];
  createdAt: string;
  updatedAt: string;
}

export const policies = (store: ProjectTx): Collection<PolicyRecord> => store.collection<PolicyRecord>("policies");

type PolicyView = ResponseBody<"getPolicyById", 200>;

export function policyView(p: PolicyRecord): PolicyView {
  return {
    id: p.id,
    scope: p.scope,
    ...(p.description !== undefined ? { description: p.description } : {}),
    rules: p.rules as PolicyView["rules"] /* stored as validated against the contract */,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function findPolicy(store: ProjectTx, id: string): PolicyRecord {
  const policy = policies(store).get(id);
  if (!policy) throw apiError("not_found", `Policy ${id} was not found in this project.`);
  return policy;
}
