/**
 * The body hash carried in the wallet token's `reqHash` claim. The client
 * hashes `JSON.stringify` of the body with every object's keys sorted (default
 * JS sort, arrays keep their order) — not the bytes it sends — so the sandbox
 * re-serialises the parsed body the same way before hashing.
 */
import { createHash, hash } from "node:crypto";
import { nextTurn } from "../byTurns.js";

/**
 * Characters of JSON text hashed per turn of the event loop once a body's JSON is about this long (its strings' length
 * and one per value). Below it, the text is made and hashed in one piece (the path of nearly every request); a 4 MB
 * string value held the loop ~40–60 ms in one piece under load (the copy JSON.stringify makes, then the hash).
 */
const PIECE_CHARS = 262_144;

/**
 * The value with its objects' keys sorted at every depth, and about how long its JSON text is: the length of all its
 * strings (keys included) and one per value.
 */
function sortKeysDeep(value: unknown, size: { chars: number }): unknown {
  size.chars++;
  if (typeof value === "string") {
    size.chars += value.length;
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => sortKeysDeep(item, size));
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    // Built with fromEntries (which defines own properties) rather than by assignment: `sorted["__proto__"] = …`
    // would set the prototype and leave the member out of the hash, so a body could gain it after signing.
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => {
          size.chars += key.length;
          return [key, sortKeysDeep(record[key], size)];
        }),
    );
  }
  return value;
}

/** Deterministic JSON: keys sorted at every depth, no whitespace, JS number and string rules. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value, { chars: 0 })) ?? "";
}

/** Lowercase hex SHA-256 of the canonical JSON of `body`. */
export function reqHashOf(body: unknown): string {
  // The one-shot hash: a quarter of the cost of a Hash object for an input this small, on every signed request.
  return hash("sha256", canonicalJson(body), "hex");
}

/**
 * Lowercase hex SHA-256 of `prefix` followed by the canonical JSON of `value` (`reqHashOf` for an empty prefix):
 * the same bytes, but a body whose strings are long is written and hashed a piece per turn of the event loop.
 */
export async function canonicalSha256(value: unknown, prefix = "", pieceChars = PIECE_CHARS): Promise<string> {
  const size = { chars: 0 };
  const sorted = sortKeysDeep(value, size);
  if (size.chars < pieceChars) return hash("sha256", prefix + (JSON.stringify(sorted) ?? ""), "hex");
  const sha = createHash("sha256").update(prefix);
  let pending: string[] = [];
  let pendingChars = 0;
  for (const piece of jsonPieces(sorted, pieceChars)) {
    pending.push(piece);
    pendingChars += piece.length;
    if (pendingChars >= pieceChars) {
      sha.update(pending.join(""));
      pending = [];
      pendingChars = 0;
      await nextTurn();
    }
  }
  return sha.update(pending.join("")).digest("hex");
}

/**
 * What tells one body from another, in a key: the canonical JSON of `value` while it is short (under `maxChars`),
 * else `sha256:` and the hash of that JSON, made in pieces (a key never starts so otherwise: the JSON of a body
 * starts with a bracket, a quote, a digit or a literal).
 */
export async function canonicalJsonOrSha256(value: unknown, maxChars: number): Promise<string> {
  const size = { chars: 0 };
  const sorted = sortKeysDeep(value, size);
  return size.chars < maxChars ? (JSON.stringify(sorted) ?? "") : `sha256:${await canonicalSha256(value)}`;
}

/**
 * JSON.stringify's text of a JSON value, in pieces: a string longer than `pieceChars` comes in several, cut never
 * between the two halves of a surrogate pair (JSON.stringify escapes a lone half, so the text would differ).
 */
function* jsonPieces(value: unknown, pieceChars: number): Generator<string> {
  if (typeof value === "string") {
    yield* stringPieces(value, pieceChars);
  } else if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      // As JSON.stringify writes them: an array's holes and undefined members are null.
      yield* value[i] === undefined ? ["null"] : jsonPieces(value[i], pieceChars);
    }
    yield "]";
  } else if (value !== null && typeof value === "object") {
    yield "{";
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      if (!first) yield ",";
      first = false;
      yield* stringPieces(key, pieceChars);
      yield ":";
      yield* jsonPieces(member, pieceChars);
    }
    yield "}";
  } else {
    yield JSON.stringify(value) ?? "null";
  }
}

function* stringPieces(text: string, pieceChars: number): Generator<string> {
  if (text.length <= pieceChars) {
    yield JSON.stringify(text);
    return;
  }
  yield '"';
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + pieceChars, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - at > 1 && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(text.slice(at, end)).slice(1, -1);
    at = end;
  }
  yield '"';
}
