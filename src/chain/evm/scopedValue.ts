/**
 * A value set for the length of one piece of async work under a scope (a request's store transaction), then put
 * back as it was: the EVM's time budget and its revert collector are each kept so, nested calls included.
 */
export async function withScopedValue<V, T>(values: WeakMap<object, V>, scope: object, value: V, work: () => Promise<T> | T): Promise<T> {
  const outer = values.get(scope);
  values.set(scope, value);
  try {
    return await work();
  } finally {
    if (outer) values.set(scope, outer);
    else values.delete(scope);
  }
}
