/**
 * Records of one kind repeat most of their values: the same network, status, asset, account id, subscription or
 * event payload, record after record. `JSON.parse` (and `structuredClone`, which every write goes through) makes a
 * new string for each occurrence, so a large state held each value once per record: at 400,000 records over a third
 * of the heap was strings equal to one in the record before. A record here takes, for each string member equal to
 * its neighbour's (the record before it in its collection, or the version it replaces), the neighbour's string, and
 * for a member equal to its own id, the id the collection is keyed by; the copies become garbage.
 *
 * Strings are values: a record reads the same whichever copy it holds, so nothing else changes. Only members are
 * compared with the neighbour's member of the same name (no table of every value seen), which keeps the pass cheap
 * (a comparison of different strings stops at the first differing character) and keeps nothing alive that a
 * record does not hold.
 */

type Members = Record<string, unknown>;

const isObject = (value: unknown): value is Members => typeof value === "object" && value !== null;

/** Gives `record` the strings of `neighbour` (and `id`) that it holds equal copies of; nested objects too. */
export function shareStrings(record: unknown, neighbour: unknown, id?: string): void {
  if (!isObject(record)) return;
  const other = isObject(neighbour) ? neighbour : undefined;
  for (const key in record) {
    const value = record[key];
    if (typeof value === "string") {
      if (value === id) record[key] = id;
      else if (other !== undefined && value === other[key]) record[key] = other[key];
    } else if (other !== undefined && isObject(value)) shareStrings(value, other[key]);
  }
}

/** Shares strings within each collection of freshly loaded records, each record with the one before it. */
export function shareLoadedStrings(collections: Iterable<Record<string, unknown>>): void {
  for (const records of collections) {
    let previous: unknown;
    for (const id in records) {
      const record = records[id];
      shareStrings(record, previous, id);
      previous = record;
    }
  }
}
