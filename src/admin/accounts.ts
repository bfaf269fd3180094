/**
 * GET /_sandbox/accounts: a page of the project's accounts of one kind (EVM,
 * Solana, smart accounts, end users) with their balances per network and
 * token, for the dashboard.
 */
import type { components } from "../contract/generated/admin-types.js";
import { endUsers, type EndUserRecord } from "../wallet/records/endUsers.js";
import { evmAccounts } from "../wallet/records/evmAccounts.js";
import { smartAccounts } from "../wallet/evm-smart-accounts/accounts.js";
import { solanaAccounts } from "../wallet/records/solanaAccounts.js";
import { balancesByHolder, holderKey } from "./holdings.js";
import { pageMatching, pageOf, textOf } from "./paging.js";
import { type AdminHandler, callerProject } from "./types.js";

type AccountSummary = components["schemas"]["AccountSummary"];
type Kind = AccountSummary["kind"];

/** What an end user is found by in the dashboard's search: its id and every account address. */
export const endUserText = (u: Readonly<EndUserRecord>) => [
  u.userId,
  ...u.evmAccounts.map((a) => a.address),
  ...u.evmSmartAccounts.map((a) => a.address),
  ...u.solanaAccounts.map((a) => a.address),
];

export const listSandboxAccounts: AdminHandler<"listSandboxAccounts"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const kind = (textOf(call.query.kind) ?? "evm") as Kind;
  const { offset, limit } = pageOf(call.query);
  const needle = textOf(call.query.q)?.trim().toLowerCase() || undefined;
  const balances = balancesByHolder(tx);
  const of = (address: string) => balances.get(holderKey(address)) ?? [];
  const named = (r: { address: string; name?: string }) => [r.address, r.name ?? ""];
  let page: { items: AccountSummary[]; total: number };
  if (kind === "evm") {
    const p = pageMatching(evmAccounts(tx), offset, limit, needle, named);
    page = {
      total: p.total,
      items: p.items.map((a) => ({ kind, address: a.address, name: a.name, createdAt: a.createdAt, policies: a.policies, balances: of(a.address) })),
    };
  } else if (kind === "solana") {
    const p = pageMatching(solanaAccounts(tx), offset, limit, needle, named);
    page = {
      total: p.total,
      items: p.items.map((a) => ({ kind, address: a.address, name: a.name, createdAt: a.createdAt, policies: a.policies, balances: of(a.address) })),
    };
  } else if (kind === "smart") {
    const p = pageMatching(smartAccounts(tx), offset, limit, needle, named);
    page = {
      total: p.total,
      items: p.items.map((a) => ({
        kind,
        address: a.address,
        name: a.name,
        createdAt: a.createdAt,
        policies: a.policies,
        owners: a.owners,
        balances: of(a.address),
      })),
    };
  } else {
    const p = pageMatching(endUsers(tx), offset, limit, needle, endUserText);
    page = {
      total: p.total,
      items: p.items.map((u) => ({
        kind,
        userId: u.userId,
        createdAt: u.createdAt,
        balances: [],
        accounts: [
          ...u.evmAccounts.map((a) => ({ kind: "evm" as const, address: a.address, balances: of(a.address) })),
          ...u.evmSmartAccounts.map((a) => ({ kind: "smart" as const, address: a.address, balances: of(a.address) })),
          ...u.solanaAccounts.map((a) => ({ kind: "solana" as const, address: a.address, balances: of(a.address) })),
        ],
      })),
    };
  }
  return { status: 200, body: { kind, offset, ...page } };
};
