/**
 * The honest fallback: an operation without a real handler answers with a
 * schema-valid response built from the contract (its example when it has one,
 * otherwise json-schema-faker), marked `X-Sandbox-Mock: fallback`.
 * json-schema-faker is loaded on the first fallback, never at start-up.
 */
import { createRequire } from "node:module";
import type { IHttpOperation } from "@stoplight/types";
import type { Random } from "../random.js";

export interface FallbackResponse {
  status: number;
  body: unknown;
}

interface Jsf {
  option(options: Record<string, unknown>): void;
  generate(schema: unknown): unknown;
}

/** The faker is a process-wide singleton, so its options are set before every use. */
const FAKER_OPTIONS = {
  alwaysFakeOptionals: true,
  failOnInvalidTypes: false,
  failOnInvalidFormat: false,
  ignoreMissingRefs: true,
  useExamplesValue: true,
  useDefaultValue: true,
  maxItems: 3,
  maxLength: null,
  // With alwaysFakeOptionals, filling an open map (additionalProperties) adds two batches of made-up keys, together
  // past its maxProperties (a session's metadata maps then fail the contract); no schema of ours needs minProperties.
  fillProperties: false,
};

let jsf: Jsf | undefined;
function faker(): Jsf {
  if (!jsf) {
    const loaded = createRequire(import.meta.url)("json-schema-faker") as Jsf & { default?: Jsf };
    jsf = loaded.default ?? loaded;
  }
  jsf.option(FAKER_OPTIONS);
  return jsf;
}

function successResponse(op: IHttpOperation) {
  const success = op.responses.filter((r) => /^2\d\d$/.test(r.code)).sort((a, b) => Number(a.code) - Number(b.code));
  return success[0];
}

const isRecursiveRef = (node: unknown): boolean => typeof node === "object" && node !== null && typeof (node as { $ref?: unknown }).$ref === "string";

/**
 * prism leaves recursive schemas (e.g. ABI parameter components) as $refs into
 * the source document, which the faker cannot follow. The mock stops the
 * recursion instead: such arrays are generated empty, such optional
 * properties omitted, such alternatives skipped.
 */
export function pruneRecursion(node: unknown): unknown {
  if (Array.isArray(node)) return node.filter((n) => !isRecursiveRef(n)).map(pruneRecursion);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === "items" && isRecursiveRef(value)) {
      out.items = { type: "string" };
      out.maxItems = 0;
      continue;
    }
    if (key === "properties" && value && typeof value === "object") {
      const props: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(value as Record<string, unknown>)) {
        const recursiveArray = typeof prop === "object" && prop !== null && isRecursiveRef((prop as { items?: unknown }).items);
        if (!isRecursiveRef(prop) && !recursiveArray) props[name] = pruneRecursion(prop);
      }
      out[key] = props;
      continue;
    }
    if (isRecursiveRef(value)) continue;
    out[key] = pruneRecursion(value);
  }
  if (out.maxItems === 0) delete out.minItems;
  return out;
}

/** What the mock answers for every URI: the faker draws a URI's characters from its pattern, often not a valid URI. */
const FALLBACK_URI = "https://example.com/cdp-sandbox/fallback";

/** Replaces each string schema of format uri with the one fixed URI (it fits every URI schema of the contract). */
function fixedUris(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fixedUris);
  if (typeof node !== "object" || node === null) return node;
  const schema = node as Record<string, unknown>;
  if (schema.format === "uri") return { type: "string", enum: [FALLBACK_URI] };
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, fixedUris(value)]));
}

/** Whether a candidate body satisfies the contract (the pipeline passes its response validator). */
export type BodyCheck = (status: number, body: unknown) => boolean;

const ATTEMPTS = 8;

/**
 * A body for the operation's first 2xx response: the contract's example if it
 * passes `isValid`, else generated ones until one passes (the last attempt is
 * returned either way; the pipeline's response validation is the backstop).
 */
export function fallbackResponse(op: IHttpOperation, random: Random, isValid: BodyCheck = () => true): FallbackResponse {
  const response = successResponse(op);
  if (!response) return { status: 200, body: {} };
  const status = Number(response.code);
  const content = (response.contents ?? []).find((c) => /json/.test(c.mediaType)) ?? response.contents?.[0];
  if (!content) return { status, body: undefined };
  const example = (content.examples ?? []).find((e) => "value" in e && (e as { value?: unknown }).value !== undefined) as { value: unknown } | undefined;
  if (example && isValid(status, example.value)) return { status, body: structuredClone(example.value) };
  if (!content.schema) return { status, body: {} };
  const generator = faker();
  generator.option({ random: () => random.float() });
  const schema = fixedUris(pruneRecursion(content.schema));
  let body: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      body = generator.generate(schema);
    } catch {
      continue; // the faker trips over some oneOf/array combinations; another draw usually works
    }
    if (isValid(status, body)) break;
  }
  return { status, body };
}
