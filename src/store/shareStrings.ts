/**
 * Records of one kind repeat most of their values: the same network, status, asset, account id, subscription or
 * event payload, record after record. `JSON.parse` (and `structuredClone`, which every write goes through) makes a
 * new string for each occurrence, so a large state held each value once per record: at 400,000 records over a third
 * of the heap was strings equal to one in the record before. A record here takes, for each string member equal to
 * its neighbours' (the two records before it in its collection, or the version it replaces), the neighbour's
 * string, and for a member equal to its own id, the id the collection is keyed by; the copies become garbage.
 *
 * Two neighbours, not one: records of two kinds often alternate within a collection (a wallet's system account,
 * then its token account: their owner programs and lamports alternate), and the record before the one before
 * holds the value the record before does not. A string that matches neither costs a comparison that stops at the
 * length or the first differing character.
 *
 * Strings are values: a record reads the same whichever copy it holds, so nothing else changes. Only members are
 * compared with the neighbours' members of the same name (no table of every value seen), which keeps the pass
 * cheap and keeps nothing alive that a record does not hold.
 */

type Members = Record<string, unknown>;

const isObject = (value: unknown): value is Members => typeof value === "object" && value !== null;

/**
 * Gives `record` the strings of `neighbour` (then of `second`, and `id`) that it holds equal copies of; nested
 * objects too.
 */
export function shareStrings(record: unknown, neighbour: unknown, id?: string, second?: unknown): void {
  if (!isObject(record)) return;
  const one = isObject(neighbour) ? neighbour : undefined;
  const two = isObject(second) ? second : undefined;
  for (const key in record) {
    const value = record[key];
    if (typeof value === "string") {
      if (value === id) record[key] = id;
      else if (one !== undefined && value === one[key]) record[key] = one[key];
      else if (two !== undefined && value === two[key]) record[key] = two[key];
    } else if (isObject(value) && (one !== undefined || two !== undefined)) shareStrings(value, one?.[key], undefined, two?.[key]);
  }
}

/** Shares strings within each collection of freshly loaded records, each record with the two before it. */
export function shareLoadedStrings(collections: Iterable<Record<string, unknown>>): void {
  for (const records of collections) {
    let previous: unknown;
    let beforePrevious: unknown;
    for (const id in records) {
      const record = records[id];
      shareStrings(record, previous, id, beforePrevious);
      beforePrevious = previous;
      previous = record;
    }
  }
}
