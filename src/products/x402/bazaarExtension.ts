/**
 * Reading the `bazaar` extension a payment carries (x402 v2), or a version 1
 * `outputSchema` marked discoverable, into what the Bazaar catalogues. The
 * facilitator validates `info` against the extension's own JSON Schema
 * (draft 2020-12, with Ajv) and drops resource metadata that breaks the
 * extension's soft rules (service name, tags, icon URL).
 */
import { createRequire } from "node:module";
import type { BazaarResource, Requirements } from "./model.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

// Ajv ships CommonJS; its 2020-12 build is the dialect the extension requires.
const Ajv2020 = createRequire(import.meta.url)("ajv/dist/2020").default as new (
  o: object,
) => {
  compile(s: object): ((d: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> };
  removeSchema(s: object): void;
};
const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: true });

export type Catalogued = Omit<BazaarResource, "lastUpdatedMs" | "lastCrawledMs" | "active" | "accepts"> & { accepts: Requirements[] };

export type ExtensionOutcome = { status: "success"; entry: Catalogued } | { status: "rejected"; rejectedReason: string };

const PRINTABLE = /^[\x20-\x7e]+$/;

function sanitizeTags(tags: unknown): string[] | undefined {
  if (!Array.isArray(tags)) return undefined;
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const t of tags) {
    if (typeof t !== "string" || t.length > 32 || !PRINTABLE.test(t) || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    kept.push(t);
    if (kept.length === 5) break;
  }
  return kept.length ? kept : undefined;
}

function validIconUrl(v: unknown): string | undefined {
  if (typeof v !== "string" || v.length > 2048) return undefined;
  try {
    const url = new URL(v);
    const host = decodeURIComponent(url.hostname).toLowerCase();
    const ipLike = /^[0-9.]+$/.test(host) || host.includes(":") || host.startsWith("[") || /^0x[0-9a-f]+$/.test(host);
    const loopback = ["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"].includes(host);
    return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !ipLike && !loopback ? v : undefined;
  } catch {
    return undefined;
  }
}

const ROUTE_TEMPLATE = /^\/[a-zA-Z0-9_/:.\-~%]+$/;

/** The catalogue URL: a valid routeTemplate replaces the concrete path (one entry for /users/1, /users/2…). */
function catalogueUrl(url: string, routeTemplate: unknown): string {
  if (typeof routeTemplate !== "string" || !ROUTE_TEMPLATE.test(routeTemplate)) return url;
  const decoded = decodeURIComponent(routeTemplate);
  if (decoded.includes("..") || decoded.includes("://")) return url;
  try {
    return new URL(routeTemplate, new URL(url).origin).toString();
  } catch {
    return url;
  }
}

/** Validates a v2 `bazaar` extension and builds the catalogue entry for the resource it describes. */
export function readBazaarExtension(extension: unknown, resource: unknown, requirements: Requirements, x402Version: 1 | 2): ExtensionOutcome {
  const ext = obj(extension);
  const info = obj(ext?.info);
  const schema = obj(ext?.schema);
  if (!ext || !info || !schema)
    return { status: "rejected", rejectedReason: "The bazaar extension needs an info object and the JSON Schema that validates it." };
  let problem: string | undefined;
  try {
    const validate = ajv.compile(schema);
    if (!validate(info)) {
      const first = validate.errors?.[0];
      problem = `info failed schema validation: ${first?.instancePath || "info"} ${first?.message ?? ""}`.trim();
    }
  } catch (error) {
    problem = `The bazaar extension's schema is not a valid JSON Schema 2020-12: ${(error as Error).message}`;
  } finally {
    // Each payment brings its own schema: forget it, so the cache stays small and a repeated $id is no clash.
    ajv.removeSchema(schema);
  }
  if (problem) return { status: "rejected", rejectedReason: problem };
  const input = obj(info.input);
  const type = input?.type;
  if (type !== "http" && type !== "mcp") return { status: "rejected", rejectedReason: 'info.input.type must be "http" or "mcp".' };
  if (type === "mcp" && (typeof input!.tool !== "string" || !obj(input!.inputSchema))) {
    return { status: "rejected", rejectedReason: "An MCP tool needs info.input.tool and info.input.inputSchema." };
  }
  const res = obj(resource) ?? {};
  const url = typeof res.url === "string" && res.url !== "" ? res.url : undefined;
  if (!url) return { status: "rejected", rejectedReason: "The payment names no resource.url to catalogue." };
  const resourceUrl = catalogueUrl(url, ext.routeTemplate);
  const tool = type === "mcp" ? String(input!.tool) : undefined;
  const serviceName = typeof res.serviceName === "string" && res.serviceName.length <= 32 && PRINTABLE.test(res.serviceName) ? res.serviceName : undefined;
  return {
    status: "success",
    entry: {
      key: tool ? `${resourceUrl}#${tool}` : resourceUrl,
      resource: resourceUrl,
      type,
      tool,
      x402Version,
      description: typeof res.description === "string" && res.description !== "" ? res.description : undefined,
      mimeType: typeof res.mimeType === "string" && res.mimeType !== "" ? res.mimeType : undefined,
      accepts: [requirements],
      extensions: { bazaar: ext },
      serviceName,
      tags: sanitizeTags(res.tags),
      iconUrl: validIconUrl(res.iconUrl),
    },
  };
}

/** Version 1 discovery: `outputSchema.input.discoverable` on the requirements themselves. */
export function readV1Discovery(requirements: Requirements): ExtensionOutcome | undefined {
  const outputSchema = obj(requirements.outputSchema);
  if (obj(outputSchema?.input)?.discoverable !== true) return undefined;
  const url = typeof requirements.resource === "string" ? requirements.resource : "";
  if (!url) return { status: "rejected", rejectedReason: "The requirements name no resource to catalogue." };
  return {
    status: "success",
    entry: {
      key: url,
      resource: url,
      type: "http",
      x402Version: 1,
      description: typeof requirements.description === "string" && requirements.description !== "" ? requirements.description : undefined,
      mimeType: typeof requirements.mimeType === "string" && requirements.mimeType !== "" ? requirements.mimeType : undefined,
      accepts: [requirements],
    },
  };
}
