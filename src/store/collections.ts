/**
 * A collection of records, declared once beside its record type by the layer
 * that owns it, and passed to `tx.collection(...)`: the name and the type can
 * no longer drift apart between two places that read the same records.
 * A declaration may name indexes (lookups by a key, e.g. an account's name)
 * and an order (list pages): the store keeps both up to date, so neither
 * scans the collection (indexes.ts).
 *
 * @example
 *   export const EVM_ACCOUNTS = declareCollection<EvmAccountRecord>("evmAccounts", {
 *     indexes: { name: (a) => a.name },
 *     order: (a, b) => a.createdAt.localeCompare(b.createdAt),
 *   });
 *   const record = tx.collection(EVM_ACCOUNTS).findBy("name", "treasury");
 */
export interface CollectionOf<T> {
  readonly name: string;
  /** Index name → the key a record is found under (undefined: not in the index). */
  readonly indexes?: Readonly<Record<string, (record: T) => string | undefined>>;
  /** The order of list pages (ties are broken by id). */
  readonly order?: (a: T, b: T) => number;
  /** Never set: it only carries the record type. */
  readonly record?: T;
}

export const declareCollection = <T>(name: string, options: Pick<CollectionOf<T>, "indexes" | "order"> = {}): CollectionOf<T> => ({ name, ...options });
