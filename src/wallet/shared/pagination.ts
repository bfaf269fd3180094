/**
 * List pagination as the platform does it: `pageSize` (default 20) and an
 * opaque `pageToken` taken from the previous page's `nextPageToken`, which is
 * absent on the last page. Our token encodes the offset and the list it
 * belongs to, so a token from another list is refused instead of misread.
 */
import { apiError } from "../../errors/catalogue.js";

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

/** The paging parameters of a list operation's query, as the URL carries them (a repeated name gives a list). */
export interface PageQuery {
  readonly pageSize?: string | string[];
  readonly pageToken?: string | string[];
}

export interface Page<T> {
  items: T[];
  nextPageToken?: string;
}

function readToken(token: string, list: string): number {
  try {
    const decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { l?: unknown; o?: unknown };
    if (decoded.l === list && typeof decoded.o === "number" && Number.isInteger(decoded.o) && decoded.o >= 0) return decoded.o;
  } catch {
    // fall through to the error below
  }
  throw apiError("invalid_request", `pageToken is not a token from this list; pass the nextPageToken of the previous page unchanged.`);
}

/** The offset and size a list request asks for, checked. */
function pageOf(query: PageQuery, list: string): { offset: number; size: number } {
  const rawSize = query.pageSize;
  const size = rawSize === undefined ? DEFAULT_PAGE_SIZE : Number(rawSize);
  if (!Number.isInteger(size) || size < 1) throw apiError("invalid_request", "pageSize must be a positive integer.");
  const token = query.pageToken;
  return { offset: typeof token === "string" && token !== "" ? readToken(token, list) : 0, size: Math.min(size, MAX_PAGE_SIZE) };
}

const nextToken = (list: string, next: number) => Buffer.from(JSON.stringify({ l: list, o: next })).toString("base64url");

/**
 * @example paginate(accounts, req.query, "evm-accounts") // → { items, nextPageToken? }
 */
export function paginate<T>(all: T[], query: PageQuery, list: string): Page<T> {
  const { offset, size } = pageOf(query, list);
  const items = all.slice(offset, offset + size);
  const next = offset + size;
  return next < all.length ? { items, nextPageToken: nextToken(list, next) } : { items };
}

/**
 * A filtered page read from a collection in its declared order: only the page is copied, and the read stops at
 * the first match after it.
 *
 * @example paginateWhere((offset, size) => transfers(ctx.store).pageWhere(offset, size, matches), req.query, "transfers")
 */
export function paginateWhere<T>(read: (offset: number, size: number) => { items: T[]; more: boolean }, query: PageQuery, list: string): Page<T> {
  const { offset, size } = pageOf(query, list);
  const { items, more } = read(offset, size);
  return more ? { items, nextPageToken: nextToken(list, offset + size) } : { items };
}

/**
 * A page read from a collection in its declared order, copying only that page: its cost does not grow with the
 * collection. Tokens stay valid while records are added (they come last in the order).
 *
 * @example paginatePages((offset, size) => evmAccounts(ctx.store).page(offset, size), req.query, "evm-accounts")
 */
export function paginatePages<T>(read: (offset: number, size: number) => { items: T[]; total: number }, query: PageQuery, list: string): Page<T> {
  const { offset, size } = pageOf(query, list);
  const { items, total } = read(offset, size);
  const next = offset + size;
  return next < total ? { items, nextPageToken: nextToken(list, next) } : { items };
}
