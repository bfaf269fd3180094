/**
 * GET /_sandbox/end-users and /_sandbox/policies: who may act for whom. End
 * users with their accounts and delegation grants (each grant's state read on
 * the sandbox clock), and policies with their rules, the accounts they are
 * attached to and which rule decided each recent signing (from the journal).
 */
import { type DelegationGrant, grants, grantState } from "../wallet/end-users/delegation.js";
import { endUsers } from "../wallet/records/endUsers.js";
import { evmAccounts } from "../wallet/records/evmAccounts.js";
import { smartAccounts } from "../wallet/evm-smart-accounts/accounts.js";
import { policies } from "../wallet/policies/model.js";
import { solanaAccounts } from "../wallet/records/solanaAccounts.js";
import { endUserText } from "./accounts.js";
import { pageMatching, pageOf, textOf } from "./paging.js";
import { type AdminHandler, callerProject } from "./types.js";

const iso = (ms: number) => new Date(ms).toISOString();
/** How many recent requests with policy decisions the policies view lists. */
const RECENT_DECISIONS = 100;

export const listSandboxEndUsers: AdminHandler<"listSandboxEndUsers"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const { offset, limit } = pageOf(call.query);
  const needle = textOf(call.query.q)?.trim().toLowerCase() || undefined;
  const page = pageMatching(endUsers(tx), offset, limit, needle, endUserText);
  const pageUsers = page.items;
  const wanted = new Set(pageUsers.map((u) => u.userId));
  const now = ctx.clock.now();
  const grantsByUser = new Map<string, DelegationGrant[]>();
  for (const g of grants(tx).filter((g) => wanted.has(g.userId))) grantsByUser.set(g.userId, [...(grantsByUser.get(g.userId) ?? []), g]);
  return {
    status: 200,
    body: {
      total: page.total,
      offset,
      items: pageUsers.map((u) => ({
        userId: u.userId,
        createdAt: u.createdAt,
        authenticationMethods: u.authenticationMethods.map((m) => m.type),
        evmAccounts: u.evmAccounts.map((a) => a.address),
        evmSmartAccounts: u.evmSmartAccounts.map((a) => a.address),
        solanaAccounts: u.solanaAccounts.map((a) => a.address),
        grants: (grantsByUser.get(u.userId) ?? [])
          .sort((a, b) => b.createdAtMs - a.createdAtMs)
          .map((g) => ({
            grantId: g.id,
            scope: g.address === undefined ? ("project" as const) : ("account" as const),
            ...(g.address !== undefined ? { address: g.address } : {}),
            createdAt: iso(g.createdAtMs),
            expiresAt: iso(g.expiresAtMs),
            ...(g.revokedAtMs !== undefined ? { revokedAt: iso(g.revokedAtMs) } : {}),
            state: grantState(g, now),
          })),
      })),
    },
  };
};

export const listSandboxPolicies: AdminHandler<"listSandboxPolicies"> = (call, ctx) => {
  const projectId = callerProject(call, ctx);
  const tx = ctx.store.begin(projectId);
  const attached = new Map<string, string[]>();
  const attach = (a: { address: string; policies: string[] }) => {
    for (const id of a.policies) attached.set(id, [...(attached.get(id) ?? []), a.address]);
  };
  for (const a of evmAccounts(tx).list()) attach(a);
  for (const a of solanaAccounts(tx).list()) attach(a);
  for (const a of smartAccounts(tx).list()) attach(a);
  const list = policies(tx)
    .list()
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const decided = ctx.journal
    .list(projectId)
    .filter((e) => e.policyDecisions !== undefined)
    .slice(-RECENT_DECISIONS)
    .reverse();
  return {
    status: 200,
    body: {
      policies: list.map((p) => ({
        policyId: p.id,
        scope: p.scope,
        ...(p.description !== undefined ? { description: p.description } : {}),
        rules: p.rules as unknown as Array<Record<string, unknown>>,
        accounts: attached.get(p.id) ?? [],
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
      })),
      decisions: decided.map((e) => ({
        correlationId: e.correlationId,
        time: e.time,
        ...(e.operationId ? { operationId: e.operationId } : {}),
        status: e.status,
        ...(e.errorType ? { errorType: e.errorType } : {}),
        decisions: e.policyDecisions ?? [],
      })),
    },
  };
};
