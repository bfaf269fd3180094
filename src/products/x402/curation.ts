/**
 * Curation of the Bazaar (sandbox-only, `/_sandbox/x402/bundles`): on the
 * platform, bundles are CDP's hand-picked groups of resources; here the
 * developer defines them. A resource in a bundle is curated. At most 50
 * bundles of at most 50 resources each, as the contract caps them.
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { bundles, type Bundle } from "./model.js";

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_BUNDLES = 50;
const MAX_BUNDLE_RESOURCES = 50;

/** Creates or replaces the bundle `slug` with `{name, description?, resources: [url, …]}` in order. */
export function putBundle(store: ProjectTx, nowMs: number, slug: string, body: Record<string, unknown>): Bundle {
  if (slug.length > 64 || !SLUG.test(slug))
    throw apiError("invalid_request", `The slug must be lowercase words joined by hyphens (at most 64 characters), got "${slug}".`);
  const { name, description, resources } = body;
  if (typeof name !== "string" || name.trim() === "") throw apiError("invalid_request", "name must be a non-empty string.");
  if (description !== undefined && typeof description !== "string") throw apiError("invalid_request", "description must be a string.");
  if (!Array.isArray(resources) || resources.some((r) => typeof r !== "string" || r === "")) {
    throw apiError("invalid_request", "resources must be a list of resource URLs (for an MCP tool: its URL#tool), in bundle order.");
  }
  if (resources.length > MAX_BUNDLE_RESOURCES)
    throw apiError("invalid_request", `A bundle holds at most ${MAX_BUNDLE_RESOURCES} resources; got ${resources.length}.`);
  const existing = bundles(store).get(slug);
  if (!existing && bundles(store).list().length >= MAX_BUNDLES)
    throw apiError("invalid_request", `The Bazaar holds at most ${MAX_BUNDLES} bundles; delete one first.`);
  const bundle: Bundle = { slug, name, description, resources: [...new Set(resources as string[])], createdAtMs: existing?.createdAtMs ?? nowMs };
  bundles(store).put(slug, bundle);
  return bundle;
}

export function deleteBundle(store: ProjectTx, slug: string): void {
  if (!bundles(store).get(slug)) throw apiError("not_found", `No bundle has the slug ${slug}.`);
  bundles(store).delete(slug);
}
