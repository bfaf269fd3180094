/**
 * A lookup table keyed by outside input (a network from a URL, a token
 * symbol from a body): an object without a prototype, so a key such as
 * "constructor" or "toString" finds nothing instead of Object's members,
 * and `key in table` means the table has it.
 *
 * @example
 *   const BLOCK_TIME_MS = lookupTable({ base: 2000, solana: 400 });
 *   BLOCK_TIME_MS["constructor"]; // undefined
 */
export const lookupTable = <T extends object>(entries: T): Readonly<T> => Object.freeze(Object.assign(Object.create(null) as T, entries));
