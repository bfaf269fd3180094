/**
 * Which patterns JavaScript's own RegExp may run without the risk RE2 is there for. RE2 (re2js) reads a value at
 * 0.2–2 µs a character, so a 4 MB string of digits against `^\d+$` took seconds even though it never backtracks.
 * V8's engine is ten times faster or more, and backtracks: harmless when the pattern can only backtrack a bounded
 * number of ways.
 *
 * Such a pattern is made of single-character items (a literal, an escaped punctuation mark, `\d`, a class without
 * escapes but `\-`, `\]`, `\\`), each with a quantifier or none, and groups (`(…)`, `(?:…)`) of alternatives, a group
 * optional (`?`) or not repeated at all; each top-level alternative starts with `^`, and `$` ends one if anywhere.
 * Every place where V8 may choose is counted with its ways: a group's alternatives (one more when optional), an
 * item's lengths (`?` two, `{n,m}` m − n + 1, `*`, `+` and `{n,}` as many as the value has characters). One of
 * them may be unbounded or large; the others together allow at most BRANCHES ways. V8 then tries at most
 * BRANCHES × (length + 1) paths from the value's start, each checking a fixed pattern: its time stays linear in the
 * value (`^(0|[1-9]\d*)$`: two ways times the lengths of `\d*`). Anything else (a repeated group, a second unbounded
 * item, `.`, `\s`, other escapes, lookarounds) is left to RE2. On these forms both engines agree: ASCII `\d`, the
 * same classes, `^` and `$` at the value's ends, and a match exists in one exactly when it does in the other.
 */

/** A class body's characters: no nested class, no escape but `\-`, `\]`, `\\`. */
const CLASS = String.raw`\[\^?(?:[^\\\[\]]|\\[-\]\\])+\]`;
const ITEM = String.raw`(?:[A-Za-z0-9 _,:;=@#%&'"<>~!/-]|\\[.+*?()|{}^$\[\]\\/]|\\d|${CLASS})`;
const QUANTIFIER = String.raw`(?:[+*?]|\{\d+(?:,\d*)?\})?`;
const ITEM_AT = new RegExp(`${ITEM}(${QUANTIFIER})`, "y");

/** The ways V8 may go at the places other than the one that may be unbounded, together. */
const BRANCHES = 256;

/** Ways of a quantified item: how many lengths it may take. */
function waysOf(quantifier: string): number {
  if (quantifier === "") return 1;
  if (quantifier === "?") return 2;
  if (quantifier === "*" || quantifier === "+") return Number.POSITIVE_INFINITY;
  const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}$/.exec(quantifier)!;
  if (!comma) return 1;
  return high === "" ? Number.POSITIVE_INFINITY : Math.max(1, Number(high) - Number(low) + 1);
}

/** Reads alternatives from `at` to a `)` (in a group) or the end; the ways of each place go into `ways`. */
function readAlternatives(pattern: string, at: number, topLevel: boolean, ways: number[]): { at: number; count: number } | undefined {
  let count = 1;
  let start = true;
  for (;;) {
    const c = pattern[at];
    if (c === undefined || c === ")") {
      if (topLevel !== (c === undefined)) return undefined;
      return { at, count };
    }
    if (c === "|") {
      count++;
      start = true;
      at++;
      continue;
    }
    if (topLevel && start && c !== "^") return undefined; // an unanchored alternative is tried at every position
    start = false;
    if (c === "^") {
      if (!topLevel || (pattern[at - 1] !== undefined && pattern[at - 1] !== "|")) return undefined;
      at++;
    } else if (c === "$") {
      if (!topLevel || (pattern[at + 1] !== undefined && pattern[at + 1] !== "|")) return undefined;
      at++;
    } else if (c === "(") {
      const inner = pattern.startsWith("(?:", at) ? at + 3 : pattern[at + 1] === "?" ? -1 : at + 1;
      if (inner < 0) return undefined; // a lookaround or a named group
      const group = readAlternatives(pattern, inner, false, ways);
      if (!group) return undefined;
      at = group.at + 1;
      const optional = pattern[at] === "?";
      if (optional) at++;
      else if (pattern[at] === "*" || pattern[at] === "+" || pattern[at] === "{") return undefined; // a repeated group
      ways.push(group.count + (optional ? 1 : 0));
    } else {
      ITEM_AT.lastIndex = at;
      const item = ITEM_AT.exec(pattern);
      if (!item) return undefined;
      ways.push(waysOf(item[1]!));
      at = ITEM_AT.lastIndex;
    }
  }
}

/**
 * Whether `pattern` (JSON Schema's, unanchored search semantics) is of the bounded-backtracking form above.
 *
 * @example repeatsOnce("^(0|[1-9]\\d*)$") // true; repeatsOnce("^[0-9]+(\\.[0-9]+)?$") // false (two unbounded items)
 */
export function repeatsOnce(pattern: string): boolean {
  const ways: number[] = [];
  if (!readAlternatives(pattern, 0, true, ways)) return false;
  ways.sort((a, b) => b - a);
  let others = 1;
  for (const w of ways.slice(1)) others *= w;
  return others <= BRANCHES;
}
