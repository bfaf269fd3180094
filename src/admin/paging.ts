import type { Collection } from "../store/store.js";

/** The paging parameters of the admin API's lists, as the URL carries them (the document has checked they are integers). */
const DEFAULT_LIMIT = 50;

const numberOf = (value: string | string[] | undefined): number | undefined => {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === "" ? undefined : Number(text);
};

export function pageOf(query: { offset?: string | string[]; limit?: string | string[] }): { offset: number; limit: number } {
  return { offset: numberOf(query.offset) ?? 0, limit: numberOf(query.limit) ?? DEFAULT_LIMIT };
}

/** A query parameter as one string (the first, when the name repeats). */
export const textOf = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export const integerOf = numberOf;

/** How many records a collection holds, walked without copying them (for collections that declare no order). */
export function countOf<T>(c: { filter(predicate: (record: T) => boolean): T[] }): number {
  let n = 0;
  c.filter(() => {
    n++;
    return false;
  });
  return n;
}

/**
 * A page of a collection in creation order: without `needle` read from the order index (the account collections
 * declare one), else from the records it matches.
 */
export function pageMatching<T extends { createdAt: string }>(
  c: Collection<T>,
  offset: number,
  limit: number,
  needle: string | undefined,
  text: (r: Readonly<T>) => string[],
) {
  if (!needle) return c.page(offset, limit);
  const all = c.filter((r) => text(r).some((s) => s.toLowerCase().includes(needle))).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return { items: all.slice(offset, offset + limit), total: all.length };
}
