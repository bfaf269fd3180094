/**
 * Indexes of one collection's committed records in one project: lookups by a
 * declared key (an account's name) and the records in a declared order (list
 * pages), so neither scans the collection. Built from the records on first
 * use, then kept up to date by every commit (`update`), so a lookup or a page
 * costs the same with ten records or a hundred thousand.
 */
import type { CollectionOf } from "./collections.js";

export class CollectionIndexes<T> {
  private readonly byKey = new Map<string, Map<string, Set<string>>>();
  /** Ids in the declared order (ties broken by id), when the collection declares one. */
  private readonly ordered: string[] | undefined;

  constructor(
    private readonly of: CollectionOf<T>,
    private readonly records: () => Record<string, T>,
  ) {
    const all = records();
    for (const [index, keyOf] of Object.entries(of.indexes ?? {})) {
      const map = new Map<string, Set<string>>();
      for (const id in all) add(map, keyOf(all[id]!), id);
      this.byKey.set(index, map);
    }
    if (of.order) this.ordered = Object.keys(all).sort((a, b) => this.compare(all[a]!, a, all[b]!, b));
  }

  private compare(a: T, aId: string, b: T, bId: string): number {
    return this.of.order!(a, b) || (aId < bId ? -1 : aId > bId ? 1 : 0);
  }

  /** Ids of the committed records whose `index` key is `key`. */
  lookup(index: string, key: string): ReadonlySet<string> {
    const map = this.byKey.get(index);
    if (!map) throw new Error(`collection ${this.of.name} declares no index ${index}`);
    return map.get(key) ?? EMPTY;
  }

  /** The ids of a page of the committed records in the declared order. */
  page(offset: number, size: number, descending: boolean): string[] {
    if (!this.ordered) throw new Error(`collection ${this.of.name} declares no order`);
    if (!descending) return this.ordered.slice(offset, offset + size);
    const end = this.ordered.length - offset;
    return this.ordered.slice(Math.max(0, end - size), Math.max(0, end)).reverse();
  }

  get size(): number {
    return this.ordered?.length ?? Object.keys(this.records()).length;
  }

  /** Called by a commit for every record it writes, before the record changes (`after` undefined: deleted). */
  update(id: string, before: T | undefined, after: T | undefined): void {
    for (const [index, keyOf] of Object.entries(this.of.indexes ?? {})) {
      const map = this.byKey.get(index)!;
      if (before !== undefined) remove(map, keyOf(before), id);
      if (after !== undefined) add(map, keyOf(after), id);
    }
    if (!this.ordered) return;
    if (before !== undefined) {
      const at = this.position(before, id);
      if (this.ordered[at] === id) this.ordered.splice(at, 1);
    }
    if (after !== undefined) this.ordered.splice(this.position(after, id), 0, id);
  }

  /** Where `record` (with `id`) stands, or would stand, in the order: binary search. */
  private position(record: T, id: string): number {
    const all = this.records();
    let low = 0;
    let high = this.ordered!.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const otherId = this.ordered![mid]!;
      // The record being moved is compared by the values it had, which the caller passes in.
      const other = otherId === id ? record : all[otherId]!;
      if (this.compare(other, otherId, record, id) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function add(map: Map<string, Set<string>>, key: string | undefined, id: string): void {
  if (key === undefined) return;
  let ids = map.get(key);
  if (!ids) {
    ids = new Set();
    map.set(key, ids);
  }
  ids.add(id);
}

function remove(map: Map<string, Set<string>>, key: string | undefined, id: string): void {
  if (key === undefined) return;
  const ids = map.get(key);
  ids?.delete(id);
  if (ids?.size === 0) map.delete(key);
}
