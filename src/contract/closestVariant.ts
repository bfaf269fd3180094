/**
 * A readable account of a body that matches none of a `oneOf`'s variants. prism reports every problem of every
 * variant, flattened (x402's verify body: 37 problems in one message, most of them about variants the client never
 * meant). Here the body is walked along the schema to the first `oneOf` (or `anyOf`) none of whose variants it
 * matches; each variant is checked on its own, and the closest one (the fewest problems) is named with what it
 * lacks. Runs only for a request already refused, to phrase the refusal.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { compileKnown, linearRegExp } from "./ajv.js";

type Schema = Record<string, unknown>;
/** A problem of the request, as validate.ts reports them. */
interface Problem {
  location: string;
  message: string;
  code?: string | number;
}

/**
 * Each variant checked alone, every problem listed; formats are left out (only closeness is measured here). The
 * build compiles every variant of the contract's bodies in this flavour (`precompiled.ts`): Ajv took ~0.25 s for a
 * policy rule's, on the first refusal of each operation, with every other request waiting.
 */
export const VARIANT_FLAVOUR = "variants:all:no-formats";
export const VARIANT_AJV_OPTIONS = { allErrors: true, strict: false, validateSchema: false, validateFormats: false, allowUnionTypes: true } as const;

let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction | null>();

function validatorOf(schema: Schema): ValidateFunction | null {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    fn = null;
    ajv ??= new Ajv({ ...VARIANT_AJV_OPTIONS, code: { regExp: linearRegExp } });
    const fresh = ajv;
    try {
      fn = compileKnown("ajv", VARIANT_FLAVOUR, schema, () => fresh.compile(schema));
    } catch {
      // Not compilable alone (a $ref to elsewhere): this variant cannot be ranked.
    }
    compiled.set(schema, fn);
  }
  return fn;
}

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** A variant's name: its title, else the constants that tell it apart (`scheme: "exact"`), else its position. */
function nameOf(variant: Schema, index: number): string {
  if (typeof variant.title === "string") return variant.title;
  const properties = isObject(variant.properties) ? variant.properties : {};
  const constants = Object.entries(properties).flatMap(([name, p]) => {
    if (!isObject(p)) return [];
    const value = "const" in p ? p.const : Array.isArray(p.enum) && p.enum.length === 1 ? p.enum[0] : undefined;
    return value === undefined ? [] : [`${name}: ${JSON.stringify(value)}`];
  });
  if (constants.length > 0) return `the variant with ${constants.join(", ")}`;
  const described = typeof variant.description === "string" ? variant.description.split(/[.:\n]/)[0]!.slice(0, 80) : "";
  return described ? `variant ${index + 1} (${described})` : `variant ${index + 1}`;
}

function describeError(e: ErrorObject, at: string): string {
  const where = describeLocation(e, at);
  if (e.keyword === "required") return `${where}.${(e.params as { missingProperty: string }).missingProperty} is missing`;
  if (e.keyword === "additionalProperties") return `${where}.${(e.params as { additionalProperty: string }).additionalProperty} is not one of its fields`;
  return `${where} ${e.message ?? `breaks ${e.keyword}`}`;
}

interface Found {
  /** Where the unmatched oneOf is: the problems prism reported under it are replaced by `message`. */
  location: string;
  message: string;
  /** The closest variant's own problems, each where it is: what a caller classifying problems by place reads. */
  causes: Array<{ location: string; message: string }>;
}

/** Every oneOf/anyOf on the way through `data` that no variant matches, each with its closest variant; depth-bounded. */
function findUnmatched(schema: unknown, data: unknown, at: string, depth: number): Found[] {
  if (!isObject(schema) || depth > 32) return [];
  const variants = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as unknown[] | undefined;
  if (!variants || variants.length < 2) return findInside(schema, data, at, depth);
  const ranked: Array<{ name: string; errors: ErrorObject[]; variant: Schema; foreign: number }> = [];
  for (const [i, variant] of variants.entries()) {
    if (!isObject(variant)) continue;
    const validate = validatorOf(variant);
    if (!validate) return [];
    if (validate(data)) return findUnmatched(variant, data, at, depth + 1); // a variant matches: look inside it
    ranked.push({ name: nameOf(variant, i), errors: [...(validate.errors ?? [])], variant, foreign: foreignFields(variant, data) });
  }
  // Closest: the variant that declares the most of the fields sent (they say which one the client meant), then the fewest problems.
  ranked.sort((a, b) => a.foreign - b.foreign || a.errors.length - b.errors.length);
  const closest = ranked[0];
  if (!closest) return [];
  // The closest variant's own unmatched oneOfs say more than its flat list of their variants' problems.
  const deeper = findInside(closest.variant, data, at, depth + 1);
  const inDeeper = (e: ErrorObject) => deeper.some((d) => isUnder(describeLocation(e, at), d.location));
  const own = closest.errors.filter((e) => !inDeeper(e)).map((e) => describeError(e, at));
  const parts = [...own.slice(0, 5), ...(own.length > 5 ? [`${own.length - 5} more`] : []), ...deeper.map((d) => d.message)];
  const causes = closest.errors.filter((e) => !inDeeper(e)).map((e) => ({ location: describeLocation(e, at), message: e.message ?? `breaks ${e.keyword}` }));
  return [
    {
      location: at,
      message: `${at} matches none of its ${variants.length} variants; the closest is ${closest.name}, where ${parts.join(", and ")}`,
      causes: [...causes, ...deeper.flatMap((d) => d.causes)],
    },
  ];
}

function findInside(schema: Schema, data: unknown, at: string, depth: number): Found[] {
  const found: Found[] = [];
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) found.push(...findUnmatched(part, data, at, depth + 1));
  if (isObject(data) && isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (Object.hasOwn(data, name)) found.push(...findUnmatched(sub, data[name], `${at}.${name}`, depth + 1));
    }
  }
  if (Array.isArray(data) && isObject(schema.items)) {
    for (const [i, item] of data.slice(0, 100).entries()) found.push(...findUnmatched(schema.items, item, `${at}.${i}`, depth + 1));
  }
  return found;
}

/** How many of the fields of `data` (an object) the variant does not declare. */
function foreignFields(variant: Schema, data: unknown): number {
  if (!isObject(data)) return 0;
  const declared = isObject(variant.properties) ? variant.properties : {};
  return Object.keys(data).filter((k) => !Object.hasOwn(declared, k)).length;
}

const describeLocation = (e: ErrorObject, at: string) => [at, ...e.instancePath.split("/").slice(1)].join(".");
const isUnder = (location: string, parent: string) => location === parent || location.startsWith(`${parent}.`) || location.startsWith(`${parent}[`);

/** Compiles every variant `findUnmatched` can check in `schema` (a body's): what the build precompiles. */
export function compileVariantsOf(schema: unknown): void {
  for (const variant of variantsOf(schema)) validatorOf(variant);
}

/**
 * Every variant `findUnmatched` can check in `schema` (a body's), each with a function that makes its validator
 * ready (read from the build's cache): one piece of work each, for a warm-up that runs a piece per turn.
 */
export function variantWarmUps(schema: unknown): Array<() => void> {
  return variantsOf(schema).map((variant) => () => void validatorOf(variant));
}

function variantsOf(schema: unknown, depth = 0, into: Schema[] = []): Schema[] {
  if (!isObject(schema) || depth > 32) return into;
  const variants = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as unknown[] | undefined;
  if (variants && variants.length >= 2) {
    for (const variant of variants) {
      if (!isObject(variant)) continue;
      into.push(variant);
      variantsOf(variant, depth + 1, into);
    }
    return into;
  }
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) variantsOf(part, depth + 1, into);
  if (isObject(schema.properties)) for (const sub of Object.values(schema.properties)) variantsOf(sub, depth + 1, into);
  if (isObject(schema.items)) variantsOf(schema.items, depth + 1, into);
  return into;
}

/**
 * `problems` of a refused body with those under an unmatched oneOf replaced by one problem naming its closest
 * variant and what that variant lacks; the problems as they are when no such oneOf is found.
 */
export function summariseVariants(bodySchema: unknown, body: unknown, problems: Problem[]): Problem[] {
  let found: Found[];
  try {
    found = findUnmatched(bodySchema, body, "body", 0);
  } catch {
    return problems;
  }
  if (found.length === 0) return problems;
  const kept = problems.filter((p) => !found.some((f) => isUnder(p.location, f.location)));
  return [...kept, ...found.map((f) => ({ location: f.location, message: f.message, code: "oneOf", causes: f.causes }))];
}
