/**
 * Turns openapi.yaml into the compact operation list the pipeline uses, and
 * caches it on disk keyed by the document's hash. Parsing and dereferencing a
 * contract of this size takes seconds (prism's `getHttpOperationsFromSpec`),
 * far too slow for start-up, so it happens once: at `npm run build`, or on the
 * first start after the document changed.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { IHttpOperation } from "@stoplight/types";
import { packageRoot } from "../paths.js";
import { generateValidators, loadValidators, writeValidators } from "./precompiled.js";
import { type UncheckableSchema, uncheckableSchemas } from "./uncheckable.js";

/** Keys that carry prose or samples inside schemas; validation never reads them. */
const PROSE_KEYS = new Set(["description", "summary", "title", "externalDocs", "deprecated"]);

function stripSchemaProse(node: unknown, isPropertyMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => stripSchemaProse(n));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // In a `properties` map the keys are field names: a field called `description` or `title` is kept.
    if (!isPropertyMap && (PROSE_KEYS.has(key) || key.startsWith("x-") || key === "examples" || key === "example")) continue;
    out[key] = stripSchemaProse(value, !isPropertyMap && key === "properties");
  }
  return out;
}

/**
 * A nullable schema that also composes (`nullable: true` beside `allOf`, as
 * the contract writes x402's `paymentRequirements` and `index`) becomes
 * `type: [T, "null"]` in prism's conversion, yet its `allOf` still demands a
 * T, so null never validates. Such a node becomes `anyOf: [null, the node]`.
 *
 * A nullable schema without a `type` (the MCP reply's `id`: `nullable: true`
 * beside a `oneOf` of string and integer) is kept as it is by the conversion,
 * and Ajv refuses to compile it ("nullable" cannot be used without "type");
 * prism takes a schema that does not compile as one without problems, so the
 * whole body was never checked. It becomes `anyOf: [null, the rest]` too: the
 * contract says null is its value for a notification.
 */
function nullableCompositions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableCompositions);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullableCompositions(v)])) as Record<string, unknown>;
  const types = out.type;
  if (Array.isArray(types) && types.includes("null") && ("allOf" in out || "oneOf" in out || "anyOf" in out)) {
    const rest = types.filter((t) => t !== "null");
    return { anyOf: [{ type: "null" }, { ...out, type: rest.length === 1 ? rest[0] : rest }] };
  }
  if (out.nullable === true && types === undefined) {
    const { nullable: _nullable, ...rest } = out;
    return { anyOf: [{ type: "null" }, rest] };
  }
  return out;
}

interface MediaContent {
  mediaType: string;
  schema?: unknown;
  examples?: Array<{ key: string; value?: unknown }>;
  [key: string]: unknown;
}

/** Keeps what validation, routing and fallback mocking need; media-type examples survive on 2xx responses only. */
function compactOperation(op: IHttpOperation): IHttpOperation {
  const responses = op.responses.map((response) => {
    const success = /^2/.test(response.code);
    const contents = (response.contents ?? []).map((c) => {
      const content = c as unknown as MediaContent;
      return {
        id: content.id,
        mediaType: content.mediaType,
        schema: nullableCompositions(stripSchemaProse(content.schema)),
        examples: success ? (content.examples ?? []).map((e) => ({ key: e.key, value: e.value })) : [],
        encodings: [],
      };
    });
    return { id: response.id, code: response.code, headers: stripSchemaProse(response.headers ?? []), contents };
  });
  return {
    ...op,
    description: undefined,
    summary: undefined,
    request: stripSchemaProse(op.request) as IHttpOperation["request"],
    responses,
  } as unknown as IHttpOperation;
}

/** Part of the cache key: bump it when the compiled form changes. */
const COMPILER_VERSION = "10"; // 10: the schemas the validator cannot compile kept beside; 9: answers' bodies carry their normalized schema; 8: each distinct body schema once; 7: nullable without a type

/** How often one $ref may repeat on a path before the expansion stops (accepting anything below). */
const RECURSION_LIMIT = 3;

/** Walks a JSON pointer through the raw document, following $refs met on the way. */
function resolvePointer(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const raw of pointer.replace(/^#\//, "").split("/")) {
    while (node && typeof node === "object" && typeof (node as { $ref?: unknown }).$ref === "string") {
      node = resolvePointer(doc, (node as { $ref: string }).$ref);
    }
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/**
 * prism keeps recursive schemas (e.g. ABI parameters with `components`) as
 * $refs into the source document, which its validator cannot resolve — and
 * then silently skips validating the whole body. Such refs are expanded from
 * the raw document here, a few levels deep, and below that accept anything.
 */
function expandRecursiveRefs(doc: unknown, node: unknown, stack: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => expandRecursiveRefs(doc, n, stack));
  if (node === null || typeof node !== "object") return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  if (typeof $ref === "string") {
    const target = resolvePointer(doc, $ref);
    const canonical = JSON.stringify(target);
    if (target === undefined || stack.filter((k) => k === canonical).length >= RECURSION_LIMIT) return {};
    const expanded = expandRecursiveRefs(doc, target, [...stack, canonical]) as Record<string, unknown>;
    return stripSchemaProse({ ...expanded, ...(expandRecursiveRefs(doc, rest, stack) as Record<string, unknown>) });
  }
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, expandRecursiveRefs(doc, v, stack)]));
}

type Option<T> = { _tag: "None" } | { _tag: "Some"; value: T };

/**
 * The schema prism's validator checks a request body against: it merges
 * allOf and strips readOnly properties on first use of every operation. Done
 * here once, with prism's own functions, so the fast request check
 * (`requestCheck.ts`) applies exactly that schema without loading prism.
 * `null`: prism checks nothing for this content.
 */
function prismSchemaMaker(side: "input" | "output"): (schema: unknown) => unknown {
  const prism = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
  const mergeAllOf = prism("@stoplight/json-schema-merge-allof") as (schema: unknown, options: object) => unknown;
  const filters = prism("../utils/filterRequiredProperties.js") as Record<
    "stripReadOnlyProperties" | "stripWriteOnlyProperties",
    (schema: unknown) => Option<unknown>
  >;
  const strip = side === "input" ? filters.stripReadOnlyProperties : filters.stripWriteOnlyProperties;
  return (schema) => {
    let merged = schema;
    try {
      merged = mergeAllOf(schema, { deep: true, ignoreAdditionalProperties: true });
    } catch {
      // prism validates against the schema as it is then
    }
    const stripped = strip(merged);
    return stripped._tag === "Some" ? stripped.value : null;
  };
}

/**
 * Adds to each body the schema as prism normalizes it before checking a request (`inputSchema`) or an answer
 * (`outputSchema`): its `allOf`s merged, its read-only (write-only) properties dropped. prism does this on the first
 * check of each schema, with every other request waiting (~20–45 ms for a policy's); the fast checks
 * (requestCheck.ts, responseCheck.ts) read it from here.
 */
function addNormalizedSchemas(op: IHttpOperation, inputSchemaOf: (schema: unknown) => unknown, outputSchemaOf: (schema: unknown) => unknown): IHttpOperation {
  // JSON copies: prism normalizes what it reads from the cache, where no subschema is shared.
  for (const content of op.request?.body?.contents ?? []) {
    if (content.schema) (content as unknown as MediaContent).inputSchema = inputSchemaOf(JSON.parse(JSON.stringify(content.schema)));
  }
  for (const response of op.responses)
    for (const content of response.contents ?? []) {
      if (content.schema) (content as unknown as MediaContent).outputSchema = outputSchemaOf(JSON.parse(JSON.stringify(content.schema)));
    }
  return op;
}

async function compileContract(specPath: string): Promise<IHttpOperation[]> {
  const { getHttpOperationsFromSpec } = await import("@stoplight/prism-http/dist/utils/operations.js");
  const { parse } = await import("yaml");
  const operations = await getHttpOperationsFromSpec(specPath);
  const raw = parse(readFileSync(specPath, "utf8"), { maxAliasCount: -1 }) as unknown;
  const [inputSchemaOf, outputSchemaOf] = [prismSchemaMaker("input"), prismSchemaMaker("output")];
  return operations.map((op) => addNormalizedSchemas(expandRecursiveRefs(raw, compactOperation(op)) as IHttpOperation, inputSchemaOf, outputSchemaOf));
}

/** The cache's name for a document: its content and the compiler's version. */
export function cacheKeyOf(specPath: string): string {
  return createHash("sha256").update(COMPILER_VERSION).update(readFileSync(specPath)).digest("hex").slice(0, 16);
}

/**
 * Removes from the package's cache every entry that belongs to none of `specPaths` (earlier versions of the
 * documents): the build runs it, so the published package carries only what a start can read. Returns the
 * names removed.
 */
export function pruneContractCache(specPaths: readonly string[], dir = packageCacheDir()): string[] {
  const keep = new Set(specPaths.map(cacheKeyOf));
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const key = /^(?:operations|responses|validators|uncheckable)-([0-9a-f]{16})(?:\.json)?$/.exec(name)?.[1];
    if (key === undefined || keep.has(key)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** The package's own cache: written by the build (`withValidators`) and shipped with the package. */
const packageCacheDir = () => join(packageRoot, ".contract-cache");

/**
 * Where a start writes what it compiled (another `--spec`, or documents changed since the build): the user's cache
 * folder, never the installed package's, which may be read-only or shared between users. The temporary folder is
 * the last resort when there is no writable home.
 */
function userCacheDirs(): string[] {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return [join(base, "cdp-sandbox", "contract"), join(tmpdir(), "cdp-sandbox-contract-cache")];
}

function cacheDirs(): string[] {
  return [packageCacheDir(), ...userCacheDirs()];
}

/**
 * The cache keeps each document in two files: the operations without their
 * responses (routing and request validation, ~0.7 MB) and the responses
 * (~0.55 MB), which are read when something first looks at one: a fallback
 * answer or response validation (read at start with --validate-responses).
 * Most runs never do, and start faster and smaller for it.
 */
function withLazyResponses(operations: IHttpOperation[], responsesFile: string): IHttpOperation[] {
  let responses: Array<IHttpOperation["responses"]> | undefined;
  const load = () => (responses ??= unpackResponses(readFileSync(responsesFile, "utf8")));
  operations.forEach((op, i) => {
    Object.defineProperty(op, "responses", {
      enumerable: true,
      configurable: true,
      get: () => load()[i],
      set: (value: IHttpOperation["responses"]) => Object.defineProperty(op, "responses", { value, writable: true, enumerable: true, configurable: true }),
    });
  });
  return operations;
}

/** A body's schemas: as the contract writes it, and as prism normalizes it for an answer. */
const SCHEMA_KEYS = ["schema", "outputSchema"] as const;

/** The responses file: each distinct body schema once, and the responses naming theirs by its index. */
interface PackedResponses {
  schemas: unknown[];
  responses: Array<IHttpOperation["responses"]>;
}

/**
 * The responses as the cache file holds them. The error bodies repeat on every operation: the platform's contract has
 * 1,266 response body schemas, 103 of them distinct, so each is written once (3.9 → 0.55 MB; read back in 10–22 ms
 * against 32–61 ms) and named by index.
 */
function packResponses(all: Array<IHttpOperation["responses"]>): string {
  const indexOf = new Map<string, number>();
  const schemas: unknown[] = [];
  const indexFor = (schema: unknown) => {
    const text = JSON.stringify(schema);
    let index = indexOf.get(text);
    if (index === undefined) {
      index = schemas.push(schema) - 1;
      indexOf.set(text, index);
    }
    return index;
  };
  const responses = all.map((list) =>
    list.map((response) => ({
      ...response,
      contents: (response.contents ?? []).map((content) => {
        const packed: Record<string, unknown> = { ...content };
        for (const key of SCHEMA_KEYS) if (packed[key] !== undefined && packed[key] !== null) packed[key] = indexFor(packed[key]);
        return packed;
      }),
    })),
  );
  return JSON.stringify({ schemas, responses });
}

/**
 * The responses of a cache file, equal body schemas as one object: prism prepares a schema once per object (merges its
 * `allOf`s, ~20–45 ms for a policy's, and compiles it), so an operation's first check of an answer finds its schema
 * prepared when another operation answered with the same body.
 */
function unpackResponses(text: string): Array<IHttpOperation["responses"]> {
  const { schemas, responses } = JSON.parse(text) as PackedResponses;
  for (const list of responses)
    for (const response of list)
      for (const content of response.contents ?? []) {
        const packed = content as unknown as Record<string, unknown>;
        for (const key of SCHEMA_KEYS) if (typeof packed[key] === "number") packed[key] = schemas[packed[key]];
      }
  return responses;
}

function writeAtomically(target: string, text: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, target); // atomic: parallel test workers may race here
}

const uncheckableFileOf = (hash: string) => `uncheckable-${hash}.json`;
/** Per document, what its last load found or read of the schemas the validator cannot compile (read when asked). */
const uncheckableOf = new Map<string, () => UncheckableSchema[]>();

/**
 * The schemas of `specPath` that prism's validator cannot compile (uncheckable.ts): found when the document was
 * compiled, and kept beside the operations that loadCompiledOperations last read or wrote for it. Empty when there
 * is none to read.
 */
export function loadUncheckableSchemas(specPath: string): UncheckableSchema[] {
  return uncheckableOf.get(specPath)?.() ?? [];
}

function readUncheckable(file: string): UncheckableSchema[] {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as UncheckableSchema[];
  } catch {
    return []; // a cache written without it
  }
}

/**
 * Compiled operations of `specPath`, from the cache when the document is
 * unchanged, with their precompiled request validators when the cache has
 * them. `withValidators` (the build) also generates those when they are
 * missing; otherwise schemas are compiled on first use.
 */
export async function loadCompiledOperations(specPath: string, options: { withValidators?: boolean } = {}): Promise<IHttpOperation[]> {
  const hash = cacheKeyOf(specPath);
  const operationsFile = `operations-${hash}.json`;
  const responsesFile = `responses-${hash}.json`;
  const validatorsDir = `validators-${hash}`;
  let operations: IHttpOperation[] | undefined;
  let dirOfCache: string | undefined;
  // The build fills the package's cache from the document itself, whatever a user's cache holds.
  const readFrom = options.withValidators ? [packageCacheDir()] : cacheDirs();
  for (const dir of readFrom) {
    try {
      operations = withLazyResponses(JSON.parse(readFileSync(join(dir, operationsFile), "utf8")) as IHttpOperation[], join(dir, responsesFile));
      dirOfCache = dir;
      uncheckableOf.set(specPath, () => readUncheckable(join(dir, uncheckableFileOf(hash))));
      break;
    } catch {
      // not cached there
    }
  }
  if (!operations) {
    operations = await compileContract(specPath);
    const requestSides = operations.map(({ responses: _responses, ...rest }) => rest);
    const uncheckable = uncheckableSchemas(operations);
    uncheckableOf.set(specPath, () => uncheckable); // said even when no cache folder can be written
    for (const dir of options.withValidators ? [packageCacheDir()] : userCacheDirs()) {
      try {
        // Responses and what cannot be checked first: whoever finds the operations file finds them.
        writeAtomically(join(dir, responsesFile), packResponses(operations.map((op) => op.responses)));
        writeAtomically(join(dir, uncheckableFileOf(hash)), JSON.stringify(uncheckable));
        writeAtomically(join(dir, operationsFile), JSON.stringify(requestSides));
        dirOfCache = dir;
        break;
      } catch {
        // read-only location; try the next one
      }
    }
  }
  if (dirOfCache !== undefined && !loadValidators(join(dirOfCache, validatorsDir)) && options.withValidators) {
    // Generated from the operations as the cache holds them, which is what every later start reads.
    const cached = JSON.parse(readFileSync(join(dirOfCache, operationsFile), "utf8")) as IHttpOperation[];
    const responses = unpackResponses(readFileSync(join(dirOfCache, responsesFile), "utf8"));
    for (const [i, op] of cached.entries()) op.responses = responses[i]!;
    writeValidators(join(dirOfCache, validatorsDir), generateValidators(cached), writeAtomically);
    loadValidators(join(dirOfCache, validatorsDir));
  }
  return operations;
}
