/**
 * What an admin handler sees and returns, typed from admin-openapi.yaml's
 * generated types, as platform handlers are from openapi.yaml. A call may
 * carry a bearer token: then it acts on that key's project (`projectId`);
 * without one it acts on the whole sandbox or, for calls that need one
 * project, on the default project.
 */
import type { AuthMode } from "../auth/bearer.js";
import type { Clock } from "../clock.js";
import type { operations } from "../contract/generated/admin-types.js";
import type { OperationIndex } from "../contract/operations.js";
import type { PathParamsOf, QueryParamsOf, RequestBodyOf, AnswerOf } from "../contract/types.js";
import type { SandboxKeys } from "../wallet/types.js";
import type { WebhookDispatcher } from "../products/webhooks/dispatcher.js";
import type { Journal } from "../pipeline/journal.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { ScenarioEngine } from "../scenarios/engine.js";
import type { Snapshots } from "../store/snapshots.js";
import type { Store } from "../store/store.js";

export type AdminOperationId = keyof operations;

export interface AdminCall<Id extends AdminOperationId> {
  /** The project of the call's bearer token; undefined without one. */
  projectId?: string;
  pathParams: PathParamsOf<operations, Id>;
  query: QueryParamsOf<operations, Id>;
  /** Validated against the document; `{}` when the operation declares a body and none came. */
  body: [RequestBodyOf<operations, Id>] extends [never] ? undefined : RequestBodyOf<operations, Id>;
}

/** What the sandbox's own API works with. */
export interface AdminContext {
  keys: SandboxKeys;
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  journal: Journal;
  /** The platform contract's operations (openapi.yaml), which contract coverage lists. */
  platformOperations: OperationIndex;
  authMode: AuthMode;
  basePath: () => string;
  startedAt: number;
  /** Present when scenarios are on (always, unless a custom hook replaced the engine). */
  scenarioEngine?: ScenarioEngine;
  /** Present when the sandbox delivers webhooks (always, from startSandbox). */
  webhooks?: WebhookDispatcher;
  log: (message: string) => void;
  /** The state as a state file (state-files/export.ts, passed in by the assembly): one project's, or every one's. */
  exportState: (projectId?: string) => unknown;
  locks: ProjectLocks;
  snapshots: Snapshots;
  /** Seedable randomness, one stream per kind of thing the admin API makes. */
  random: { walletSecrets: Random; grants: Random; webhookTests: Random; money: Random; settle: Random; coinbaseUsers: Random; oauthConsent: Random };
}

export type AdminHandler<Id extends AdminOperationId> = ((
  call: AdminCall<Id>,
  ctx: AdminContext,
) => AnswerOf<operations, Id> | Promise<AnswerOf<operations, Id>>) & {
  /**
   * The locks the call holds: `project` the caller's project (else the
   * default project), so it cannot interleave with a platform request or a
   * node call changing the same records; `scope` every project it replaces.
   */
  readonly lock?: "project" | "scope";
  /** A page a browser may open: its title, when the caller prefers HTML. */
  readonly htmlTitle?: (call: AdminCall<Id>) => string;
  /** A file that is not JSON (the dashboard's page, script and style sheet): answered with this instead. */
  readonly file?: (call: AdminCall<Id>) => Promise<ServedFile>;
};

/** What a handler that serves a file answers with. */
export interface ServedFile {
  contentType: string;
  text: string;
  headers?: Record<string, string>;
}

/** Every operation of admin-openapi.yaml, each with its handler: a missing or extra one fails the typecheck. */
export type AdminHandlers = { readonly [Id in AdminOperationId]: AdminHandler<Id> };

/** The project a call acts on when it needs exactly one: the caller's, else the default project. */
export const callerProject = (call: { projectId?: string }, ctx: AdminContext) => call.projectId ?? ctx.projects.defaultProjectId();

/** A handler holding the caller's project lock (`project`) or the lock of every project it replaces (`scope`). */
export function locking<Id extends AdminOperationId>(lock: "project" | "scope", handler: AdminHandler<Id>): AdminHandler<Id> {
  return Object.assign(handler, { lock });
}

/** A handler whose answer is a page a browser may open: HTML with this title when the caller prefers it. */
export function page<Id extends AdminOperationId>(title: (call: AdminCall<Id>) => string, handler: AdminHandler<Id>): AdminHandler<Id> {
  return Object.assign(handler, { htmlTitle: title });
}

/** A handler that answers with a file instead of JSON: the router sends what `file` gives. */
export function served<Id extends AdminOperationId>(file: (call: AdminCall<Id>) => Promise<ServedFile>): AdminHandler<Id> {
  const handler: AdminHandler<Id> = () => {
    throw new Error("a served file is answered by its file(), not called");
  };
  return Object.assign(handler, { file });
}
