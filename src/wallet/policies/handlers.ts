/** Policy Engine: create, read, list (by scope), update and delete policies. */
import { apiError } from "../../errors/catalogue.js";
import { evmAccounts } from "../records/evmAccounts.js";
import { paginate } from "../shared/pagination.js";
import { solanaAccounts } from "../records/solanaAccounts.js";
import type { Handler, Handlers } from "../types.js";
import { findPolicy, policies, policyView, type PolicyRecord } from "./model.js";
import { checkRules } from "./rules.js";

const createPolicy: Handler<"createPolicy"> = (req, ctx) => {
  const body = req.body;
  checkRules(body.rules);
  if (body.scope === "project") {
    const existing = policies(ctx.store).find((p) => p.scope === "project");
    if (existing) throw apiError("already_exists", `This project already has a project-scope policy (${existing.id}); update it instead.`);
  }
  const now = ctx.clock.iso();
  const policy: PolicyRecord = {
    id: ctx.random.uuid(),
    scope: body.scope,
    ...(body.description !== undefined ? { description: body.description } : {}),
    rules: body.rules,
    createdAt: now,
    updatedAt: now,
  };
  policies(ctx.store).insert(policy.id, policy);
  return { status: 201, body: policyView(policy) };
};

const getPolicyById: Handler<"getPolicyById"> = (req, ctx) => ({ status: 200, body: policyView(findPolicy(ctx.store, req.pathParams.policyId)) });

const listPolicies: Handler<"listPolicies"> = (req, ctx) => {
  const scope = req.query.scope;
  const all = policies(ctx.store)
    .filter((p) => scope === undefined || p.scope === scope)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const page = paginate(all, req.query, `policies:${String(scope ?? "")}`);
  return { status: 200, body: { policies: page.items.map(policyView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const updatePolicy: Handler<"updatePolicy"> = (req, ctx) => {
  const policy = findPolicy(ctx.store, req.pathParams.policyId);
  const body = req.body;
  checkRules(body.rules);
  policy.rules = body.rules;
  if (body.description !== undefined) policy.description = body.description;
  policy.updatedAt = ctx.clock.iso();
  policies(ctx.store).put(policy.id, policy);
  return { status: 200, body: policyView(policy) };
};

const deletePolicy: Handler<"deletePolicy"> = (req, ctx) => {
  const policy = findPolicy(ctx.store, req.pathParams.policyId);
  const holdsPolicy = (account: { policies: string[] }) => account.policies.includes(policy.id);
  const attached = [...evmAccounts(ctx.store).filter(holdsPolicy), ...solanaAccounts(ctx.store).filter(holdsPolicy)];
  if (attached.length > 0) {
    throw apiError(
      "policy_in_use",
      `Policy ${policy.id} is attached to ${attached.length} account(s), e.g. ${attached[0]!.address}; detach it (accountPolicy "") first.`,
    );
  }
  policies(ctx.store).delete(policy.id);
  return { status: 204 };
};

export const handlers: Handlers = { createPolicy, getPolicyById, listPolicies, updatePolicy, deletePolicy };
