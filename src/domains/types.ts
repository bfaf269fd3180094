/**
 * What a domain handler sees and returns. Handlers are bound to operationIds
 * and never see Express objects: they get the validated request and a context
 * carrying the sandbox clock, the project's store transaction and randomness.
 */
import type { Clock } from "../clock.js";
import type { ImportKey } from "../crypto/rsaEnvelope.js";
import type { Random } from "../random.js";
import type { ProjectTx } from "../store/store.js";

export interface HandlerRequest {
  operationId: string;
  pathParams: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Lowercase header names. */
  headers: Record<string, string>;
  body: any; // validated against the contract before the handler runs
  auth: { kind: "apiKey" | "endUser" | "none"; keyId?: string; endUserId?: string; verified: boolean };
}

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
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = ((request: HandlerRequest, ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>) & {
  /**
   * The handler waits on another server (x402 validation, MCP proxy). It does not take the
   * project's write lock: that server may call back into the sandbox (e.g. settle a payment)
   * and would otherwise wait for the lock it is holding up.
   */
  readonly outbound?: boolean;
};

/** operationId → handler. */
export type HandlerMap = Record<string, Handler>;
