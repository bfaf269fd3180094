/**
 * The operation index: every operation of the contract with a compiled path
 * matcher, built once at start. Routing uses it instead of prism's router,
 * which costs more per request than the whole rest of the pipeline.
 */
import type { UncheckableSchema } from "./uncheckable.js";
import type { IHttpOperation } from "@stoplight/types";

type SecurityScheme = "apiKeyAuth" | "endUserAuth" | "unauthenticated" | string;

export interface Operation {
  operationId: string;
  method: string; // uppercase
  pathTemplate: string; // as in the contract, e.g. /v2/evm/accounts/{address}
  tag: string;
  /** Alternatives: the request must satisfy one of these lists of schemes. */
  security: SecurityScheme[][];
  walletAuth: "required" | "optional" | "none";
  http: IHttpOperation;
  segments: Array<{ literal: string } | { param: string }>;
}

export type RouteMatch =
  | { kind: "found"; operation: Operation; pathParams: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" }
  /** A path segment with a percent-escape that does not decode (`%`, `%ZZ`, a cut UTF-8 sequence). */
  | { kind: "malformed"; segment: string };

/**
 * Operations the official client signs with X-Wallet-Auth although the
 * contract does not declare the header for them (the account updates).
 */
const WALLET_AUTH_ALSO: ReadonlySet<string> = new Set(["updateEvmAccount", "updateSolanaAccount"]);

function walletAuthOf(op: IHttpOperation): Operation["walletAuth"] {
  if (WALLET_AUTH_ALSO.has(op.iid ?? "")) return "required";
  const header = (op.request?.headers ?? []).find((h) => h.name.toLowerCase() === "x-wallet-auth");
  if (!header) return "none";
  return header.required ? "required" : "optional";
}

function securityOf(op: IHttpOperation): SecurityScheme[][] {
  // An operation without its own `security` has the document's (both documents declare one); an explicit
  // `security: []` (the payer's Coinbase OAuth operations) declares no scheme at all, and stays empty.
  if (op.security === undefined) return [["apiKeyAuth"]];
  const declared = op.security as Array<Array<{ key?: string }>>;
  return declared.map((alternative) => alternative.map((scheme) => scheme.key ?? "apiKeyAuth"));
}

function compile(op: IHttpOperation): Operation {
  const segments = op.path
    .split("/")
    .filter(Boolean)
    .map((s) => (/^\{.+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s }));
  return {
    operationId: op.iid ?? `${op.method} ${op.path}`,
    method: op.method.toUpperCase(),
    pathTemplate: op.path,
    tag: op.tags?.[0]?.name ?? "",
    security: securityOf(op),
    walletAuth: walletAuthOf(op),
    http: op,
    segments,
  };
}

function matchSegments(op: Operation, parts: string[]): Record<string, string> | undefined {
  if (op.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = op.segments[i];
    if ("literal" in seg) {
      if (seg.literal !== parts[i]) return undefined;
    } else {
      if (parts[i] === "") return undefined;
      params[seg.param] = decodeURIComponent(parts[i]); // match() checked that every segment decodes
    }
  }
  return params;
}

function decodes(segment: string): boolean {
  try {
    // The result is used so that a bundler cannot drop the call as free of side effects (rolldown did).
    return typeof decodeURIComponent(segment) === "string";
  } catch {
    return false;
  }
}

/** Literal segments beat parameters, earliest segment first: /accounts/import wins over /accounts/{address}. */
function specificity(op: Operation): string {
  return op.segments.map((s) => ("literal" in s ? "1" : "0")).join("");
}

export class OperationIndex {
  readonly all: Operation[];
  private readonly byId = new Map<string, Operation>();
  private readonly bySegmentCount = new Map<number, Operation[]>();

  /**
   * @param unchecked the contract's schemas the validator cannot compile (uncheckable.ts): values under them pass
   *   unchecked, which the coverage document says
   */
  constructor(
    operations: IHttpOperation[],
    readonly unchecked: readonly UncheckableSchema[] = [],
  ) {
    this.all = operations.map(compile);
    for (const op of this.all) {
      this.byId.set(op.operationId, op);
      const list = this.bySegmentCount.get(op.segments.length) ?? [];
      list.push(op);
      this.bySegmentCount.set(op.segments.length, list);
    }
    for (const list of this.bySegmentCount.values()) list.sort((a, b) => specificity(b).localeCompare(specificity(a)));
  }

  get(operationId: string): Operation | undefined {
    return this.byId.get(operationId);
  }

  /** `path` is relative to the /platform base, without the query string. */
  match(method: string, path: string): RouteMatch {
    const parts = path.split("/").filter((p, i) => i > 0 || p !== "");
    if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop(); // tolerate one trailing slash
    const malformed = parts.find((p) => p.includes("%") && !decodes(p));
    if (malformed !== undefined) return { kind: "malformed", segment: malformed };
    const candidates = this.bySegmentCount.get(parts.length) ?? [];
    const upper = method.toUpperCase();
    const allowed: string[] = [];
    for (const op of candidates) {
      const params = matchSegments(op, parts);
      if (!params) continue;
      if (op.method === upper) return { kind: "found", operation: op, pathParams: params };
      allowed.push(op.method);
    }
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed: [...new Set(allowed)] } : { kind: "not-found" };
  }
}
