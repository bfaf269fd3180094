/**
 * Which patterns JavaScript's own RegExp may run without the risk RE2 is there for. RE2 (re2js) reads a value at
 * 0.2–2 µs a character, so a 4 MB string of digits against `^\d+$` took seconds even though it never backtracks.
 * V8's engine is ten times faster or more, and backtracks: harmless when the pattern can only backtrack one way.
 *
 * That is a pattern of the form `^`, single-character items (a literal, an escaped punctuation mark, `\d`, a class
 * without escapes but `\-`, `\]`, `\\`), `$`, in which at most one item repeats a variable number of times (`+`, `*`,
 * `?`, `{n,}`, `{n,m}`): V8 then tries each length of that one item once, each try checking a fixed-length rest, so
 * its time stays linear in the value. Anything else (groups, alternatives, a second variable item, `.`, other
 * escapes) is left to RE2. On these forms both engines agree: ASCII `\d`, the same classes, `^` and `$` at the
 * value's ends.
 */

/** A class body's characters: no nested class, no escape but `\-`, `\]`, `\\`. */
const CLASS = String.raw`\[\^?(?:[^\\\[\]]|\\[-\]\\])+\]`;
const ITEM = String.raw`(?:[A-Za-z0-9 _,:;=@#%&'"<>~!/-]|\\[.+*?()|{}^$\[\]\\/]|\\d|${CLASS})`;
const QUANTIFIER = String.raw`(?:[+*?]|\{\d+(?:,\d*)?\})?`;
const SHAPE = new RegExp(String.raw`^\^(?:${ITEM}${QUANTIFIER})*\$$`);
const QUANTIFIED = new RegExp(`${ITEM}(${QUANTIFIER})`, "g");

/**
 * Whether `pattern` (JSON Schema's, unanchored search semantics) is of the one-repetition form above.
 *
 * @example repeatsOnce("^0x[0-9a-fA-F]+$") // true; repeatsOnce("^(0|[1-9]\\d*)$") // false (a group)
 */
export function repeatsOnce(pattern: string): boolean {
  if (!SHAPE.test(pattern)) return false;
  let variable = 0;
  for (const [, quantifier] of pattern.slice(1, -1).matchAll(QUANTIFIED)) {
    if (quantifier && !/^\{(\d+)\}$/.test(quantifier) && ++variable > 1) return false;
  }
  return true;
}
