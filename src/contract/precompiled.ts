/**
 * Request validators compiled with the contract, at `npm run build`, so that
 * no request waits for Ajv to generate code (measured here: createPolicy's
 * body 1.1 s, updatePolicy's 0.8 s, every operation together ~4 s of stalls
 * on a fresh server).
 *
 * The build validates one request per operation through our fast check and
 * through prism's validator, records every schema they compile (with the
 * Ajv flavour that compiles it), and writes Ajv's standalone code for each
 * into the contract cache. Repeated subschemas become definitions compiled
 * once (a quarter of the code for the policy bodies), so that V8's first
 * call of a function has little to compile. At run time `ajv.ts` serves
 * them by schema; errors carry the same instancePath, keyword and message,
 * which is all the diagnostics read.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { IHttpOperation } from "@stoplight/types";
import { codePointLength, linearRegExp, precompiledValidators, preparePrismAjv, recordCompiles, schemaKey } from "./ajv.js";
import { compileVariantsOf, VARIANT_AJV_OPTIONS, VARIANT_FLAVOUR } from "./closestVariant.js";
import { certainlyValid } from "./requestCheck.js";
import { certainlyValidResponse } from "./responseCheck.js";
import { bodySchemaOf } from "./validate.js";

const PRISM_VALIDATOR = "@stoplight/prism-http/dist/validator/index.js";
const prismRequire = createRequire(createRequire(import.meta.url).resolve(PRISM_VALIDATOR));

type Schema = Record<string, unknown>;

/** Keywords whose values are schemas (draft-07, and what 2019-09/2020-12 add), by shape. */
const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"];
const SCHEMA_ONE = [
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Subschemas shorter than this (as JSON) stay inline: a call costs more than the check. */
const HOIST_MIN_LENGTH = 200;

const isSchema = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);

function mapChildren(schema: Schema, f: (child: unknown) => unknown): Schema {
  const out: Schema = { ...schema };
  for (const k of SCHEMA_MAPS) if (isSchema(schema[k])) out[k] = Object.fromEntries(Object.entries(schema[k] as Schema).map(([n, v]) => [n, f(v)]));
  for (const k of SCHEMA_ONE) if (isSchema(schema[k])) out[k] = f(schema[k]);
  for (const k of SCHEMA_LISTS) if (Array.isArray(schema[k])) out[k] = (schema[k] as unknown[]).map(f);
  if (Array.isArray(schema.items)) out.items = schema.items.map(f);
  else if (isSchema(schema.items)) out.items = f(schema.items);
  for (const k of ["dependencies"]) {
    if (isSchema(schema[k])) out[k] = Object.fromEntries(Object.entries(schema[k] as Schema).map(([n, v]) => [n, Array.isArray(v) ? v : f(v)]));
  }
  return out;
}

/**
 * The same schema with every larger subschema that occurs more than once
 * moved to `definitions` and referenced: Ajv compiles each once, as a
 * function of its own, instead of inlining every occurrence. Only schema
 * positions are considered (never `enum`, `const` or `default` values).
 */
function hoistRepeats(root: Schema): Schema {
  const id = (s: unknown) => createHash("sha1").update(JSON.stringify(s)).digest("hex").slice(0, 16);
  const counts = new Map<string, number>();
  const count = (s: unknown, top: boolean) => {
    if (!isSchema(s)) return;
    if (!top && JSON.stringify(s).length >= HOIST_MIN_LENGTH) counts.set(id(s), (counts.get(id(s)) ?? 0) + 1);
    mapChildren(s, (c) => {
      count(c, false);
      return c;
    });
  };
  count(root, true);
  const definitions: Record<string, Schema> = {};
  const rewrite = (s: unknown, top: boolean): unknown => {
    if (!isSchema(s)) return s;
    if (!top && JSON.stringify(s).length >= HOIST_MIN_LENGTH) {
      const key = id(s);
      if ((counts.get(key) ?? 0) > 1) {
        if (!(key in definitions)) {
          definitions[key] = {}; // reserved first: a definition may contain its own key further down
          definitions[key] = mapChildren(s, (c) => rewrite(c, false));
        }
        return { $ref: `#/definitions/${key}` };
      }
    }
    return mapChildren(s, (c) => rewrite(c, false));
  };
  const out = rewrite(root, true) as Schema;
  return Object.keys(definitions).length === 0 ? out : { ...out, definitions: { ...(out.definitions as Schema | undefined), ...definitions } };
}

/** The formats prism's validator uses: ajv-formats' full set, and its own date-time. */
function prismFormats(): Record<string, unknown> {
  const { fullFormats } = prismRequire("ajv-formats/dist/formats") as { fullFormats: Record<string, unknown> };
  const dateTime = prismRequire("./validators/dateTime.js") as { fmtDef(v: unknown, c: unknown): unknown; date_time: unknown; compareDateTime: unknown };
  return { ...fullFormats, "date-time": dateTime.fmtDef(dateTime.date_time, dateTime.compareDateTime) };
}

interface AjvForCode {
  compile(schema: object): unknown;
  addFormat(name: string, format: unknown): void;
}

/** Standalone code of one schema, in the flavour it was compiled in. */
function standalone(build: string, flavour: string, schema: Schema): string {
  const ajvModule = prismRequire(build) as { default: new (o: object) => AjvForCode; _: (s: TemplateStringsArray) => unknown };
  const standaloneCode = (prismRequire("ajv/dist/standalone") as { default: (ajv: AjvForCode, fn: unknown) => string }).default;
  if (flavour === VARIANT_FLAVOUR) {
    // A oneOf's variant checked alone to phrase a refusal (closestVariant.ts): its own options, no formats.
    const ajv = new ajvModule.default({ ...VARIANT_AJV_OPTIONS, logger: false, inlineRefs: false, code: { source: true, regExp: linearRegExp } });
    return standaloneCode(ajv, ajv.compile(hoistRepeats(schema)));
  }
  const [, errors, coerce] = flavour.split(":");
  const ajv = new ajvModule.default({
    allowUnionTypes: true,
    allowMatchingProperties: true,
    strict: false,
    logger: false,
    validateSchema: false,
    allErrors: errors === "all",
    coerceTypes: coerce === "coerce",
    inlineRefs: false,
    code: { source: true, regExp: linearRegExp, formats: ajvModule._`require("cdp:formats")` },
  });
  for (const [name, format] of Object.entries(prismFormats())) ajv.addFormat(name, format);
  return standaloneCode(ajv, ajv.compile(hoistRepeats(schema)));
}

/** A status that falls under a declared response code (`201`, `4XX`); undefined for `default`. */
function statusOf(code: string): number | undefined {
  if (/^\d{3}$/.test(code)) return Number(code);
  if (/^[1-5]XX$/i.test(code)) return Number(code[0]) * 100;
  return undefined;
}

/**
 * A request per operation that makes both checks compile what the operation has (its body and its parameters), and
 * an answer per declared response that makes the response check (`--validate-responses`) compile its schemas: a
 * policy's took ~0.2 s on its first answer of each of the four operations that return one.
 */
function exercise(operations: IHttpOperation[], side: "requests" | "responses"): void {
  const prism = createRequire(import.meta.url)(PRISM_VALIDATOR) as { validateInput(o: object): unknown; validateOutput(o: object): unknown };
  for (const op of operations) {
    const headers = { "content-type": "application/json", "content-length": "2" };
    if (side === "requests") {
      certainlyValid(op, { path: op.path, query: {}, headers, body: {} });
      prism.validateInput({ resource: op, element: { method: op.method, url: { path: op.path, query: {} }, headers, body: {} } });
      continue;
    }
    for (const response of op.responses ?? []) {
      const statusCode = statusOf(response.code);
      if (statusCode === undefined) continue;
      prism.validateOutput({ resource: op, element: { statusCode, headers: { "content-type": "application/json" }, body: {} } });
      certainlyValidResponse(op, { status: statusCode, headers: { "content-type": "application/json" }, body: {} });
    }
  }
}

/**
 * The precompiled validators of `operations`, by key: for each, the text of
 * a module exporting a function that takes a `require` (for Ajv's runtime
 * helpers and the sandbox's own formats and pattern engine) and returns the
 * validator. One module per schema, so a start reads none of them and the
 * first request of an operation reads only its own.
 */
export function generateValidators(operations: IHttpOperation[]): Generated {
  preparePrismAjv(prismRequire);
  const forRequests = recordCompiles();
  exercise(operations, "requests");
  const requestSide = forRequests.stop();
  const forResponses = recordCompiles();
  exercise(operations, "responses");
  for (const op of operations) compileVariantsOf(bodySchemaOf(op));
  const lateSide = forResponses.stop();
  const modules = new Map<string, string>();
  const requestKeys = new Set(requestSide.map(({ flavour, schema }) => schemaKey(flavour, schema)));
  const lazy = new Set(lateSide.map(({ flavour, schema }) => schemaKey(flavour, schema)).filter((key) => !requestKeys.has(key)));
  for (const { build, flavour, schema } of [...requestSide, ...lateSide]) {
    const code = standalone(build, flavour, schema as Schema);
    modules.set(
      schemaKey(flavour, schema),
      `"use strict";\nmodule.exports = function load(require) {\n  const module = { exports: {} };\n  const exports = module.exports;\n${code}\n  return module.exports;\n};\n`,
    );
  }
  return { modules, lazy };
}

/**
 * Generated validators: module text by key, and the keys no valid request needs (response checks under
 * `--validate-responses`, a refused body's variants), left to their first use.
 */
export interface Generated {
  modules: Map<string, string>;
  lazy: Set<string>;
}

interface ValidatorIndex {
  keys: string[];
  lazy: string[];
}

/** Writes generated validators into `dir`: one file per key and an index of the keys. */
export function writeValidators(dir: string, { modules, lazy }: Generated, write: (file: string, text: string) => void): void {
  for (const [key, text] of modules) write(join(dir, `${key}.cjs`), text);
  const index: ValidatorIndex = { keys: [...modules.keys()], lazy: [...lazy] };
  write(join(dir, "index.json"), JSON.stringify(index)); // last: whoever reads the index finds every file
}

/**
 * The largest request validators (the policy and x402 bodies, 60–270 KB of code each) are read and run once at
 * start-up: reading one and V8's first compile of it took up to ~100 ms on its first request. Together ~0.1 s.
 * Response validators and a refusal's variants are left to their first use (20–45 ms for a policy's): most runs never
 * check responses, and a valid request needs no variant alone.
 */
const PRELOAD_ABOVE_BYTES = 60_000;

/** Makes the validators written in `dir` available to `compile`, each read on first use; false when there are none. */
export function loadValidators(dir: string): boolean {
  let index: ValidatorIndex;
  try {
    index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as ValidatorIndex;
  } catch {
    return false; // not generated for this contract: schemas are compiled on first use
  }
  let formats: Record<string, unknown> | undefined;
  const requireFor = (id: string) => {
    if (id === "cdp:regexp") return linearRegExp;
    if (id === "ajv/dist/runtime/ucs2length") return { default: codePointLength };
    if (id !== "cdp:formats") return prismRequire(id);
    formats ??= prismFormats();
    return formats;
  };
  const load = createRequire(import.meta.url);
  const lazy = new Set(index.lazy);
  for (const key of index.keys) {
    let validator: ReturnType<NonNullable<ReturnType<typeof precompiledValidators.get>>> | undefined;
    const get = () => {
      validator ??= (load(join(dir, `${key}.cjs`)) as (r: typeof requireFor) => typeof validator)(requireFor);
      return validator!;
    };
    precompiledValidators.set(key, get);
    if (!lazy.has(key) && statSync(join(dir, `${key}.cjs`)).size > PRELOAD_ABOVE_BYTES) get()({}); // the first call compiles its code
  }
  return true;
}
