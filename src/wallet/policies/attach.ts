/**
 * The link between accounts and the Policy Engine: an `accountPolicy` must
 * name an existing account-scope policy of the project.
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { policies } from "./model.js";

function assertAccountPolicy(store: ProjectTx, policyId: string): void {
  const policy = policies(store).get(policyId);
  if (!policy) throw apiError("not_found", `Policy ${policyId} was not found in this project.`);
  if (policy.scope !== "account")
    throw apiError("invalid_request", `Policy ${policyId} has scope ${policy.scope}; only account-scope policies can be attached to an account.`);
}

/**
 * The policies an EVM or Solana account carries once a create or update names `accountPolicy`: unchanged when it
 * names none, none for "", else that account-scope policy.
 */
export function policiesAfter(store: ProjectTx, accountPolicy: string | undefined, current: string[]): string[] {
  if (accountPolicy === undefined) return current;
  if (accountPolicy === "") return [];
  assertAccountPolicy(store, accountPolicy);
  return [accountPolicy];
}
