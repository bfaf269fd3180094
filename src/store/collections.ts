/**
 * A collection of records, declared once beside its record type by the layer
 * that owns it, and passed to `tx.collection(...)`: the name and the type can
 * no longer drift apart between two places that read the same records.
 *
 * @example
 *   export const EVM_ACCOUNTS = declareCollection<EvmAccountRecord>("evmAccounts");
 *   const record = tx.collection(EVM_ACCOUNTS).get(address);
 */
export interface CollectionOf<T> {
  readonly name: string;
  /** Never set: it only carries the record type. */
  readonly record?: T;
}

export const declareCollection = <T>(name: string): CollectionOf<T> => ({ name });
