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
