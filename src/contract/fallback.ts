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

let jsf: Jsf | undefined;
function faker(): Jsf {
  if (!jsf) {
    const loaded = createRequire(import.meta.url)("json-schema-faker") as Jsf & { default?: Jsf };
    jsf = loaded.default ?? loaded;
    jsf.option({
      alwaysFakeOptionals: true,
      failOnInvalidTypes: false,
      failOnInvalidFormat: false,
      ignoreMissingRefs: true,
      useExamplesValue: true,
      useDefaultValue: true,
      maxItems: 3,
      maxLength: 40,
    });
  }
  return jsf;
}

function successResponse(op: IHttpOperation) {
  const success = op.responses.filter((r) => /^2\d\d$/.test(r.code)).sort((a, b) => Number(a.code) - Number(b.code));
  return success[0];
}

export function fallbackResponse(op: IHttpOperation, random: Random): FallbackResponse {
  const response = successResponse(op);
  if (!response) return { status: 200, body: {} };
  const status = Number(response.code);
  const content = (response.contents ?? []).find((c) => /json/.test(c.mediaType)) ?? response.contents?.[0];
  if (!content) return { status, body: undefined };
  const example = (content.examples ?? []).find((e) => "value" in e && (e as { value?: unknown }).value !== undefined) as
    | { value: unknown }
    | undefined;
  if (example) return { status, body: structuredClone(example.value) };
  if (!content.schema) return { status, body: {} };
  const generator = faker();
  generator.option({ random: () => random.float() });
  return { status, body: generator.generate(content.schema) };
}
