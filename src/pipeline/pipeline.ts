/**
 * The request pipeline for /platform, one stage per concern:
 * correlation id → route → bearer auth → wallet auth → request validation →
 * scenario hook → idempotency → handler (or fallback mock) → journal.
 * Any stage may throw a catalogue error; it leaves as the platform's error body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthMode } from "../auth/bearer.js";
import { collectEvmReverts } from "../chain/evm/revertTrace.js";
import type { Clock } from "../clock.js";
import { onPolicyDecision } from "../wallet/policies/decisions.js";
import { CHAIN_CONTRACTS } from "../products/sandboxContracts.js";
import { hasDueWork, settleProject } from "../products/settle.js";
import { fallbackResponse } from "../contract/fallback.js";
import type { OperationIndex } from "../contract/operations.js";
import { describeProblems, validateRequest, validateResponse } from "../contract/validate.js";
import type { AnyHandler, SandboxKeys } from "../wallet/types.js";
import { ApiError, apiError } from "../errors/catalogue.js";
import { errorForProblems } from "../errors/validationCases.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { PendingTx, Store } from "../store/store.js";
import { authenticate, type CoinbaseAuthenticator, type EndUserAuthenticator } from "./authenticate.js";
import { effectOf, findDuplicate, recordEffect } from "./duplicates.js";
import { errorResponse } from "./errors.js";
import { jsonResponse, newExchange, type Exchange, type Outgoing } from "./exchange.js";
import { Idempotency } from "./idempotency.js";
import type { Journal } from "./journal.js";
import { parseBody, turnAfterLargeBody } from "./body.js";
import { ProjectLocks } from "./locks.js";
import type { ScenarioHook } from "./scenario.js";
import { RequestSignatureStage } from "./requestSignature.js";
import { WalletAuthStage } from "./walletAuth.js";
import { writeOutgoing } from "./write.js";

export interface PipelineDeps {
  keys: SandboxKeys;
  operations: OperationIndex;
  /** operationId → handler; an operation without one is answered by the fallback mock. */
  handlers: Readonly<Record<string, AnyHandler>>;
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  random: Random;
  journal: Journal;
  scenarios: ScenarioHook;
  authMode: AuthMode;
  /** Who an end user's access token signs in, and their Temporary Wallet Secrets for X-Wallet-Auth. */
  endUsers?: EndUserAuthenticator;
  /** Recognises a payer's Coinbase OAuth token (operations with no security scheme). */
  coinbaseAuth?: CoinbaseAuthenticator;
  /**
   * The project of a caller who sends no credentials, from what the path names (a payment session's payer: the
   * session says whose project it is); undefined when the path names nothing of a project.
   */
  projectOfPath?: (pathParams: Readonly<Record<string, string>>) => string | undefined;
  validateResponses: boolean;
  log: (message: string) => void;
  /** Shared with the node (JSON-RPC), which writes to the same ledgers. */
  locks?: ProjectLocks;
  /** The ports the sandbox listens on, for handlers that must not call the sandbox itself (webhook targets). */
  listeningPorts: () => readonly number[];
  /** Whether webhook targets may be on loopback, link-local or private addresses (false off loopback by default). */
  privateWebhookTargets?: boolean;
}

export const PLATFORM_PREFIX = "/platform";

export function createPipeline(deps: PipelineDeps) {
  const walletAuth = new WalletAuthStage(deps.projects, deps.endUsers);
  const signatures = new RequestSignatureStage(deps.projects, deps.clock);
  const idempotency = new Idempotency(deps.clock);
  const locks = deps.locks ?? new ProjectLocks();
  const correlationIds = deps.random.fork("correlation");

  async function carryOut(ex: Exchange, tx: PendingTx): Promise<Outgoing> {
    const op = ex.operation!;
    const handler = deps.handlers[op.operationId];
    try {
      if (!handler) {
        ex.mock = true;
        const isValid = (status: number, body: unknown) =>
          validateResponse(op.http, { status, headers: { "content-type": "application/json" }, body }).length === 0;
        const mock = fallbackResponse(op.http, deps.random.fork(`mock/${op.operationId}`), isValid);
        return jsonResponse(mock.status, mock.body, { "x-sandbox-mock": "fallback" });
      }
      // What the clock has made due (deliveries, settling transfers) lands before the operation reads or moves balances
      // (not in outbound handlers: they run without the lock that settling needs).
      if (!handler.outbound) settleProject(tx, { clock: deps.clock, random: deps.random });
      const effect = await effectOf(ex);
      ex.duplicateOf = findDuplicate(tx, ex, effect, deps.clock.now());
      onPolicyDecision(tx, (decision) => {
        ex.policyDecisions ??= [];
        ex.policyDecisions.push(decision);
      });
      ex.evmReverts = [];
      const result = await collectEvmReverts(tx, ex.evmReverts, () =>
        handler(
          { operationId: op.operationId, pathParams: ex.pathParams, query: ex.query, headers: ex.headers, body: ex.body, auth: ex.auth },
          {
            keys: deps.keys,
            clock: deps.clock,
            random: deps.random,
            store: tx,
            project: { id: tx.projectId, settings: tx.settings() },
            log: deps.log,
            listeningPorts: deps.listeningPorts,
            contracts: CHAIN_CONTRACTS,
            privateWebhookTargets: deps.privateWebhookTargets ?? true,
          },
        ),
      );
      if (result.status < 300) recordEffect(tx, ex, effect, deps.clock.now());
      else ex.duplicateOf = undefined; // a refusal answered by the handler (x402's 400 settle) did nothing either
      const headers = ex.duplicateOf ? { ...result.headers, "x-sandbox-duplicate-of": ex.duplicateOf } : result.headers;
      return jsonResponse(result.status, result.body, headers);
    } catch (error) {
      ex.duplicateOf = undefined; // a refused request did nothing, so it repeated nothing
      // All-or-nothing: a failed operation leaves the store as it was, unless the refusal is itself the change.
      if (!(error instanceof ApiError && error.keepWrites)) tx.discard();
      return errorResponse(error, ex.correlationId, deps.log);
    }
  }

  async function process(ex: Exchange): Promise<Outgoing> {
    // Until the scenario hook, every refusal is the caller's: each check names itself before it runs (exchange.ts).
    ex.violation = "route";
    const match = deps.operations.match(ex.method, ex.path);
    if (match.kind === "malformed") throw apiError("invalid_request", `The path segment '${match.segment}' has a malformed percent-escape.`);
    if (match.kind === "not-found") throw apiError("not_found", `No operation of the API serves ${ex.method} ${ex.fullPath}.`);
    if (match.kind === "method-not-allowed") {
      throw apiError("not_found", `${ex.fullPath} does not support ${ex.method}; it supports ${match.allowed.join(", ")}.`, undefined, {
        allow: match.allowed.join(", "),
      });
    }
    ex.operation = match.operation;
    ex.pathParams = match.pathParams;

    ex.violation = "auth";
    await authenticate(ex, {
      mode: deps.authMode,
      projects: deps.projects,
      endUsers: deps.endUsers,
      coinbaseAuth: deps.coinbaseAuth,
      alongside: walletAuth.wants(ex) ? (projectId) => walletAuth.begin(ex, projectId) : undefined,
    });
    if (ex.auth.kind === "none") ex.projectId = deps.projectOfPath?.(ex.pathParams) ?? ex.projectId;
    if (deps.authMode !== "none") await signatures.check(ex);
    if (deps.authMode !== "none") await walletAuth.check(ex);

    // An operation that declares a body always hands its handler one: none (or JSON null) is checked as {}, so a
    // body with required fields is refused with 400 naming them and an all-optional one reads as empty.
    ex.violation = "validation";
    if ((ex.body === undefined || ex.body === null) && match.operation.http.request?.body) ex.body = {};
    ex.problems = validateRequest(match.operation.http, ex);
    // With --auth none nobody signs, so the wallet token the contract requires is not asked for either.
    if (deps.authMode === "none") ex.problems = ex.problems.filter((p) => !/x-wallet-auth/i.test(`${p.location} ${p.message}`));
    if (ex.problems.length > 0) throw errorForProblems(ex.problems, match.operation.operationId);
    // From here on, answers come from the state, the configuration and the scenarios: none is the caller's violation.
    ex.violation = undefined;

    const projectId = ex.projectId!;
    const handler = deps.handlers[match.operation.operationId];
    const outbound = handler?.outbound === true;
    if (handler?.beforeLock) await handler.beforeLock({ headers: ex.headers }, { settings: deps.store.project(projectId)?.settings ?? {} });
    return deps.scenarios.around(ex, () =>
      // Writes of one project are serialized, so checks such as "name is unique" hold under concurrency.
      // A read that lands due work writes too, so it takes the lock like a write. Outbound handlers (which call
      // servers that may call the sandbox back) never hold it.
      locks.run(projectId, !outbound && (ex.method !== "GET" || hasDueWork(deps.store, projectId, deps.clock.now())), () =>
        idempotency.around(ex, deps.store.begin(projectId), (tx) => carryOut(ex, tx)),
      ),
    );
  }

  function checkResponse(ex: Exchange, out: Outgoing): Outgoing {
    // A scenario's answer breaks the contract on purpose (a gateway's text body, a status the operation never declares).
    if (!deps.validateResponses || !ex.operation || ex.scenarios.length > 0) return out;
    const body = out.bodyText === undefined ? undefined : JSON.parse(out.bodyText);
    const problems = validateResponse(ex.operation.http, { status: out.status, headers: out.headers, body });
    if (problems.length === 0) return out;
    const message = `The sandbox's response to ${ex.operation.operationId} (status ${out.status}) does not match the contract: ${describeProblems(problems)}`;
    deps.log(message);
    return errorResponse(apiError("internal_server_error", message), ex.correlationId);
  }

  /** `req.body`: the raw body as read by app.ts. */
  return async function handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const ex = newExchange(req, req.url ?? "/", PLATFORM_PREFIX, correlationIds.hex(8));
    try {
      ex.violation = "body";
      const parsed = parseBody(ex.rawBody, ex.headers["content-type"]);
      ex.body = parsed;
      await turnAfterLargeBody(ex.rawBody);
      ex.response = checkResponse(ex, await process(ex));
    } catch (error) {
      if (!(error instanceof ApiError)) ex.violation = undefined; // the sandbox failed, not the caller
      ex.response = errorResponse(error, ex.correlationId, deps.log);
    }
    ex.response.headers["x-correlation-id"] = ex.correlationId;
    if (ex.auth.kind === "apiKey" && !ex.auth.verified && deps.authMode === "verify") ex.response.headers["x-sandbox-auth"] = "unverified";
    await writeOutgoing(res, ex);
    try {
      deps.journal.record(ex, Date.now());
    } catch (error) {
      // The answer is on its way: a journal that cannot take the entry must not cut the connection under it.
      deps.log(`could not record ${ex.correlationId} in the journal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  };
}
