/**
 * What every entry of a state file goes through: the JSON path its failure names, the contract check of its body,
 * the platform's operation it calls, and the ledger credit of its balances.
 */
import type { IHttpOperation } from "@stoplight/types";
import { creditOnLedger, ledgerToken, type SupplyTally } from "../chain/credit.js";
import type { OperationIndex } from "../contract/operations.js";
import { describeProblems, validateRequest } from "../contract/validate.js";
import { apiError } from "../errors/catalogue.js";
import { toUnits } from "../products/shared/decimal.js";
import type { AnyHandler, HandlerContext } from "../wallet/types.js";
import type { Balances } from "./model.js";
import { StateFileError } from "./read.js";

/** What the entries' operations need of the sandbox. */
export interface EntryDeps {
  handlers: Readonly<Record<string, AnyHandler>>;
  /** The platform's operations: the bodies a file passes through are checked against the contract first. */
  operations?: OperationIndex;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failure of the entry at `path`, as a StateFileError (one already is: it names its own place). */
export function failedAt(file: string, path: string, error: unknown): StateFileError {
  return error instanceof StateFileError ? error : new StateFileError(file, path, messageOf(error));
}

/** Runs `work`; any failure becomes a StateFileError at `at`. */
export async function at<T>(file: string, path: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw failedAt(file, path, error);
  }
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
export function checkBody(deps: EntryDeps, operationId: string, body: unknown, pathParams: Record<string, string> = {}): void {
  const op = deps.operations?.get(operationId);
  if (!op) return;
  const path = op.pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ""));
  const problems = validateRequest(withoutHeaders(op.http), { method: op.method, path, query: {}, headers: { "content-type": "application/json" }, body });
  if (problems.length > 0) throw apiError("invalid_request", describeProblems(problems));
}

/** The operations a file's entries go through, for one project's transaction. */
export function operationsFor(deps: EntryDeps, ctx: HandlerContext) {
  return async (operationId: string, body: unknown, pathParams: Record<string, string> = {}) => {
    const handler = deps.handlers[operationId];
    if (!handler) throw new Error(`the sandbox serves no ${operationId}`);
    checkBody(deps, operationId, body, pathParams);
    const request = { operationId, pathParams, query: {}, headers: {}, body, auth: { kind: "apiKey" as const, verified: true } };
    return (await handler(request, ctx)).body as Record<string, unknown>;
  };
}

export async function creditBalances(
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
export function credit(ctx: HandlerContext, network: string, address: string, token: string | undefined, amount: string, supplies: SupplyTally): void {
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
