/**
 * The Bazaar index of the project: resources catalogued from settlements and
 * validations, how the discovery operations show them (with usage figures of
 * the last 30 days of sandbox time, bundle membership and curation), and the
 * filters of search.
 */
import { evmTokenByAddress } from "../../chain/evm/index.js";
import { solanaTokenByMint } from "../../chain/solana/index.js";
import type { Schema } from "../../contract/types.js";
import type { HandlerContext } from "../../wallet/types.js";
import type { Catalogued } from "./bazaarExtension.js";
import { bazaarResources, bundles, settlements, type BazaarResource, type Requirements } from "./model.js";
import { x402Network } from "./networks.js";

const THIRTY_DAYS_MS = 30 * 24 * 3600_000;

const sameRequirementsSlot = (a: Requirements, b: Requirements) =>
  a.scheme === b.scheme && a.network === b.network && String(a.asset).toLowerCase() === String(b.asset).toLowerCase();

/** Adds or refreshes a resource; the payment options it is seen with replace those of the same scheme, network and asset. */
export function catalogue(ctx: HandlerContext, entry: Catalogued, crawled: boolean): BazaarResource {
  const existing = bazaarResources(ctx.store).get(entry.key);
  const accepts = [...(existing?.accepts ?? [])];
  for (const r of entry.accepts) {
    const at = accepts.findIndex((a) => sameRequirementsSlot(a, r));
    if (at >= 0) accepts[at] = r;
    else accepts.push(r);
  }
  const record: BazaarResource = {
    ...existing,
    ...Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)),
    accepts,
    lastUpdatedMs: ctx.clock.now(),
    lastCrawledMs: crawled ? ctx.clock.now() : existing?.lastCrawledMs,
    active: true,
  } as BazaarResource;
  bazaarResources(ctx.store).put(record.key, record);
  return record;
}

/** Usage of a resource over the last 30 days of sandbox time, from its settlements. */
export function qualityOf(ctx: HandlerContext, key: string) {
  const since = ctx.clock.now() - THIRTY_DAYS_MS;
  const paid = settlements(ctx.store).filter((s) => s.resourceKey === key && s.atMs > since);
  if (paid.length === 0) return undefined;
  return {
    l30DaysTotalCalls: paid.length,
    l30DaysUniquePayers: new Set(paid.map((s) => s.payer)).size,
    lastCalledAt: new Date(Math.max(...paid.map((s) => s.atMs))).toISOString(),
  };
}

/** Bundles a resource belongs to, in slug order; a resource in a bundle is curated. */
function bundleSlugsOf(ctx: HandlerContext, r: BazaarResource): string[] {
  return bundles(ctx.store)
    .list()
    .filter((b) => b.resources.includes(r.key) || b.resources.includes(r.resource))
    .map((b) => b.slug)
    .sort();
}

/** A resource as the discovery operations show it: fields the index does not have are left out. */
export function resourceView(ctx: HandlerContext, r: BazaarResource): Schema<"x402DiscoveryResource"> {
  const bundleSlugs = bundleSlugsOf(ctx, r);
  const quality = qualityOf(ctx, r.key);
  return {
    resource: r.resource,
    ...(r.description !== undefined ? { description: r.description } : {}),
    type: r.type,
    x402Version: r.x402Version,
    lastUpdated: new Date(r.lastUpdatedMs).toISOString(),
    // Kept as received, after the contract's checks (a settled payment's) or requirementsProblem's (a probed 402's).
    accepts: r.accepts as Schema<"x402PaymentRequirements">[],
    ...(r.extensions !== undefined ? { extensions: r.extensions } : {}),
    ...(quality !== undefined ? { quality } : {}),
    ...(r.serviceName !== undefined ? { serviceName: r.serviceName } : {}),
    ...(r.tags !== undefined ? { tags: r.tags } : {}),
    ...(bundleSlugs.length ? { bundleSlugs } : {}),
    ...(r.iconUrl !== undefined ? { iconUrl: r.iconUrl } : {}),
    curated: bundleSlugs.length > 0,
  };
}

/** Active resources, most recently updated first (ties by URL, so pages are stable). */
export function activeResources(ctx: HandlerContext): BazaarResource[] {
  return bazaarResources(ctx.store)
    .filter((r) => r.active)
    .sort((a, b) => b.lastUpdatedMs - a.lastUpdatedMs || a.key.localeCompare(b.key));
}

export function isCurated(ctx: HandlerContext, r: BazaarResource): boolean {
  return bundleSlugsOf(ctx, r).length > 0;
}

export function bundleSlugsFor(ctx: HandlerContext, r: BazaarResource): string[] {
  return bundleSlugsOf(ctx, r);
}

const sameAddress = (a: string, b: string) => (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Whether any payment option of the resource pays `payTo`. */
export const paysTo = (r: BazaarResource, payTo: string) => r.accepts.some((a) => typeof a.payTo === "string" && sameAddress(a.payTo, payTo));

/** Whether an option is on `network`, written as a v1 name or a CAIP-2 id. */
export function onNetwork(a: Requirements, network: string): boolean {
  const wanted = x402Network(network);
  const actual = x402Network(String(a.network));
  return wanted && actual ? wanted === actual : a.network === network;
}

/** The option's price in US dollars, for USDC of the token tables; undefined for assets without a fixed dollar price. */
export function usdPrice(a: Requirements): number | undefined {
  const network = x402Network(String(a.network));
  const asset = String(a.asset);
  const token = network?.family === "evm" ? evmTokenByAddress(network.ledger, asset) : network ? solanaTokenByMint(network.ledger, asset) : undefined;
  if (token?.symbol !== "USDC") return undefined;
  const raw = String(a.amount ?? a.maxAmountRequired ?? "");
  return /^[0-9]+$/.test(raw) ? Number(raw) / 10 ** token.decimals : undefined;
}
