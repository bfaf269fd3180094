/**
 * One request travelling through the pipeline. Each stage reads what earlier
 * stages filled in and adds its own part; the writer turns `response` into bytes.
 */
import type { Operation } from "../contract/operations.js";
import type { Problem } from "../contract/validate.js";
import type { HandlerRequest } from "../domains/types.js";

export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  /** Serialized once, so idempotent replays are byte for byte. */
  bodyText?: string;
}

/** A network-level fault instead of a response (scenarios). */
export type Fault = "reset" | "hang" | "close-after-headers" | "truncate";

export interface Exchange {
  correlationId: string;
  receivedAt: number; // wall clock ms
  method: string;
  /** Full pathname as received, e.g. /platform/v2/evm/accounts. */
  fullPath: string;
  /** Pathname relative to /platform. */
  path: string;
  host: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  rawBody: Buffer;
  body: unknown;
  operation?: Operation;
  pathParams: Record<string, string>;
  projectId?: string;
  auth: HandlerRequest["auth"];
  problems: Problem[];
  /** Names of scenario rules that fired (the journal shows them). */
  scenarios: string[];
  mock: boolean;
  idempotentReplay: boolean;
  response?: Outgoing;
  fault?: Fault;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Outgoing {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    bodyText: body === undefined ? undefined : JSON.stringify(body),
  };
}
