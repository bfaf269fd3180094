/**
 * Applies a checked state file before the sandbox serves its first request.
 * Everything is built on a copy of the state, in a scratch store, through the
 * platform's own operations (createEvmAccount, importEvmAccount, createEndUser,
 * createPolicy…) and the admin API's ledger credit, so the records are the same
 * as a client would have made; only when every entry went through is the copy
 * put in place, in one write. A refused file leaves the sandbox as it was, and
 * the error names the file, the entry and what went wrong.
 */
import type { IHttpOperation } from "@stoplight/types";
import { apiKeyFromSecret, generateApiKey, generateWalletSecret, walletSecretFromBase64 } from "../auth/credentials.js";
import { creditOnLedger, ledgerToken, type SupplyTally } from "../chain/credit.js";
import type { Clock } from "../clock.js";
import type { OperationIndex } from "../contract/operations.js";
import { describeProblems, validateRequest } from "../contract/validate.js";
import { fromBase58 } from "../crypto/solana.js";
import { fundAccount } from "../products/accounts/funding.js";
import { CHAIN_CONTRACTS } from "../products/sandboxContracts.js";
import { accountScopeOf, createGrant } from "../wallet/end-users/accounts.js";
import { findEndUser } from "../wallet/records/endUsers.js";
import { findEvmAccountByName } from "../wallet/records/evmAccounts.js";
import { evmAccountOperations } from "../wallet/evm-accounts/accounts.js";
import { solanaAccountOperations } from "../wallet/solana-accounts/accounts.js";
import { toUnits } from "../products/shared/decimal.js";
import type { AnyHandler, HandlerContext, SandboxKeys } from "../wallet/types.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { ProjectRecord, SandboxState } from "../store/state.js";
import type { Store } from "../store/store.js";
import type { Balances, ProjectContent, ProjectEntry, StateFile } from "./model.js";
import { StateFileError } from "./read.js";

export interface ApplyDeps {
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  random: Random;
  keys: SandboxKeys;
  handlers: Readonly<Record<string, AnyHandler>>;
  /** The platform's operations: the bodies a file passes through are checked against the contract first. */
  operations?: OperationIndex;
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work`; any failure becomes a StateFileError at `at`. */
async function at<T>(file: string, path: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(file, path, messageOf(error));
  }
}

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

const bodyOnly = new WeakMap<IHttpOperation, IHttpOperation>();

/**
 * The operation without its header parameters: only the body is the file's, the headers (credentials,
 * X-Wallet-Auth) are the sandbox's own here. With none to miss, the validator's compiled fast path answers for a
 * body that passes (prism's own validation, ~20 times the cost, was a tenth of the start with 100,000 accounts).
 */
function withoutHeaders(op: IHttpOperation): IHttpOperation {
  let found = bodyOnly.get(op);
  if (!found) {
    found = { ...op, request: { ...op.request, headers: [] } };
    bodyOnly.set(op, found);
  }
  return found;
}

/** Checks a body of the file against an operation's contract, as a request's body would be; throws invalid_request. */
function checkBody(deps: ApplyDeps, operationId: string, body: unknown, pathParams: Record<string, string> = {}): void {
  const op = deps.operations?.get(operationId);
  if (!op) return;
  const path = op.pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ""));
  const problems = validateRequest(withoutHeaders(op.http), { method: op.method, path, query: {}, headers: { "content-type": "application/json" }, body });
  if (problems.length > 0) throw apiError("invalid_request", describeProblems(problems));
}

/** The operations a file's entries go through, for one project's transaction. */
function operationsFor(deps: ApplyDeps, ctx: HandlerContext) {
  return async (operationId: string, body: unknown, pathParams: Record<string, string> = {}) => {
    const handler = deps.handlers[operationId];
    if (!handler) throw new Error(`the sandbox serves no ${operationId}`);
    checkBody(deps, operationId, body, pathParams);
    const request = { operationId, pathParams, query: {}, headers: {}, body, auth: { kind: "apiKey" as const, verified: true } };
    return (await handler(request, ctx)).body as Record<string, unknown>;
  };
}

async function creditBalances(
  file: string,
  path: string,
  ctx: HandlerContext,
  address: string,
  balances: Balances | undefined,
  supplies: SupplyTally,
): Promise<void> {
  for (const [network, tokens] of Object.entries(balances ?? {})) {
    for (const [token, amount] of Object.entries(tokens)) {
      await at(file, `${path}.balances.${network}.${token}`, () => credit(ctx, network, address, token, amount, supplies));
    }
  }
}

/** Credits a decimal amount of a token (symbol or address) through the admin API's ledger credit. */
function credit(ctx: HandlerContext, network: string, address: string, token: string | undefined, amount: string, supplies: SupplyTally): void {
  const asset = ledgerToken(network, token);
  if (!asset) {
    // An unknown network or token: the credit itself says which (and a bad address first), as POST /_sandbox/balances does.
    creditOnLedger(ctx.store, { network, address, token, amount: "0" });
    throw apiError("invalid_request", `token ${token} is not in the sandbox's token table for ${network}.`);
  }
  const units = toUnits(amount, asset.decimals);
  if (units === undefined) throw apiError("invalid_request", `${amount} ${asset.symbol} has more than ${asset.decimals} decimals.`);
  creditOnLedger(ctx.store, { network, address, token, amount: units.toString() }, supplies);
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
  for (const [i, a] of (content.evmAccounts ?? []).entries()) {
    const where = `${path}.evmAccounts[${i}]`;
    // A fixed key is imported as importEvmAccount imports it, without the RSA envelope around it (the key is the
    // file's, in the clear already); the name is checked by the contract all the same.
    const account = await at(file, where, () => {
      if (a.privateKey === undefined) return call("createEvmAccount", { name: a.name });
      checkBody(deps, "createEvmAccount", { name: a.name });
      return evmAccountOperations.importKey(Buffer.from(a.privateKey.slice(2), "hex"), { name: a.name }, ctx).body;
    });
    await creditBalances(file, where, ctx, account.address as string, a.balances, supplies);
  }
  for (const [i, a] of (content.solanaAccounts ?? []).entries()) {
    const where = `${path}.solanaAccounts[${i}]`;
    const account = await at(file, where, () => {
      if (a.privateKey === undefined) return call("createSolanaAccount", { name: a.name });
      const raw = fromBase58(a.privateKey);
      if (raw.length !== 32 && raw.length !== 64) throw new Error(`privateKey is ${raw.length} bytes; expected a 32-byte seed or a 64-byte secret key`);
      checkBody(deps, "createSolanaAccount", { name: a.name });
      return solanaAccountOperations.importKey(raw.subarray(0, 32), { name: a.name }, ctx).body;
    });
    await creditBalances(file, where, ctx, account.address as string, a.balances, supplies);
  }
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
 * Applies `content` (already checked by `readStateFile`) to the sandbox: all of it, or nothing (a StateFileError).
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
