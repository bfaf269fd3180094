/** Request bodies are JSON; a body that does not parse is a client mistake (400), never a 500. */
import { isAscii } from "node:buffer";
import { nextTurn } from "../byTurns.js";
import { apiError } from "../errors/catalogue.js";

/**
 * The deepest nesting a body may have. The contract's deepest bodies (typed
 * data, ABIs, policy rules) stay far below it; a body nested a million deep
 * held the event loop for seconds in the checks that walk it.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether arrays and objects nest deeper than `max` in JSON text: one pass, brackets inside strings ignored. A
 * string is skipped with `indexOf` (native, memchr-fast) rather than a character at a time, which took 30–60 ms
 * over a 4 MB string value.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  return scanJsonText(text, max).tooDeep;
}

/**
 * What one pass over JSON text outside its strings finds: nesting deeper than `max`, and a number JSON.parse may
 * read as Infinity (a run of 300 digits, or an exponent of three digits not negative: 1e400, 2E+999).
 */
function scanJsonText(text: string, max: number): { tooDeep: boolean; longNumber: boolean } {
  let depth = 0;
  let longNumber = false;
  let digits = 0;
  /** Digits since an exponent's `e`/`E` (and its `+`), or -1 outside a non-negative exponent. */
  let exponentDigits = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 300 || (exponentDigits >= 0 && ++exponentDigits >= 3)) longNumber = true;
      continue;
    }
    digits = 0;
    if (c === 0x65 || c === 0x45) exponentDigits = 0;
    else if (!(c === 0x2b && exponentDigits === 0)) exponentDigits = -1;
    if (c === 0x22) i = endOfString(text, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return { tooDeep: true, longNumber };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { tooDeep: false, longNumber };
}

/** The index of the quote that closes the string opened at `open` (the text's length if none does). */
function endOfString(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // A quote preceded by an odd run of backslashes is escaped.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

const isJsonSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the members of a JSON array lie in `text`, found in one pass outside strings, when `text` is one array of more
 * than `min` members: [start, end) of each, its spaces included. Undefined for anything else (another value, a shorter
 * array, brackets that do not balance). The members are not checked: each must still parse on its own.
 */
export function arrayMembersOver(text: string, min: number): Array<[number, number]> | undefined {
  let open = 0;
  while (open < text.length && isJsonSpace(text.charCodeAt(open))) open++;
  let close = text.length - 1;
  while (close > open && isJsonSpace(text.charCodeAt(close))) close--;
  if (text.charCodeAt(open) !== 0x5b || close <= open || text.charCodeAt(close) !== 0x5d) return undefined;
  const members: Array<[number, number]> = [];
  let depth = 0;
  let start = open + 1;
  for (let i = start; i < close; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = endOfString(text, i);
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth < 0) return undefined; // the array closed before its last character
    } else if (c === 0x2c && depth === 0) {
      members.push([start, i]);
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  members.push([start, close]);
  return members.length > min ? members : undefined;
}

export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (contentType && !/json/i.test(contentType)) {
    throw apiError("invalid_request", `Unsupported Content-Type '${contentType}': send the body as application/json.`);
  }
  // An ASCII body (nearly every one) reads the same as Latin-1, which skips UTF-8's decoding: 1–3 ms less for 4 MB.
  const text = isAscii(raw) ? raw.toString("latin1") : raw.toString("utf8");
  const shape = scanJsonText(text, MAX_JSON_DEPTH);
  if (shape.tooDeep) throw apiError("invalid_request", `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw apiError("invalid_request", `Malformed JSON body: ${(error as Error).message}.`);
  }
  // JSON.parse reads 1e400 or a 400-digit integer as Infinity, which no check refuses and JSON cannot write
  // back (a stored Infinity would break every later read). Only a long number can overflow, so the walk runs
  // only when the text has one, found by the depth check's pass outside strings (a regular expression over the
  // whole text read a 4 MB string value at every position: ~6 ms a request at load 6).
  if (shape.longNumber && hasNonFiniteNumber(parsed)) {
    throw apiError("invalid_request", "The JSON body has a number too large to represent (beyond about 1.8e308).");
  }
  return parsed;
}

function hasNonFiniteNumber(value: unknown): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFiniteNumber);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasNonFiniteNumber);
  return false;
}

/** A body this long is parsed in a turn of the event loop of its own: the rest of its request waits for the next. */
const LARGE_BODY_BYTES = 262_144;

/**
 * Lets the event loop turn once after a large body was parsed. Its parse (~15 ms for 4 MB) allocates the most of any
 * step of a request, so it is where the collector's pauses fall; the checks after it (auth, the contract, a batch's
 * cap) in the same turn made one stall of both.
 */
export async function turnAfterLargeBody(raw: { length: number }): Promise<void> {
  if (raw.length >= LARGE_BODY_BYTES) await nextTurn();
}
