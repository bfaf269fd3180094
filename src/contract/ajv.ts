/**
 * The Ajv that validates requests (our fast check, and prism's validator
 * behind it), made safe and quick:
 *
 * - Patterns match in linear time. JavaScript's RegExp backtracks: one amount
 *   pattern of the contract took seconds on "0." + "1" × 40,000 + "!"
 *   (quadratic in the length), with the whole server waiting. RE2 (re2js)
 *   never backtracks; every pattern of both documents compiles in it (a test
 *   keeps it so). RE2 reads ~1 µs a character, though: the patterns that
 *   cannot backtrack more than once a character (oneRepetition.ts) run on
 *   JavaScript's RegExp, ~100 times faster on a long value.
 * - Schemas are compiled when the contract is (`npm run build`), not on the
 *   first request that needs them: Ajv took up to 1.1 s for createPolicy's
 *   body, with the event loop stalled. `precompiled.ts` writes the code; here
 *   `compile` finds it by the schema it is asked for, and compiles only what
 *   is not there (a contract of the user's own, say).
 *
 * prism builds its Ajv instances when its validator loads, so its Ajv classes
 * are replaced before that (`preparePrismAjv`).
 */
import { createHash } from "node:crypto";
import { RE2JS } from "re2js";
import { repeatsOnce } from "./oneRepetition.js";

interface RegExpLike {
  test(input: string): boolean;
}

const patterns = new Map<string, RegExpLike>();

/**
 * Ajv's RegExpEngine on RE2 (or V8's engine for a pattern with one repetition): search semantics, as JSON Schema's
 * `pattern` has.
 *
 * A pattern anchored at the start (`^…`, no alternative outside a group) can only match from the first character,
 * so it is matched there alone: RE2's search would try every later position too, reading the whole value (a 4 MB
 * name against the account-name pattern took 100–230 ms to refuse; anchored, it stops after 37 characters).
 */
export function linearRegExp(pattern: string, _flags: string): RegExpLike {
  let rx = patterns.get(pattern);
  if (!rx) {
    const re2 = RE2JS.compile(pattern);
    const test =
      javaScriptRegExp(pattern) ?? (anchoredAtStart(pattern) ? (input: string) => re2.matcher(input).lookingAt() : (input: string) => re2.test(input));
    // Ajv keys its cache of patterns by toString().
    rx = { test, toString: () => `re2:${pattern}` } as RegExpLike;
    patterns.set(pattern, rx);
  }
  return rx;
}

/** V8's own engine for a pattern it runs in linear time (oneRepetition.ts), else undefined. */
function javaScriptRegExp(pattern: string): ((input: string) => boolean) | undefined {
  if (!repeatsOnce(pattern)) return undefined;
  try {
    const rx = new RegExp(pattern, "u");
    return (input) => rx.test(input);
  } catch {
    return undefined; // not valid in JavaScript's syntax: RE2 reads it
  }
}

/**
 * Whether every match of `pattern` starts at the text's beginning: it opens with `^` (which, without the multiline
 * flag JSON Schema never sets, is the text's start) and has no `|` outside a group or class that would add an
 * alternative without it. Unsure (an odd escape) means false: the search then runs as it always did.
 */
function anchoredAtStart(pattern: string): boolean {
  if (!pattern.startsWith("^")) return false;
  let depth = 0;
  let inClass = false;
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") {
      inClass = true;
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++; // a `]` first in a class is a member, not its end
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return false;
  }
  return depth === 0 && !inClass;
}

/** Any UTF-16 surrogate, paired or not: a string without one has as many code points as code units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * `maxLength`'s count (code points, a lone surrogate counted as one), as Ajv's runtime counts, for the validators
 * the build writes. Ajv's reads every character in JavaScript (20–70 ms for a 4 MB value, run before a length
 * bound can refuse it); a value with no surrogate, nearly every one, is answered by a native scan instead.
 */
export function codePointLength(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let length = 0;
  for (let i = 0; i < text.length; i++, length++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return length;
}

/** What the generated code writes to reach the engine (see precompiled.ts). */
linearRegExp.code = 'require("cdp:regexp")';
/** Ajv's own name for its count, so that code written with this one reads as code written with Ajv's. */
codePointLength.code = 'require("ajv/dist/runtime/ucs2length").default';

type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown };

/** The Ajv builds prism loads, by module id; the flavour of a compiled function names its build. */
const AJV_BUILDS = ["ajv", "ajv/dist/2019", "ajv/dist/2020"] as const;

/** Which generated code fits an Ajv: its build and the options that change the code. */
export const flavourOf = (build: string, options: { allErrors?: boolean; coerceTypes?: unknown }) =>
  `${build}:${options.allErrors ? "all" : "first"}:${options.coerceTypes ? "coerce" : "exact"}`;

/** The key of a schema compiled in a flavour. */
export const schemaKey = (flavour: string, schema: unknown) =>
  createHash("sha256").update(flavour).update("\0").update(JSON.stringify(schema)).digest("base64url").slice(0, 24);

/** Compiled functions by key (loaded by precompiled.ts), and the schemas compiled at run time while recording. */
export const precompiledValidators = new Map<string, () => ValidateFn>();
let recording: Map<string, { build: string; flavour: string; schema: unknown }> | undefined;

/** Notes every schema compiled until `stop`, with its flavour: what the build precompiles. */
export function recordCompiles(): { stop(): Array<{ build: string; flavour: string; schema: unknown }> } {
  recording = new Map();
  return {
    stop: () => {
      const found = [...(recording?.values() ?? [])];
      recording = undefined;
      return found;
    },
  };
}

/**
 * `schema`'s validator: the build's code for it when there is some, else `compile()` (noted while recording). `build`
 * is the Ajv module the code needs, `flavour` the options it was generated with.
 */
export function compileKnown<F>(build: string, flavour: string, schema: unknown, compile: () => F): F {
  const key = schemaKey(flavour, schema);
  const ready = precompiledValidators.get(key);
  if (ready) return ready() as F;
  const fn = compile();
  recording?.set(key, { build, flavour, schema }); // only what compiles: what does not is reported as it is
  return fn;
}

interface AjvLike {
  compile(schema: object): ValidateFn;
  addFormat(name: string, format: unknown): unknown;
  opts: Record<string, unknown>;
  formats: Record<string, unknown>;
}
type AjvClass = new (options?: Record<string, unknown>) => AjvLike;

function prepare(ajvModule: { default: AjvClass & { prepared?: boolean } }, build: string): void {
  const Base = ajvModule.default;
  if (Base.prepared) return;
  class PreparedAjv extends Base {
    static prepared = true;
    readonly #options: Record<string, unknown>;
    #firstErrorOnly: AjvLike | undefined;

    constructor(options: Record<string, unknown> = {}) {
      super({ ...options, code: { ...(options.code as object | undefined), regExp: linearRegExp } });
      this.#options = options;
    }

    override compile(schema: object): ValidateFn {
      if ((this.opts.code as { source?: boolean } | undefined)?.source) return super.compile(schema); // the build, writing code
      const flavour = flavourOf(build, this.opts as { allErrors?: boolean; coerceTypes?: unknown });
      // (Not where types are coerced, parameters: the first check would coerce what the second then reads.)
      if (!this.opts.allErrors || this.opts.coerceTypes) return compileKnown(build, flavour, schema, () => super.compile(schema));
      return this.#firstErrorThenAll(schema, flavour);
    }

    /**
     * A validator that gathers every error (prism's) as one that first stops at the first error, and gathers them
     * all only for a value that has some. allErrors changes what is reported, never the verdict, and gathering
     * costs: a policy of 100 rules (a oneOf of 22 variants each) took 12 ms to check with it and 1.5 ms without,
     * on every answer checked under --validate-responses. The build writes both; without them, the gathering code
     * is compiled on the first failure.
     */
    #firstErrorThenAll(schema: object, flavour: string): ValidateFn {
      if (!this.#firstErrorOnly) {
        const sibling = new PreparedAjv({ ...this.#options, allErrors: false });
        for (const [name, format] of Object.entries(this.formats)) sibling.addFormat(name, format); // prism adds its formats after construction
        this.#firstErrorOnly = sibling;
      }
      const first = this.#firstErrorOnly.compile(schema);
      const gathering = () => compileKnown(build, flavour, schema, () => super.compile(schema));
      let all = recording ? gathering() : undefined; // the build writes both
      const validate = ((data: unknown) => {
        if (first(data)) {
          validate.errors = null;
          return true;
        }
        all ??= gathering();
        const valid = all(data);
        validate.errors = all.errors;
        return valid;
      }) as ValidateFn;
      return validate;
    }
  }
  ajvModule.default = PreparedAjv;
}

/**
 * Makes the Ajv builds prism's validator uses (as prism's own `require`
 * resolves them) match patterns in linear time and take precompiled code.
 * Run before prism's validator loads and before any instance is made; idempotent.
 */
export function preparePrismAjv(prismRequire: (id: string) => unknown): void {
  for (const build of AJV_BUILDS) prepare(prismRequire(build) as { default: AjvClass }, build);
  // Schemas compiled at run time (a contract of the user's own, `--spec`) count maxLength with this count too: the
  // keyword reads the module's export each time it compiles one. Ajv's read a 4 MB value a character at a time.
  (prismRequire("ajv/dist/runtime/ucs2length") as { default: unknown }).default = codePointLength;
}
