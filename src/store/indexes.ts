/**
 * Indexes of one collection's committed records in one project: lookups by a
 * declared key (an account's name) and the records in a declared order (list
 * pages), so neither scans the collection. Built from the records on first
 * use, then kept up to date by every commit (`update`), so a lookup or a page
 * costs the same with ten records or a hundred thousand.
 */
import type { CollectionOf } from "./collections.js";

/**
 * The ids under one key: most keys (an account's name, an address) find one record, held as its id alone; a Set
 * only once a second record shares the key (a Set of one cost ~150 bytes, 15 MB for 100,000 named accounts).
 */
type Ids = string | Set<string>;

export class CollectionIndexes<T> {
  private readonly byKey = new Map<string, Map<string, Ids>>();
  /** Ids in the declared order (ties broken by id), when the collection declares one. */
  private readonly ordered: string[] | undefined;
  /**
   * The records that are due at some time, earliest first (ties by id), when declared: their due times and ids in two
   * arrays side by side. A pair array for each record cost ~80 B (the pair, its elements, the boxed time), a record
   * of the duplicate-effect window per signed send; a time in a list of numbers is 8 B.
   */
  private readonly due: { at: number[]; ids: string[] } | undefined;
  /**
   * Every id in the records object's own key order. Listing the keys of a large object is slow in V8 (one in
   * dictionary mode: ~1 µs a key, 0.25–0.75 s for 200,000 balances), and every scan of a collection (a supply, a
   * holder's balances) began with it. Kept by appending; dropped, to be listed again, when
   * appending would not keep the object's order: a delete, or an id that is an array index (objects list those first).
   */
  private all: string[] | undefined;
  /** The declared indexes, listed once: `update` runs on every write of a collection whose indexes are built. */
  private readonly keyed: ReadonlyArray<[string, (record: T) => string | readonly string[] | undefined]>;

  constructor(
    private readonly of: CollectionOf<T>,
    private readonly records: () => Record<string, T>,
  ) {
    const all = records();
    // The keys are listed once, for every index built here (each listing of a large object is slow: see `all`),
    // and each record is looked up once: in a large object every lookup is a hash probe, and a sort that looked up
    // both records at each of its ~1.7 million comparisons (100,000 accounts) spent more there than comparing.
    const ids = Object.keys(all);
    this.all = ids;
    const values = ids.map((id) => all[id]!);
    this.keyed = Object.entries(of.indexes ?? {});
    for (const [index, keyOf] of this.keyed) {
      const map = new Map<string, Ids>();
      for (let i = 0; i < ids.length; i++) add(map, keyOf(values[i]!), ids[i]!);
      this.byKey.set(index, map);
    }
    // Insertion order is the records' own key order (string keys keep it, through JSON and the log alike).
    if (of.order === "insertion") this.ordered = [...ids];
    else if (of.order) {
      const positions = ids.map((_, i) => i).sort((a, b) => this.compare(values[a]!, ids[a]!, values[b]!, ids[b]!));
      this.ordered = positions.map((i) => ids[i]!);
    }
    if (of.dueAt) {
      const pairs: Array<[number, string]> = [];
      for (let i = 0; i < ids.length; i++) {
        const at = of.dueAt(values[i]!);
        if (at !== undefined) pairs.push([at, ids[i]!]);
      }
      pairs.sort(compareDue);
      this.due = { at: pairs.map(([at]) => at), ids: pairs.map(([, id]) => id) };
    }
  }

  /** The earliest due time of any committed record, or undefined when none is due at any time. */
  earliestDue(): number | undefined {
    if (!this.due) throw new Error(`collection ${this.of.name} declares no due time`);
    return this.due.at[0];
  }

  /** Ids of the committed records due by `nowMs`, earliest first. */
  dueBy(nowMs: number): string[] {
    if (!this.due) throw new Error(`collection ${this.of.name} declares no due time`);
    const { at, ids } = this.due;
    let count = 0;
    while (count < at.length && at[count]! <= nowMs) count++;
    return ids.slice(0, count);
  }

  private compare(a: T, aId: string, b: T, bId: string): number {
    return (this.of.order as (a: T, b: T) => number)(a, b) || (aId < bId ? -1 : aId > bId ? 1 : 0);
  }

  /** Ids of the committed records whose `index` key is `key`. */
  lookup(index: string, key: string): Iterable<string> {
    const map = this.byKey.get(index);
    if (!map) throw new Error(`collection ${this.of.name} declares no index ${index}`);
    const ids = map.get(key);
    return ids === undefined ? NONE : typeof ids === "string" ? [ids] : ids;
  }

  /** The ids of the committed records in the declared order, from the end when `descending` (not a copy: never change it). */
  orderedIds(): readonly string[] {
    if (!this.ordered) throw new Error(`collection ${this.of.name} declares no order`);
    return this.ordered;
  }

  /** The ids of a page of the committed records in the declared order. */
  page(offset: number, size: number, descending: boolean): string[] {
    if (!this.ordered) throw new Error(`collection ${this.of.name} declares no order`);
    if (!descending) return this.ordered.slice(offset, offset + size);
    const end = this.ordered.length - offset;
    return this.ordered.slice(Math.max(0, end - size), Math.max(0, end)).reverse();
  }

  /** Every committed id, in the records object's own order (not a copy: never change it). */
  ids(): readonly string[] {
    this.all ??= Object.keys(this.records());
    return this.all;
  }

  get size(): number {
    return this.ordered?.length ?? this.ids().length;
  }

  /** Called by a commit for every record it writes, before the record changes (`after` undefined: deleted). */
  update(id: string, before: T | undefined, after: T | undefined): void {
    if (this.all && before === undefined && after !== undefined && !ARRAY_INDEX.test(id)) this.all.push(id);
    else if (this.all && (before === undefined) !== (after === undefined)) this.all = undefined;
    for (const [index, keyOf] of this.keyed) {
      const map = this.byKey.get(index)!;
      if (before !== undefined) remove(map, keyOf(before), id);
      if (after !== undefined) add(map, keyOf(after), id);
    }
    if (this.due) {
      const dueBefore = before === undefined ? undefined : this.of.dueAt!(before);
      const dueAfter = after === undefined ? undefined : this.of.dueAt!(after);
      if (dueBefore !== undefined) {
        const at = dueSearch(this.due, dueBefore, id);
        if (this.due.ids[at] === id) {
          this.due.at.splice(at, 1);
          this.due.ids.splice(at, 1);
        }
      }
      if (dueAfter !== undefined) {
        const at = dueSearch(this.due, dueAfter, id);
        this.due.at.splice(at, 0, dueAfter);
        this.due.ids.splice(at, 0, id);
      }
    }
    if (!this.ordered) return;
    if (this.of.order === "insertion") {
      // A record keeps its place when it changes; a new one comes last; a deleted one leaves (rare: a scan).
      if (before === undefined && after !== undefined) this.ordered.push(id);
      else if (before !== undefined && after === undefined) this.ordered.splice(this.ordered.indexOf(id), 1);
      return;
    }
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

const NONE: readonly string[] = [];

/** Keys an object may list first, in numeric order: canonical integers below 2^32 − 1 (matched broadly: up to 10 digits). */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

function add(map: Map<string, Ids>, keys: string | readonly string[] | undefined, id: string): void {
  for (const key of typeof keys === "string" ? [keys] : (keys ?? [])) {
    const ids = map.get(key);
    if (ids === undefined || ids === id) map.set(key, id);
    else if (typeof ids === "string") map.set(key, new Set([ids, id]));
    else ids.add(id);
  }
}

function remove(map: Map<string, Ids>, keys: string | readonly string[] | undefined, id: string): void {
  for (const key of typeof keys === "string" ? [keys] : (keys ?? [])) {
    const ids = map.get(key);
    if (ids === id) map.delete(key);
    else if (typeof ids !== "string" && ids !== undefined) {
      ids.delete(id);
      if (ids.size === 1) map.set(key, ids.values().next().value as string);
    }
  }
}

function compareDue(a: [number, string], b: [number, string]): number {
  return a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
}

/** Where (`at`, `id`) stands, or would stand, in `due`: binary search. */
function dueSearch(due: { at: number[]; ids: string[] }, at: number, id: string): number {
  let low = 0;
  let high = due.at.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const midAt = due.at[mid]!;
    if (midAt < at || (midAt === at && due.ids[mid]! < id)) low = mid + 1;
    else high = mid;
  }
  return low;
}
