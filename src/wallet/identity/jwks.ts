/**
 * The key sets of custom authentication fetched from a project's `jwksUrl`, cached per URL. A fetch is never made
 * while a project's lock is held: the pipeline calls `prepareJwks` before it takes the lock (and the bearer check
 * runs before it too); verifying then reads the cache only. A fetch waits at most FETCH_TIMEOUT_MS. A URL is
 * fetched again at most once per REFETCH_INTERVAL_MS: a JWT naming a `kid` the set lacks (a rotated key, or a
 * stream of made-up ones) triggers one refetch, not one per request. Wall-clock time: the fetches are real.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { apiError } from "../../errors/catalogue.js";

const FETCH_TIMEOUT_MS = 2_000;
const REFETCH_INTERVAL_MS = 30_000;
const MAX_URLS = 64;
const MAX_JWKS_BYTES = 256 * 1024;

interface CachedSet {
  keys?: JWTVerifyGetKey;
  kids: Set<string>;
  lastAttemptMs: number;
  /** The fetch in flight: concurrent requests wait for the same one. */
  pending?: Promise<void>;
}

const cache = new Map<string, CachedSet>();

async function fetchJwks(url: string): Promise<JSONWebKeySet> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "error" });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_JWKS_BYTES) throw new Error(`${url} answered more than ${MAX_JWKS_BYTES} bytes`);
  const body = JSON.parse(text) as JSONWebKeySet;
  if (!Array.isArray(body?.keys)) throw new Error(`${url} did not answer a JWKS ({ keys: [...] })`);
  return body;
}

/**
 * Makes sure the cache holds `url`'s key set and, if it can, the key `kid`: fetches when nothing is cached, or when
 * `kid` is missing and the last fetch is older than the refetch interval. Never throws: a failed fetch leaves the
 * cache as it was, and verifying then refuses the JWT.
 */
export async function prepareJwks(url: string, kid: string | undefined, wallNowMs = Date.now()): Promise<void> {
  let entry = cache.get(url);
  if (entry?.pending) return entry.pending;
  if (entry?.keys && (kid === undefined || entry.kids.has(kid))) return;
  if (entry && wallNowMs - entry.lastAttemptMs < REFETCH_INTERVAL_MS) return;
  if (!entry) {
    if (cache.size >= MAX_URLS) cache.delete(cache.keys().next().value!);
    entry = { kids: new Set(), lastAttemptMs: wallNowMs };
    cache.set(url, entry);
  }
  const target = entry;
  target.lastAttemptMs = wallNowMs;
  target.pending = fetchJwks(url)
    .then((jwks) => {
      target.keys = createLocalJWKSet(jwks);
      target.kids = new Set(jwks.keys.map((k) => k.kid).filter((k): k is string => typeof k === "string"));
    })
    .catch(() => undefined)
    .finally(() => {
      target.pending = undefined;
    });
  return target.pending;
}

/** The cached key set of `url`, for verifying; refused (401) when none could be fetched. */
export function cachedJwks(url: string): JWTVerifyGetKey {
  const keys = cache.get(url)?.keys;
  if (!keys) throw apiError("unauthorized", `The JWKS at ${url} could not be fetched (within ${FETCH_TIMEOUT_MS} ms); try again later.`);
  return keys;
}
