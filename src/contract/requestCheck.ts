/**
 * The fast path of request validation. prism's validator spends 50–140 µs a
 * request in its plumbing (fp-ts, lodash, a URI template per call) and ~0.2 s
 * to load, while the checks themselves are compiled Ajv functions. This module
 * runs those same checks directly: prism's schemas (request bodies as prism
 * normalizes them, done at build time by `compile.ts`), prism's Ajv with
 * prism's options and formats, and prism's reading of scalar parameters.
 *
 * It answers "valid" or "ask prism", and "too big" for a body over one of the
 * contract's size bounds (see SizeProblem), or the first problem of an invalid
 * body of LARGE_BODY_BYTES or more. Any other failure, and any request
 * outside what it mirrors exactly (array or object parameters, other
 * parameter styles, form bodies, malformed or unusual path segments,
 * unusual content types), goes to prism, which then writes the diagnostics
 * users see. So a request passes here only when prism would pass it too, and
 * every message still comes from prism.
 */
import { createRequire } from "node:module";
import type { IHttpOperation, IHttpParam, IMediaTypeContent } from "@stoplight/types";
import { preparePrismAjv } from "./ajv.js";

/** What the pipeline validates (see validate.ts). */
export interface CheckedRequest {
  path: string; // relative to /platform
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

type ValidateFn = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  keyword: string;
  params: { limit?: number };
  message?: string;
}

/**
 * A body over one of the contract's size bounds (maxItems, maxLength, maxProperties). Found by the fast check,
 * which stops at the first failure, and answered without prism: prism collects every problem, so for a list of
 * 100,000 items it checks all of them (seconds, with the event loop held) before saying the list is too long.
 * The first problem of any invalid body of LARGE_BODY_BYTES or more is answered the same way, for the same reason.
 */
export interface SizeProblem {
  location: string;
  message: string;
}
const SIZE_KEYWORDS = new Set(["maxItems", "maxLength", "maxProperties"]);
export interface AjvInstance {
  compile(schema: object): ValidateFn;
}

/** Modules resolved as prism resolves them, so the Ajv and formats are the very ones its validator uses. */
const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));

/** The Ajv builds prism's validator picks by a schema's `$schema`: draft-07 (and unset), 2019-09, 2020-12. */
export type AjvBuild = "ajv" | "ajv/dist/2019" | "ajv/dist/2020";

/**
 * An Ajv of `build` set up as prism sets up its own (linear patterns, its formats, its options), with `options` on
 * top: the very validator prism would compile a schema with.
 */
export function prismAjv(build: AjvBuild, options: Record<string, unknown>): AjvInstance {
  preparePrismAjv(prismRequire);
  const Ajv = (prismRequire(build) as { default: new (options: object) => AjvInstance & { addFormat(name: string, format: unknown): void } }).default;
  const addFormats = (prismRequire("ajv-formats") as { default: (ajv: unknown) => void }).default;
  const dateTime = prismRequire("./validators/dateTime.js") as {
    fmtDef: (validate: unknown, compare: unknown) => unknown;
    date_time: unknown;
    compareDateTime: unknown;
  };
  const instance = new Ajv({ allowUnionTypes: true, allowMatchingProperties: true, strict: false, logger: false, ...options });
  addFormats(instance);
  instance.addFormat("date-time", dateTime.fmtDef(dateTime.date_time, dateTime.compareDateTime));
  return instance;
}

let instances: { coerce: AjvInstance; noCoerce: AjvInstance } | undefined;

/**
 * prism's two Ajv set-ups (params coerce types, bodies do not), minus what
 * never changes a verdict here: allErrors (only collects more messages) and
 * validateSchema (compiling the meta-schema costs ~0.1 s; a schema Ajv would
 * refuse is one prism skips, so whatever is decided here is at most as strict).
 */
function ajv(): { coerce: AjvInstance; noCoerce: AjvInstance } {
  instances ??= {
    coerce: prismAjv("ajv", { validateSchema: false, coerceTypes: true }),
    noCoerce: prismAjv("ajv", { validateSchema: false, coerceTypes: false }),
  };
  return instances;
}

/** Builds the fast check's Ajv instances (the start-up does, so that no request waits for it). */
export function prepareFastCheck(): void {
  ajv();
}

const DRAFT_07_OR_UNSET = /^(undefined|https?:\/\/json-schema\.org\/draft-07\/schema#?)$/;

/** Compiles as prism would (it picks the Ajv by `$schema`); undefined when prism would use another draft or cannot compile it. */
function compile(instance: AjvInstance, schema: Record<string, unknown>): ValidateFn | undefined {
  if (!DRAFT_07_OR_UNSET.test(String(schema.$schema))) return undefined;
  try {
    return instance.compile(schema);
  } catch {
    return undefined; // prism then skips the check; let it decide
  }
}

/** A body schema compiled as prism checks bodies (types not coerced); undefined where prism decides. */
export function compileBodySchema(schema: Record<string, unknown>): ValidateFn | undefined {
  return compile(ajv().noCoerce, schema);
}

// --- parameters -----------------------------------------------------------

/** The values of one location, keys lowercased; `headers` already are. */
type ParamSource = (req: CheckedRequest, headers: Record<string, unknown>) => Record<string, unknown>;

interface ParamsCheck {
  validate: ValidateFn;
  /** Lowercased names of the parameters, each once. */
  read: string[];
  source: ParamSource;
}

const lowercaseKeys = (record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) out[key.toLowerCase()] = record[key];
  return out;
};

/** prism's schema for a parameter list: one object, properties and required names lowercased. */
function paramsSchema(specs: IHttpParam[]): Record<string, unknown> {
  const byName = new Map<string, IHttpParam>();
  for (const spec of specs) byName.set(spec.name.toLocaleLowerCase(), spec); // sic: prism lowercases property names by locale
  const properties: Record<string, unknown> = {};
  for (const [name, spec] of byName) if (spec.schema) properties[name] = spec.schema;
  const required = specs.filter((s) => s.required).map((s) => s.name.toLowerCase());
  return { type: "object", properties, required };
}

/**
 * Headers and path parameters are read with prism's "simple" style, query
 * parameters with "form"; for scalar schemas both give the raw value, and
 * "form" drops empty ones. Undefined: not mirrored here (prism decides).
 */
function paramsCheck(specs: IHttpParam[] | undefined, where: "header" | "query" | "path", source: ParamSource): ParamsCheck | null | undefined {
  if (!specs || specs.length === 0) return null; // nothing to check
  const styles = where === "query" ? ["form", "simple", "unspecified"] : ["simple"];
  const read: ParamsCheck["read"] = [];
  const seen = new Set<string>();
  for (const spec of [...specs].reverse()) {
    const type = (spec.schema as { type?: unknown } | undefined)?.type;
    if (type === "array" || type === "object") return undefined;
    if (!styles.includes(spec.style || (where === "query" ? "form" : "simple"))) return undefined;
    const name = spec.name.toLowerCase();
    if (seen.has(name)) continue; // prism keys parameters by name: the last one wins
    seen.add(name);
    read.push(name);
  }
  const validate = compile(ajv().coerce, paramsSchema(specs));
  return validate ? { validate, read, source } : undefined;
}

function paramsValid(check: ParamsCheck, req: CheckedRequest, headers: Record<string, unknown>): boolean {
  const values = check.source(req, headers);
  const object: Record<string, unknown> = {};
  for (const name of check.read) {
    const value = values[name];
    if (value) object[name] = value; // prism drops falsy values (lodash pickBy); "form" turns empty ones into undefined anyway
  }
  return check.validate(object);
}

// --- path segments --------------------------------------------------------

/** Unreserved characters and percent-escapes: what prism's URI template match reads as decodeURIComponent does. */
const PLAIN_SEGMENT = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/;

/**
 * Path parameters by lowercased name, decoded, when every segment is plain
 * (prism matches a URI template and decodes each value with
 * decodeURIComponent; on such segments both agree), else undefined. A
 * malformed escape (prism's match throws) is left to prism.
 */
function pathParamsOf(template: string, path: string): Record<string, unknown> | undefined {
  const names = template.split("/");
  const parts = path.split("/");
  if (names.length !== parts.length) return undefined;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.startsWith("{") && name.endsWith("}")) {
      if (!PLAIN_SEGMENT.test(parts[i]!)) return undefined;
      try {
        out[name.slice(1, -1).toLowerCase()] = decodeURIComponent(parts[i]!);
      } catch {
        return undefined;
      }
    } else if (name !== parts[i]) {
      return undefined; // not this template: prism finds no parameters at all
    }
  }
  return out;
}

// --- media types and body -------------------------------------------------

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const PLAIN_CONTENT_TYPE = new RegExp(`^(${TOKEN}/${TOKEN})\\s*(;.*)?$`);
/** A media type without parameters (`type/subtype`, wildcards and suffixes allowed). */
export const PLAIN_MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);
/** prism's reading of a media type: `type/[suffix+]subtype`, so application/problem+json counts as application/json. */
const MEDIA_TYPE_PARTS = /^(.+)\/(?:(.+)\+)?(.+)$/;

/** prism's wildcard match, for plain `type/subtype` strings on both sides. */
function mediaTypeMatches(request: string, declared: string): boolean {
  const a = MEDIA_TYPE_PARTS.exec(request.toLowerCase());
  const b = MEDIA_TYPE_PARTS.exec(declared.toLowerCase());
  if (!a || !b) return false;
  return (a[1] === b[1] || b[1] === "*") && (a[3] === b[3] || b[3] === "*");
}

interface BodyCheck {
  required: boolean;
  contents: Array<{ mediaType: string; validate: ValidateFn | null }>;
}

const bodyChecks = new WeakMap<IHttpOperation, BodyCheck | null | undefined>();

/** The body check of an operation, compiled on first use (the request check and firstBodyError share it). */
function bodyCheck(op: IHttpOperation): BodyCheck | null | undefined {
  if (!bodyChecks.has(op)) bodyChecks.set(op, compileBodyCheck(op));
  return bodyChecks.get(op);
}

function compileBodyCheck(op: IHttpOperation): BodyCheck | null | undefined {
  const body = op.request?.body;
  if (!body) return null;
  const contents: BodyCheck["contents"] = [];
  for (const content of body.contents ?? []) {
    // Matching declared media types with parameters needs prism's parser.
    if (!PLAIN_MEDIA_TYPE.test(content.mediaType ?? "")) return undefined;
    const inputSchema = (content as IMediaTypeContent & { inputSchema?: Record<string, unknown> | null }).inputSchema;
    if (content.schema && inputSchema === undefined) return undefined; // compiled without it: prism decides
    const validate = inputSchema ? compile(ajv().noCoerce, inputSchema) : null;
    if (validate === undefined) return undefined;
    contents.push({ mediaType: content.mediaType, validate });
  }
  return { required: Boolean(body.required), contents };
}

function bodyValid(check: BodyCheck | null, req: CheckedRequest, headers: Record<string, unknown>): boolean | SizeProblem {
  const contentType = headers["content-type"] as string | undefined;
  let mediaType: string | undefined;
  if (contentType !== undefined) {
    const plain = PLAIN_CONTENT_TYPE.exec(contentType.trim());
    if (!plain) return false;
    mediaType = plain[1]!.toLowerCase();
  }
  if (check?.required && !req.body) return false;
  const contentLength = parseInt(String(headers["content-length"]), 10) || 0;
  if (contentLength !== 0) {
    if (!check) return false; // a body where the contract has none
    if (mediaType !== undefined && !check.contents.some((c) => !c.mediaType || mediaTypeMatches(mediaType!, c.mediaType))) return false;
  }
  if (req.body === undefined || req.body === null || !check) return true;
  const content = (mediaType === undefined ? undefined : check.contents.find((c) => mediaTypeMatches(mediaType!, c.mediaType))) ?? check.contents[0];
  if (!content?.validate) return true;
  if (mediaType === "application/x-www-form-urlencoded" || mediaType?.startsWith("multipart/")) return false;
  if (content.validate(req.body)) return true;
  const size = sizeProblemOf(content.validate.errors);
  if (size) return size;
  // A large invalid body (100,000 mistyped items) costs prism a walk of every error with the event loop held:
  // its first problem is answered here, phrased as prism phrases it, and prism is left the small bodies.
  return contentLength >= LARGE_BODY_BYTES ? (firstProblemOf(content.validate.errors) ?? false) : false;
}

/** From this size on, an invalid body is answered with its first problem rather than all of prism's. */
export const LARGE_BODY_BYTES = 64 * 1024;

const bodyPath = (error: AjvError) =>
  error.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));

/** A body problem as prism words it: `Request body[ property a.b] <Ajv's message>`. */
function bodyProblem(error: AjvError, fallback: string): SizeProblem {
  const path = bodyPath(error);
  return {
    location: ["body", ...path].join("."),
    message: `Request body${path.length > 0 ? ` property ${path.join(".")}` : ""} ${error.message ?? fallback}`,
  };
}

function firstProblemOf(errors: AjvError[] | null | undefined): SizeProblem | undefined {
  const error = errors?.[0];
  return error && bodyProblem(error, `fails its ${error.keyword} check`);
}

/** The first size bound among a failed check's errors, phrased as prism phrases body problems. */
function sizeProblemOf(errors: AjvError[] | null | undefined): SizeProblem | undefined {
  const error = errors?.find((e) => SIZE_KEYWORDS.has(e.keyword));
  return error && bodyProblem(error, `exceeds its ${error.keyword} of ${error.params.limit}`);
}

// --- the check of one operation ---------------------------------------------

type RequestCheck = (req: CheckedRequest) => boolean | SizeProblem;

function compileRequestCheck(op: IHttpOperation): RequestCheck | undefined {
  const request = op.request;
  if (!request) return () => true;
  const body = bodyCheck(op);
  const headers = paramsCheck(request.headers, "header", (_req, lowered) => lowered);
  const query = paramsCheck(request.query, "query", (req) => lowercaseKeys(req.query));
  let pathParams: Record<string, unknown> | undefined;
  const path = paramsCheck(request.path, "path", () => pathParams ?? {});
  if (body === undefined || headers === undefined || query === undefined || path === undefined) return undefined;
  return (req) => {
    if (path) {
      pathParams = pathParamsOf(op.path, req.path);
      if (!pathParams) return false;
    }
    const lowered = lowercaseKeys(req.headers);
    const bodyVerdict = bodyValid(body, req, lowered);
    if (bodyVerdict !== true) return bodyVerdict;
    return (!headers || paramsValid(headers, req, lowered)) && (!query || paramsValid(query, req, lowered)) && (!path || paramsValid(path, req, lowered));
  };
}

const checks = new WeakMap<IHttpOperation, RequestCheck | null>();

/**
 * True when the request certainly satisfies the contract as prism reads it;
 * false means "ask prism" (it may still be valid). Compiled per operation on
 * first use.
 */
export function certainlyValid(op: IHttpOperation, req: CheckedRequest): boolean {
  return fastCheck(op, req) === true;
}

/**
 * Where the contract's body check first refuses `body` (Ajv's instancePath and keyword, checking the first JSON
 * content as prism does), or undefined when it does not refuse it or cannot check it.
 */
export function firstBodyError(op: IHttpOperation, body: unknown): { instancePath: string; keyword: string } | undefined {
  const validate = bodyCheck(op)?.contents[0]?.validate;
  if (!validate || validate(body)) return undefined;
  const error = validate.errors?.[0];
  return error && { instancePath: error.instancePath, keyword: error.keyword };
}

/**
 * The fast check's verdict: true (certainly valid), a size problem (certainly invalid: a body over a bound of the
 * contract, to be refused without asking prism), or false (ask prism).
 */
export function fastCheck(op: IHttpOperation, req: CheckedRequest): boolean | SizeProblem {
  let check = checks.get(op);
  if (check === undefined) {
    check = compileRequestCheck(op) ?? null;
    checks.set(op, check);
  }
  if (!check) return false;
  try {
    return check(req);
  } catch {
    return false;
  }
}
