/** Types of the fuzzer's core (fuzz-core.mjs), for the TypeScript test that runs it in `npm test`. */

export interface FuzzCredentials {
  apiKeyId: string;
  apiKeySecret: string;
  walletSecret?: string;
}

/** A known open finding the run does not fail on; every field given must match (a string exactly, a RegExp by test). */
export interface AllowedFinding {
  id: string;
  reason: string;
  kind?: string | RegExp;
  operation?: string | RegExp;
  label?: string | RegExp;
  status?: number;
  message?: RegExp;
}

export interface FuzzOptions {
  /** The sandbox's origin, on loopback, e.g. http://127.0.0.1:8080 */
  url: string;
  credentials: FuzzCredentials;
  /** A second project's credentials; created through /_sandbox/projects when left out. */
  otherCredentials?: FuzzCredentials;
  /** The contract's operations as the sandbox's OperationIndex compiles them (`new OperationIndex(ops).all`). */
  operations: ReadonlyArray<unknown>;
  /** The sandbox's request validator (src/contract/validate.ts). */
  validateRequest: (op: never, request: never) => unknown[];
  /** The fallback's recursion pruning for the faker (src/contract/fallback.ts). */
  pruneRecursion: (schema: unknown) => unknown;
  seed: string;
  /** At most this many requests… */
  requests: number;
  /** …and at most this long (default 60). */
  seconds?: number;
  /** An answer slower than this is a finding (default 1000). */
  slowMs?: number;
  allow?: AllowedFinding[];
  /** The share of requests (0 to below 1) sent to the JSON-RPC node instead of the platform API (default 0). */
  nodeShare?: number;
  /** The node's method names, from its tables: required with `nodeShare`. */
  nodeMethods?: { evm: string[]; solana: string[] };
  /** One node request in this many also sends a message on a node WebSocket (default: none). */
  socketEvery?: number;
  /** Says why the sandbox is gone (process exit), or undefined while it runs. */
  alive?: () => string | undefined;
  /** Event-loop stalls seen since the last call, each with the requests ("METHOD target") in flight then. */
  takeStalls?: () => Array<{ ms: number; gcMs?: number; requests: string[] }>;
  log?: (line: string) => void;
  progressEvery?: number;
}

export interface Finding {
  kind: "5xx" | "crash" | "error-body" | "slow" | "stall" | "accepted" | "leak" | "rpc-internal";
  operationId: string;
  label: string;
  status: number;
  message: string;
  ms: number;
  index: number;
  count: number;
  repro: string;
  /** The request in full: tokens named, not shown; the body cut at 256 kB. */
  request: { method: string; target: string; headers: Record<string, string>; body?: string };
  allowedBy?: string;
}

export interface FuzzResult {
  seed: string;
  sent: number;
  elapsedMs: number;
  byStatus: Map<number | string, number>;
  byOperation: Map<string, Map<number | string, number>>;
  findings: Finding[];
  stopped?: string;
}

export function runFuzz(options: FuzzOptions): Promise<FuzzResult>;
export function formatReport(result: FuzzResult, options?: { operations?: boolean }): string;

/** `text` for a report: long runs written `⟨"a"×5000⟩`, cut at `max` characters (default 600). */
export function abbreviate(text: string, max?: number): string;
