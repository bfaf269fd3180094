/**
 * The body hash carried in the wallet token's `reqHash` claim. The client
 * hashes `JSON.stringify` of the body with every object's keys sorted (default
 * JS sort, arrays keep their order) — not the bytes it sends — so the sandbox
 * re-serialises the parsed body the same way before hashing.
 */
import { hash } from "node:crypto";

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    // Built with fromEntries (which defines own properties) rather than by assignment: `sorted["__proto__"] = …`
    // would set the prototype and leave the member out of the hash, so a body could gain it after signing.
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeysDeep(record[key])]),
    );
  }
  return value;
}

/** Deterministic JSON: keys sorted at every depth, no whitespace, JS number and string rules. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value)) ?? "";
}

/** Lowercase hex SHA-256 of the canonical JSON of `body`. */
export function reqHashOf(body: unknown): string {
  // The one-shot hash: a quarter of the cost of a Hash object for an input this small, on every signed request.
  return hash("sha256", canonicalJson(body), "hex");
}
