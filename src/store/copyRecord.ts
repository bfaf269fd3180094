/**
 * The copy a store read hands out, so that a handler changing a record cannot change committed state. Records are
 * plain data (objects, arrays, strings, numbers, booleans, null, bigints): those are copied here member by member,
 * ~1.2 µs for an account record against ~7.7 µs through `structuredClone`, which serializes and deserializes (a
 * transaction reads a few dozen records). Anything else inside a record (a byte array, a date, a map, a class's
 * instance) goes through `structuredClone`, which also refuses what cannot be copied (a function) as before. Unlike it, an object a record holds twice comes out as two equal copies.
 *
 * Writes keep `structuredClone`: this copy shares the record's strings, and a string built a character at a time
 * (base-58 of a key) is a chain of ~40 cons cells until something flattens it, where structuredClone writes it out
 * flat. Stored that way, a Solana wallet held ~400 B more (`bench/solana.mjs`, 10,000 wallets); a read's copy lives
 * for one request.
 */
export function copyRecord<T>(value: T): T {
  if (typeof value !== "object" || value === null) {
    return typeof value === "function" || typeof value === "symbol" ? structuredClone(value) : value;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copyRecord(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = copyRecord((value as Record<string, unknown>)[key]);
    // An own "__proto__" member stays a member: assigning it would set the copy's prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out as T;
}
