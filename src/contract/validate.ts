/**
 * Request and response validation against the contract, through prism-http's
 * validator (its schemas compile per operation on first use). Requests first
 * take the fast path of `requestCheck.ts`, which answers for the valid ones;
 * prism is loaded on the first request that path does not vouch for (or the
 * first response checked), and writes every diagnostic. Diagnostics become one
 * readable message naming each field and the rule it broke.
 */
import { createRequire } from "node:module";
import type { IHttpOperation } from "@stoplight/types";
import { type ByTurns, runByTurns } from "../byTurns.js";
import { preparePrismAjv } from "./ajv.js";
import { summariseVariants, variantWarmUps } from "./closestVariant.js";
import { cutAfter } from "./firstRefusal.js";
import { fastCheck, firstBodyError, prepareFastCheck } from "./requestCheck.js";
import { certainlyValidResponse } from "./responseCheck.js";

export interface Problem {
  location: string; // e.g. "body.name", "query.pageSize", "header.x-idempotency-key"
  message: string;
  code?: string | number;
  /** For a summary of an unmatched oneOf: the closest variant's own problems, where they are. */
  causes?: Problem[];
}

interface Diagnostic {
  path?: string[];
  message: string;
  code?: string | number;
  severity: number;
}
interface Either<L, R> {
  _tag: "Left" | "Right";
  left?: L;
  right?: R;
}
interface PrismValidator {
  validateInput(opts: { resource: IHttpOperation; element: unknown }): Either<Diagnostic[], unknown>;
  validateOutput(opts: { resource: IHttpOperation; element: unknown }): Either<Diagnostic[], unknown>;
}

let validator: PrismValidator | undefined;
const PRISM_VALIDATOR = "@stoplight/prism-http/dist/validator/index.js";

function prism(): PrismValidator {
  if (!validator) {
    // Its Ajv instances are made when it loads: they get the linear-time pattern engine first.
    preparePrismAjv(createRequire(createRequire(import.meta.url).resolve(PRISM_VALIDATOR)));
    // A plain require of the validator alone: importing the whole prism-http package costs ~1 s more.
    validator = createRequire(import.meta.url)(PRISM_VALIDATOR) as PrismValidator;
  }
  return validator;
}

const ERROR = 0; // DiagnosticSeverity.Error

function toProblems(result: Either<Diagnostic[], unknown>, op?: IHttpOperation): Problem[] {
  if (result._tag === "Right") return [];
  return (result.left ?? [])
    .filter((d) => d.severity === ERROR)
    .map((d) => restoreParameterCase({ location: (d.path ?? []).join("."), message: d.message, code: d.code }, op));
}

/**
 * prism lowercases query and path parameter names in its diagnostics; users
 * should read the name as the contract spells it (`pageSize`, not `pagesize`).
 */
function restoreParameterCase(problem: Problem, op: IHttpOperation | undefined): Problem {
  const where = problem.location.split(".")[0];
  if (!op || (where !== "query" && where !== "path")) return problem;
  let { location, message } = problem;
  // A missing parameter is reported on `query` itself, naming it in the message; a bad one at `query.<name>`.
  for (const declared of (where === "query" ? op.request?.query : op.request?.path) ?? []) {
    const lowered = declared.name.toLowerCase();
    if (lowered === declared.name) continue;
    const rename = (text: string) => text.replace(new RegExp(`\\b${lowered}\\b`, "g"), declared.name);
    location = rename(location);
    message = rename(message);
  }
  return { ...problem, location, message };
}

/**
 * Makes the first refusal of each operation's body cost what later ones cost, a piece per turn of the event loop:
 * prism merges a body schema's `allOf`s on its first refused body (~60 ms for a policy's at load 6, once per
 * operation), and the variants that phrase an unmatched `oneOf` are read from the build's cache on their first use
 * (~40 ms for a policy rule's; here one variant a piece). Paid on a request, each held every other request: the fuzzer's policy whose rule
 * matched no variant stalled the loop 110–130 ms, though the same body refused again costs what a valid one costs.
 * `stop` drops the pieces not run yet; `done` settles when all have run or it stops.
 *
 * @example const warming = prepareRefusals(operations); // … and on close: warming.stop()
 */
export function prepareRefusals(operations: readonly IHttpOperation[]): ByTurns {
  const pieces = operations
    .filter((op) => bodySchemaOf(op) !== undefined)
    .flatMap((op) => [
      // An empty body: refused by every operation with a required field, it goes the whole way through prism.
      () => void prism().validateInput({ resource: op, element: { method: op.method, url: { path: op.path, query: {} }, headers: JSON_HEADERS, body: {} } }),
      ...variantWarmUps(bodySchemaOf(op)),
    ]);
  return runByTurns(pieces);
}

const JSON_HEADERS = { "content-type": "application/json", "content-length": "2" };

/**
 * Loads the validation machinery now (prism's validator, which builds six Ajv
 * instances as it loads, and the fast check's): ~0.2–0.4 s that the first
 * request needing it would otherwise wait for, with every other request
 * waiting too. The start-up does it before the sandbox answers.
 */
export function loadValidation(): void {
  prism();
  prepareFastCheck();
}

export interface RequestShape {
  method: string;
  path: string; // relative to /platform
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

export function validateRequest(op: IHttpOperation, req: RequestShape): Problem[] {
  const verdict = fastCheck(op, req);
  if (verdict === true) return [];
  if (verdict !== false) return [{ ...verdict, code: "size" }];
  const body = asFarAsRefused(op, req.body);
  const problems = toProblems(
    prism().validateInput({
      resource: op,
      element: { method: req.method.toLowerCase(), url: { path: req.path, query: req.query }, headers: req.headers, body },
    }),
    op,
  );
  // Many problems under one body location: likely the variants of a oneOf, each reported in full by prism.
  if (problems.filter((p) => p.location.startsWith("body")).length > 3) return summariseVariants(bodySchemaOf(op), body, problems);
  return problems;
}

/**
 * The body prism describes: cut after the item of each array that holds its first problem (firstRefusal.ts), when
 * the cut body is refused first at the same place for the same reason (a cut below an array's `minItems` is not).
 */
function asFarAsRefused(op: IHttpOperation, body: unknown): unknown {
  const first = firstBodyError(op, body);
  if (!first) return body;
  const cut = cutAfter(body, first.instancePath);
  if (cut === body) return body;
  const again = firstBodyError(op, cut);
  return again?.instancePath === first.instancePath && again.keyword === first.keyword ? cut : body;
}

/** The body schema as the validator reads it (compiled at build), for the first JSON content. */
export function bodySchemaOf(op: IHttpOperation): unknown {
  const content = op.request?.body?.contents?.[0] as { inputSchema?: unknown; schema?: unknown } | undefined;
  return content?.inputSchema ?? content?.schema;
}

export function validateResponse(op: IHttpOperation, res: { status: number; headers: Record<string, string>; body: unknown }): Problem[] {
  // prism only warns about a status the operation does not declare; for a success that is a sandbox defect.
  // (Errors the platform may answer anywhere — 401, 429, 5xx — are not all declared on every operation.)
  const declared = op.responses.some((r) => r.code === String(res.status) || r.code.toUpperCase() === `${String(res.status)[0]}XX`);
  if (!declared && res.status < 400)
    return [{ location: "status", message: `${res.status} is not a status the contract declares for ${op.iid ?? op.id}`, code: "undeclared-status" }];
  if (certainlyValidResponse(op, res)) return [];
  return toProblems(prism().validateOutput({ resource: op, element: { statusCode: res.status, headers: res.headers, body: res.body } }));
}

/** One sentence per problem, e.g. `body.name: Request body property name must match pattern "..."`. */
export function describeProblems(problems: Problem[]): string {
  return problems.map((p) => (p.location ? `${p.location}: ${p.message}` : p.message)).join("; ");
}
