/**
 * Builds requests the contract accepts for any operation (path, query and
 * headers from the parameter schemas, a body from the body schema), so tests
 * can exercise operations generically. Candidates are checked with the same
 * validator the sandbox uses; `null` when none passes after a few draws.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pruneRecursion } from "../../src/contract/fallback.js";
import type { Operation } from "../../src/contract/operations.js";
import { validateRequest } from "../../src/contract/validate.js";

const jsf = createRequire(import.meta.url)("json-schema-faker");
const JSF_OPTIONS = { alwaysFakeOptionals: false, failOnInvalidTypes: false, failOnInvalidFormat: false, useExamplesValue: true, maxItems: 2, maxLength: null };

export interface GeneratedRequest {
  /** Path relative to /platform, with query string. */
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

function sample(schema: unknown): unknown {
  // The faker satisfies a uuid pattern or the uuid format, not both at once.
  if ((schema as { format?: string } | undefined)?.format === "uuid") return randomUUID();
  for (let i = 0; ; i++) {
    try {
      jsf.option(JSF_OPTIONS); // shared singleton: the sandbox's fallback sets its own options too
      return jsf.generate(pruneRecursion(schema ?? { type: "string" }));
    } catch (error) {
      if (i > 20) throw error; // the faker trips over some oneOf/array combinations; another draw usually works
    }
  }
}

function candidate(op: Operation, attempt: number): GeneratedRequest {
  const http = op.http;
  const exampleOf = (p: { examples?: unknown[] }) => (p.examples as Array<{ value?: unknown }> | undefined)?.find((e) => e.value !== undefined)?.value;
  const params = Object.fromEntries(
    (http.request?.path ?? []).map((p) => [p.name, String(attempt === 0 && exampleOf(p) !== undefined ? exampleOf(p) : sample(p.schema))]),
  );
  let path = op.pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
  const query = new URLSearchParams();
  for (const q of http.request?.query ?? []) if (q.required) query.set(q.name, String(sample(q.schema)));
  if ([...query].length) path += `?${query}`;
  const headers: Record<string, string> = {};
  for (const h of http.request?.headers ?? []) if (h.required && !/^x-wallet-auth$/i.test(h.name)) headers[h.name] = String(sample(h.schema));
  const content = http.request?.body?.contents?.find((c) => /json/.test(c.mediaType));
  const body = content?.schema ? sample(content.schema) : undefined;
  return { path, headers, body };
}

/** A valid request for `op` (for a sandbox started with `auth: "none"`), or null. */
export function generateRequest(op: Operation, attempts = 25): GeneratedRequest | null {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const c = candidate(op, attempt);
    const url = new URL(c.path, "http://x");
    const problems = validateRequest(op.http, {
      method: op.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: {
        ...Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v])),
        ...(c.body === undefined ? {} : { "content-type": "application/json", "content-length": "1" }),
        "x-wallet-auth": "not-checked-with-auth-none",
      },
      body: c.body,
    });
    if (problems.length === 0) return c;
  }
  return null;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Variants of a body: each top-level (and first nested) property dropped, mistyped, emptied; an extra property. */
export function bodyMutations(body: unknown): unknown[] {
  const out: unknown[] = [undefined, null, {}, [], "text", 7];
  if (!body || typeof body !== "object" || Array.isArray(body)) return out;
  const record = body as Record<string, Json>;
  out.push({ ...record, unexpectedProperty: 1 });
  for (const key of Object.keys(record)) {
    const { [key]: _dropped, ...rest } = record;
    out.push(rest);
    for (const value of [null, 12345, -1, 1.5, "", "!!", "x".repeat(300), true, [], {}, ["x"], [{}]] as Json[]) out.push({ ...record, [key]: value });
    const inner = record[key];
    if (inner && typeof inner === "object" && !Array.isArray(inner)) {
      for (const innerKey of Object.keys(inner)) {
        const { [innerKey]: _gone, ...innerRest } = inner;
        out.push({ ...record, [key]: innerRest });
        out.push({ ...record, [key]: { ...inner, [innerKey]: 42 } });
      }
    }
    if (Array.isArray(inner) && inner.length > 0) out.push({ ...record, [key]: [...inner, 42] }, { ...record, [key]: [] });
  }
  return out;
}
