/**
 * A collection of records, declared once beside its record type by the layer
 * that owns it, and passed to `tx.collection(...)`: the name and the type can
 * no longer drift apart between two places that read the same records.
 * A declaration may name indexes (lookups by a key, e.g. an account's name)
 * an order (list pages) and a due time (work the clock makes due): the store
 * keeps them up to date, so none scans the collection (indexes.ts).
 *
 * @example
 *   export const EVM_ACCOUNTS = declareCollection<EvmAccountRecord>("evmAccounts", {
 *     indexes: { name: (a) => a.name },
 *     order: (a, b) => a.createdAt.localeCompare(b.createdAt),
 *   });
 *   const record = tx.collection(EVM_ACCOUNTS).findBy("name", "treasury");
 *
 * A record may be found under several keys of one index (an end user under
 * each identity it signs in with): its key function returns them all.
 */
export interface CollectionOf<T> {
  readonly name: string;
  /** Index name → the key, or keys, a record is found under (undefined: not in the index). */
  readonly indexes?: Readonly<Record<string, IndexKey<T>>>;
  /** The order of list pages (ties are broken by id), or "insertion": the order records were first written in. */
  readonly order?: ((a: T, b: T) => number) | "insertion";
  /**
   * When the sandbox clock makes the record due for work of its own (a transfer settling, an order moving on),
   * in ms; undefined when nothing is due. The store keeps the records by this time, so asking whether anything is
   * due (before every request) costs the same however many records there are.
   */
  readonly dueAt?: (record: T) => number | undefined;
  /** Never set: it only carries the record type. */
  readonly record?: T;
}

/** The key, or keys, a record is found under in one index. */
export type IndexKey<T> = (record: T) => string | readonly string[] | undefined;

/** Whether `record` is found under `key` in the index `keyOf`. */
/** Every key a record is found under in one index (none, one, or several). */
export function keysOf<T>(keyOf: IndexKey<T>, record: T): readonly string[] {
  const keys = keyOf(record);
  return typeof keys === "string" ? [keys] : (keys ?? []);
}

export function hasIndexKey<T>(keyOf: IndexKey<T>, record: T, key: string): boolean {
  const keys = keyOf(record);
  return typeof keys === "string" ? keys === key : keys?.includes(key) === true;
}

/**
 * The due time of each collection name, as declared: the data file's index (dataIndex.ts) records each collection's
 * earliest due time with it, so the check before every request does not parse a collection the start left unread.
 * A name declared twice with different due times (tests do) has none here: its collections are then parsed to check.
 */
const dueAtByName = new Map<string, ((record: never) => number | undefined) | null>();

export const declareCollection = <T>(name: string, options: Pick<CollectionOf<T>, "indexes" | "order" | "dueAt"> = {}): CollectionOf<T> => {
  if (options.dueAt) {
    const known = dueAtByName.get(name);
    dueAtByName.set(name, known === undefined || known === options.dueAt ? options.dueAt : null);
  }
  return { name, ...options };
};

/** The due time declared for the collection `name`, when one declaration says it. */
export function declaredDueAt(name: string): ((record: unknown) => number | undefined) | undefined {
  return (dueAtByName.get(name) ?? undefined) as ((record: unknown) => number | undefined) | undefined;
}
