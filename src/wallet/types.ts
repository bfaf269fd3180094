/**
 * What a domain handler sees and returns. Handlers are bound to operationIds
 * and never see Express objects: they get the validated request and a context
 * carrying the sandbox clock, the project's store transaction and randomness.
 *
 * Every type here is read from the contract's generated types, so a field the
 * contract renames or retypes fails the typecheck of the handler that uses it.
 *
 * @example
 *   export const getEvmAccount: Handler<"getEvmAccount"> = (req, ctx) =>
 *     ({ status: 200, body: accountView(findEvmAccount(ctx.store, req.pathParams.address)) });
 */
import type { ChainContracts } from "../chain/evm/index.js";
import type { Clock } from "../clock.js";
import type { operations } from "../contract/generated/types.js";
import type { OperationId, PathParamsOf, QueryParamsOf, RequestBody, AnswerOf } from "../contract/types.js";
import type { ImportKey } from "../crypto/rsaEnvelope.js";
import type { Random } from "../random.js";
import type { ProjectTx } from "../store/store.js";

/** The JSON body, validated against the contract. An operation that declares a
 * body always gets one: a request without a body (or with `null`) is checked
 * as `{}`, so it fails validation when the body has required fields.
 */
type BodyOf<Id extends OperationId> = [RequestBody<Id>] extends [never] ? undefined : RequestBody<Id>;

type PathParams<Id extends OperationId> = PathParamsOf<operations, Id>;
export type QueryParams<Id extends OperationId> = QueryParamsOf<operations, Id>;
export type HandlerResult<Id extends OperationId> = AnswerOf<operations, Id>;

/**
 * Who is calling: a project API key, an end user's access token, a payer's Coinbase OAuth token (a simulated
 * Coinbase user, with the token's scopes), or nobody (unauthenticated operations).
 */
export interface RequestAuth {
  kind: "apiKey" | "endUser" | "coinbaseUser" | "none";
  keyId?: string;
  endUserId?: string;
  coinbaseUserId?: string;
  scopes?: readonly string[];
  verified: boolean;
}

export interface HandlerRequest<Id extends OperationId> {
  operationId: Id;
  pathParams: PathParams<Id>;
  query: QueryParams<Id>;
  /** Lowercase header names. */
  headers: Record<string, string>;
  body: BodyOf<Id>;
  auth: RequestAuth;
}

/** The parts of a request that do not depend on the operation, for helpers shared by several handlers. */
export type RequestFacts = { headers: Record<string, string>; auth: RequestAuth };

/** Sandbox-wide keys a domain may need. */
export interface SandboxKeys {
  importKey: ImportKey;
  /** HMAC secret of sandbox-issued end-user access tokens. */
  endUserTokenSecret: Uint8Array;
}

export interface HandlerContext {
  keys: SandboxKeys;
  clock: Clock;
  random: Random;
  store: ProjectTx;
  project: { id: string; settings: Readonly<Record<string, unknown>> };
  log: (message: string) => void;
  /** The ports the sandbox itself listens on (webhook targets must not reach them). */
  listeningPorts: () => readonly number[];
  /**
   * The contracts the simulated chain runs beyond tokens (the swap settler, the SpendPermissionManager, Morpho,
   * the Commerce transfers contract). Products define some of them, so the wallet core gets the table from the
   * assembly (products/sandboxContracts.ts) instead of importing it.
   */
  contracts: ChainContracts;
  /** False: webhook targets on loopback, link-local and private addresses are refused (a sandbox bound off loopback). */
  privateWebhookTargets?: boolean;
}

export type Handler<Id extends OperationId> = ((request: HandlerRequest<Id>, ctx: HandlerContext) => HandlerResult<Id> | Promise<HandlerResult<Id>>) & {
  /**
   * The handler waits on another server (x402 validation, MCP proxy). It does not take the
   * project's write lock: that server may call back into the sandbox (e.g. settle a payment)
   * and would otherwise wait for the lock it is holding up.
   */
  readonly outbound?: boolean;
  /**
   * Work that waits on another server and must not hold the project's lock (a custom-auth JWKS fetch): run before
   * the lock is taken, on the project's settings; the handler then reads what it prepared.
   */
  readonly beforeLock?: BeforeLock;
};

export type BeforeLock = (request: { headers: Record<string, string> }, project: { settings: Readonly<Record<string, unknown>> }) => Promise<void>;

/** An area's operations: operationId → its handler. Only an area's `handlers.ts` builds one. */
export type Handlers = { readonly [Id in OperationId]?: Handler<Id> };

/** How the pipeline calls any handler: with the request it built and checked against the contract before the call. */
export type AnyHandler = ((
  request: {
    operationId: string;
    pathParams: Record<string, string>;
    query: Record<string, string | string[]>;
    headers: Record<string, string>;
    body: unknown;
    auth: RequestAuth;
  },
  ctx: HandlerContext,
) => Promise<AnyResult> | AnyResult) & { readonly outbound?: boolean; readonly beforeLock?: BeforeLock };

type AnyResult = { status: number; body?: unknown; headers?: Record<string, string> };
