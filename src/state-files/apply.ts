/**
 * Applies a checked state file before the sandbox serves its first request.
 * Everything is built on a copy of the state, in a scratch store, through the
 * platform's own operations (createEvmAccount, importEvmAccount, createEndUser,
 * createPolicy…) and the admin API's ledger credit, so the records are the same
 * as a client would have made; only when every entry went through is the copy
 * put in place, in one write. A refused file leaves the sandbox as it was, and
 * the error names the file, the entry and what went wrong.
 */
import { apiKeyFromSecret, generateApiKey, generateWalletSecret, walletSecretFromBase64 } from "../auth/credentials.js";
import type { SupplyTally } from "../chain/credit.js";
import type { Clock } from "../clock.js";
import { fundAccount } from "../products/accounts/funding.js";
import { CHAIN_CONTRACTS } from "../products/sandboxContracts.js";
import { accountScopeOf, createGrant } from "../wallet/end-users/accounts.js";
import { findEndUser } from "../wallet/records/endUsers.js";
import { findEvmAccountByName } from "../wallet/records/evmAccounts.js";
import type { HandlerContext, SandboxKeys } from "../wallet/types.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { ProjectRecord, SandboxState } from "../store/state.js";
import type { Store } from "../store/store.js";
import { type AccountsAhead, applyServerAccounts } from "./accounts.js";
import { at, credit, creditBalances, type EntryDeps, messageOf, operationsFor } from "./entries.js";
import type { ProjectContent, ProjectEntry, StateFile } from "./model.js";
import { StateFileError } from "./read.js";

export interface ApplyDeps extends EntryDeps {
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  random: Random;
  keys: SandboxKeys;
  /** The file's accounts drawn and set deriving ahead (for the entry whose lists they are). */
  accountsAhead?: AccountsAhead;
  /** Throws when a scenario name or file does not check out (before anything is applied). */
  checkScenarios?: (names: string[]) => void;
  log?: (message: string) => void;
}

/** What the caller applies once the state is in place: neither lives in the store. */
export interface AppliedExtras {
  clockMs?: number;
  /** Scenarios to activate: for every project (projectId undefined) or one. */
  scenarios: Array<{ names: string[]; projectId?: string; at: string }>;
}

const CONTENT_KEYS = [
  "settings",
  "evmAccounts",
  "solanaAccounts",
  "evmSmartAccounts",
  "endUsers",
  "policies",
  "webhookSubscriptions",
  "customers",
  "custodialAccounts",
  "fund",
  "records",
] as const;

function instant(file: string, path: string, text: string): number {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || !Number.isFinite(ms)) throw new StateFileError(file, path, `expected an ISO-8601 date-time, got '${text}'`);
  return ms;
}

/** The entries of the file, each with the JSON path it came from: the top level is the default project. */
function entriesOf(content: StateFile): Array<{ entry: ProjectEntry; path: string }> {
  const top: ProjectEntry = { default: true };
  let any = false;
  for (const key of CONTENT_KEYS) {
    if (content[key] !== undefined) {
      (top as Record<string, unknown>)[key] = content[key];
      any = true;
    }
  }
  return [...(any ? [{ entry: top, path: "$" }] : []), ...(content.projects ?? []).map((entry, i) => ({ entry, path: `$.projects[${i}]` }))];
}

/** Finds or makes the project an entry is about, in `state` (a copy), and gives it the entry's identity. */
function placeProject(file: string, state: SandboxState, entry: ProjectEntry, path: string, deps: ApplyDeps): ProjectRecord {
  let project: ProjectRecord | undefined;
  if (entry.default) project = state.projects[state.defaultProjectId!];
  else if (entry.id !== undefined) project = state.projects[entry.id];
  else if (entry.name !== undefined) project = Object.values(state.projects).find((p) => p.name === entry.name);
  if (!project) {
    project = {
      id: entry.id ?? deps.random.uuid(),
      name: entry.name ?? "sandbox project",
      createdAt: deps.clock.iso(),
      settings: {},
      apiKeys: [],
      data: {},
    };
    state.projects[project.id] = project;
  }
  if (entry.id !== undefined && entry.id !== project.id) {
    // The default project takes the id the file gives it (an export's): records derived from the id stay the same.
    if (state.projects[entry.id]) throw new StateFileError(file, `${path}.id`, `project ${entry.id} already exists`);
    delete state.projects[project.id];
    project = { ...project, id: entry.id };
    state.projects[project.id] = project;
    if (entry.default) state.defaultProjectId = project.id;
  }
  if (entry.name !== undefined) project.name = entry.name;
  if (entry.createdAt !== undefined) project.createdAt = new Date(instant(file, `${path}.createdAt`, entry.createdAt)).toISOString();
  if (entry.settings) project.settings = { ...project.settings, ...entry.settings };
  if (entry.credentials) {
    const { apiKeyId, apiKeySecret, walletSecret } = entry.credentials;
    try {
      apiKeyFromSecret(apiKeyId, apiKeySecret);
      if (walletSecret !== undefined) walletSecretFromBase64(walletSecret);
    } catch (error) {
      throw new StateFileError(file, `${path}.credentials`, messageOf(error));
    }
    const owner = Object.values(state.projects).find((p) => p.id !== project.id && p.apiKeys.some((k) => k.apiKeyId === apiKeyId));
    if (owner) throw new StateFileError(file, `${path}.credentials.apiKeyId`, `API key ${apiKeyId} already belongs to project ${owner.id}`);
    project.apiKeys = [{ apiKeyId, apiKeySecret, verified: true }];
    if (walletSecret !== undefined) project.walletSecret = walletSecret;
  }
  if (entry.meta) Object.assign(project, entry.meta); // the schema keeps out the fields above and prototype names
  if (project.apiKeys.length === 0) {
    const key = generateApiKey(deps.random.secrets());
    project.apiKeys = [{ apiKeyId: key.apiKeyId, apiKeySecret: key.apiKeySecret, verified: true }];
  }
  project.walletSecret ??= generateWalletSecret(deps.random.secrets()).walletSecret;
  return project;
}

async function applyContent(file: string, path: string, content: ProjectContent, ctx: HandlerContext, deps: ApplyDeps): Promise<void> {
  const call = operationsFor(deps, ctx);
  // Every credit of the project's entries counts towards the tokens' supplies, read once.
  const supplies: SupplyTally = new Map();
  for (const [collection, records] of Object.entries(content.records ?? {})) {
    const target = ctx.store.collection<unknown>({ name: collection });
    for (const [id, record] of Object.entries(records)) target.put(id, record);
  }
  for (const [i, body] of (content.policies ?? []).entries()) await at(file, `${path}.policies[${i}]`, () => call("createPolicy", body));
  await applyServerAccounts(file, path, content, ctx, deps, supplies, deps.accountsAhead);
  for (const [i, a] of (content.evmSmartAccounts ?? []).entries()) {
    const where = `${path}.evmSmartAccounts[${i}]`;
    const account = await at(file, where, () => {
      const owner = /^0x[0-9a-fA-F]{40}$/.test(a.owner) ? a.owner : findEvmAccountByName(ctx.store, a.owner).address;
      return call("createEvmSmartAccount", { name: a.name, owners: [owner] });
    });
    await creditBalances(file, where, ctx, account.address as string, a.balances, supplies);
  }
  for (const [i, u] of (content.endUsers ?? []).entries()) {
    const where = `${path}.endUsers[${i}]`;
    const { delegation, ...body } = u;
    const user = await at(file, where, () => call("createEndUser", body));
    if (!delegation) continue;
    await at(file, `${where}.delegation`, () => {
      instant(file, `${where}.delegation.expiresAt`, delegation.expiresAt);
      const record = findEndUser(ctx.store, user.userId as string);
      const scope = delegation.scope === "account" ? accountScopeOf(record, delegation.account) : undefined;
      createGrant(ctx, record, scope, delegation.expiresAt);
    });
  }
  for (const [i, body] of (content.webhookSubscriptions ?? []).entries())
    await at(file, `${path}.webhookSubscriptions[${i}]`, () => call("createWebhookSubscription", body));
  for (const [i, body] of (content.customers ?? []).entries()) await at(file, `${path}.customers[${i}]`, () => call("createCustomer", body));
  for (const [i, a] of (content.custodialAccounts ?? []).entries()) {
    const where = `${path}.custodialAccounts[${i}]`;
    const { balances, ...body } = a;
    const account = await at(file, where, () => call("createFoundationAccount", body));
    for (const [asset, amount] of Object.entries(balances ?? {}))
      await at(file, `${where}.balances.${asset}`, () => fundAccount(ctx.store, account.accountId as string, { asset, amount }));
  }
  for (const [i, f] of (content.fund ?? []).entries())
    await at(file, `${path}.fund[${i}]`, () => credit(ctx, f.network, f.address, f.token, f.amount, supplies));
}

/**
 * Applies `content` (already checked by `checkStateFile`) to the sandbox: all of it, or nothing (a StateFileError).
 * Returns the clock and scenarios for the caller to set, which live outside the store.
 */
export async function applyStateFile(file: string, content: StateFile, deps: ApplyDeps): Promise<AppliedExtras> {
  const extras: AppliedExtras = { scenarios: [] };
  if (content.clock?.now !== undefined) extras.clockMs = instant(file, "$.clock.now", content.clock.now);
  if (content.scenarios) extras.scenarios.push({ names: content.scenarios, at: "$.scenarios" });
  const { scratch, placed } = await deps.store.fork((state) =>
    entriesOf(content).map(({ entry, path }) => ({ entry, path, project: placeProject(file, state, entry, path, deps) })),
  );
  // Entries run with the file's clock, so what they create carries the times the file says.
  const clock: Clock =
    extras.clockMs === undefined ? deps.clock : { ...deps.clock, now: () => extras.clockMs!, iso: () => new Date(extras.clockMs!).toISOString() };
  for (const s of extras.scenarios) await at(file, s.at, () => deps.checkScenarios?.(s.names));
  for (const { entry, path, project } of placed) {
    if (entry.scenarios) await at(file, `${path}.scenarios`, () => deps.checkScenarios?.(entry.scenarios!));
    const tx = scratch.begin(project.id);
    const ctx: HandlerContext = {
      keys: deps.keys,
      clock,
      random: deps.random,
      store: tx,
      project: { id: project.id, settings: project.settings },
      log: deps.log ?? (() => undefined),
      listeningPorts: () => [],
      contracts: CHAIN_CONTRACTS,
    };
    await applyContent(file, path, entry, ctx, deps);
    await tx.commit();
    if (entry.scenarios) extras.scenarios.push({ names: entry.scenarios, projectId: project.id, at: `${path}.scenarios` });
  }
  await deps.store.adopt(scratch);
  deps.projects.reindex();
  return extras;
}
