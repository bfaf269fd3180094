/**
 * The Bazaar's discovery operations over the project's index: list (by
 * type, limit/offset), resources of one merchant (payTo), search (free text
 * plus payment and catalogue filters) and the curated bundles.
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Handler, HandlerContext, QueryParams } from "../../wallet/types.js";
import { activeResources, bundleSlugsFor, isCurated, onNetwork, paysTo, resourceView, qualityOf, usdPrice } from "./bazaar.js";
import { bazaarResources, bundles, type BazaarResource, type Bundle } from "./model.js";

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const many = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

type SearchQuery = QueryParams<"searchX402Resources">;

function window(query: Pick<QueryParams<"listX402DiscoveryResources">, "limit" | "offset">, defaultLimit: number) {
  const limit = one(query.limit) === undefined ? defaultLimit : Number(one(query.limit));
  const offset = one(query.offset) === undefined ? 0 : Number(one(query.offset));
  if (!Number.isInteger(limit) || limit < 1) throw apiError("invalid_request", `limit must be a positive integer, got ${String(one(query.limit))}.`);
  if (!Number.isInteger(offset) || offset < 0)
    throw apiError("invalid_request", `offset must be zero or a positive integer, got ${String(one(query.offset))}.`);
  return { limit, offset };
}

export const listX402DiscoveryResources: Handler<"listX402DiscoveryResources"> = (req, ctx) => {
  const { limit, offset } = window(req.query, 100);
  const type = one(req.query.type);
  const all = activeResources(ctx).filter((r) => type === undefined || r.type === type);
  return {
    status: 200,
    body: { x402Version: 2, items: all.slice(offset, offset + limit).map((r) => resourceView(ctx, r)), pagination: { limit, offset, total: all.length } },
  };
};

export const listX402DiscoveryMerchant: Handler<"listX402DiscoveryMerchant"> = (req, ctx) => {
  const { limit, offset } = window(req.query, 20);
  const payTo = String(one(req.query.payTo));
  const all = activeResources(ctx).filter((r) => paysTo(r, payTo));
  return {
    status: 200,
    body: {
      x402Version: 2,
      payTo,
      resources: all.slice(offset, offset + limit).map((r) => resourceView(ctx, r)),
      pagination: { limit, offset, total: all.length },
    },
  };
};

/** The words a resource can be found by: URL, description, service, tags, MCP tool and the discovery info. */
function haystack(r: BazaarResource): string {
  const bazaar = (r.extensions?.bazaar ?? {}) as { info?: unknown };
  return [r.resource, r.description, r.serviceName, r.tool, ...(r.tags ?? []), JSON.stringify(bazaar.info ?? "")].filter(Boolean).join(" ").toLowerCase();
}

function matchesFilters(ctx: HandlerContext, r: BazaarResource, q: SearchQuery): boolean {
  const options = r.accepts.filter(
    (a) =>
      (one(q.network) === undefined || onNetwork(a, one(q.network)!)) &&
      (one(q.asset) === undefined || String(a.asset).toLowerCase() === one(q.asset)!.toLowerCase()) &&
      (one(q.scheme) === undefined || a.scheme === one(q.scheme)) &&
      (one(q.maxUsdPrice) === undefined || (usdPrice(a) ?? Number.POSITIVE_INFINITY) <= Number(one(q.maxUsdPrice))),
  );
  if (options.length === 0) return false;
  if (one(q.payTo) !== undefined && !paysTo(r, one(q.payTo)!)) return false;
  if (one(q.urlSubstring) !== undefined && !r.resource.toLowerCase().includes(one(q.urlSubstring)!.toLowerCase())) return false;
  if (many(q.extensions).some((e) => !(e in (r.extensions ?? {})))) return false;
  const tags = many(q.tags).map((t) => t.toLowerCase());
  if (tags.length && !(r.tags ?? []).some((t) => tags.includes(t.toLowerCase()))) return false;
  const wantedBundles = many(q.bundleSlugs);
  if (wantedBundles.length && !bundleSlugsFor(ctx, r).some((b) => wantedBundles.includes(b))) return false;
  if (one(q.curatedOnly) === "true" && !isCurated(ctx, r)) return false;
  return true;
}

/** Search as the Bazaar's text ranking does it here: more query words matched first, then more paid calls, then recency. */
export function searchResources(ctx: HandlerContext, query: SearchQuery): Schema<"x402DiscoveryResource">[] {
  const maxUsd = one(query.maxUsdPrice);
  if (maxUsd !== undefined && !/^[0-9]+(\.[0-9]+)?$/.test(maxUsd))
    throw apiError("invalid_request", `maxUsdPrice must be a decimal number of dollars such as "0.01", got "${maxUsd}".`);
  const limit = one(query.limit) === undefined ? 20 : Number(one(query.limit));
  const words = (one(query.query) ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const ranked = activeResources(ctx)
    .filter((r) => matchesFilters(ctx, r, query))
    .map((r) => {
      const text = haystack(r);
      return { r, hits: words.filter((w) => text.includes(w)).length, calls: qualityOf(ctx, r.key)?.l30DaysTotalCalls ?? 0 };
    })
    .filter((x) => words.length === 0 || x.hits > 0)
    .sort((a, b) => b.hits - a.hits || b.calls - a.calls || b.r.lastUpdatedMs - a.r.lastUpdatedMs);
  return ranked.slice(0, limit).map((x) => resourceView(ctx, x.r));
}

export const searchX402Resources: Handler<"searchX402Resources"> = (req, ctx) => ({
  status: 200,
  body: { x402Version: 2, partialResults: false, searchMethod: "text", resources: searchResources(ctx, req.query) },
});

const bundleView = (b: Bundle): Schema<"x402Bundle"> => ({ slug: b.slug, name: b.name, ...(b.description ? { description: b.description } : {}) });

export const listX402Bundles: Handler<"listX402Bundles"> = (_req, ctx) => ({
  status: 200,
  body: {
    bundles: bundles(ctx.store)
      .list()
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.slug.localeCompare(b.slug))
      .map(bundleView),
  },
});

export const getX402Bundle: Handler<"getX402Bundle"> = (req, ctx) => {
  const slug = req.pathParams.bundleSlug;
  const bundle = bundles(ctx.store).get(slug);
  if (!bundle) throw apiError("not_found", `No bundle has the slug ${slug}; GET /v2/x402/discovery/bundles lists them.`);
  const members = bundle.resources
    .map((key) => bazaarResources(ctx.store).get(key) ?? bazaarResources(ctx.store).find((r) => r.resource === key))
    .filter((r): r is BazaarResource => r?.active === true);
  return { status: 200, body: { ...bundleView(bundle), resources: members.map((r) => resourceView(ctx, r)) } };
};
