/**
 * GET /_sandbox/accounts: a page of the project's accounts of one kind (EVM,
 * Solana, smart accounts, end users) with their balances per network and
 * token, for the dashboard.
 */
import type { components } from "../contract/generated/admin-types.js";
import { endUsers, type EndUserRecord } from "../domains/end-users/model.js";
import { evmAccounts } from "../domains/evm-accounts/model.js";
import { smartAccounts } from "../domains/evm-smart-accounts/accounts.js";
import { solanaAccounts } from "../domains/solana-accounts/model.js";
import type { Collection } from "../store/store.js";
import { balancesByHolder, holderKey } from "./holdings.js";
import { pageOf, textOf } from "./paging.js";
import { type AdminHandler, callerProject } from "./types.js";

type AccountSummary = components["schemas"]["AccountSummary"];
type Kind = AccountSummary["kind"];

/**
 * A page of a collection in creation order: without `needle` read from the order index (the account collections
 * declare one), else from the records it matches.
 */
function pageMatching<T extends { createdAt: string }>(
  c: Collection<T>,
  offset: number,
  limit: number,
  needle: string | undefined,
  text: (r: Readonly<T>) => string[],
) {
  if (!needle) return c.page(offset, limit);
  const all = c.filter((r) => text(r).some((s) => s.toLowerCase().includes(needle))).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return { items: all.slice(offset, offset + limit), total: all.length };
}

const endUserText = (u: Readonly<EndUserRecord>) => [
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
    // End users declare no order: they are read whole, sorted by creation.
    const all = endUsers(tx)
      .filter((u) => !needle || endUserText(u).some((s) => s.toLowerCase().includes(needle)))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.userId.localeCompare(b.userId));
    const p = { items: all.slice(offset, offset + limit), total: all.length };
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
