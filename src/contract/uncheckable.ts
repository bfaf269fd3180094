/**
 * The schemas of a contract that prism's validator cannot compile. prism takes a schema Ajv refuses (a keyword used
 * as Ajv does not allow, a value the meta-schema refuses, a pattern the linear engine cannot run: a lookaround, a
 * back-reference) as one that every value passes, without a word: the requests and answers it governs are not
 * checked. The platform's two contracts have none (test/core/contract-schemas-compile.test.ts keeps it so); a
 * contract given with `--spec` may, and a start says which. compile.ts finds them once, when it compiles the
 * document, and keeps them in the cache beside the operations.
 */
import type { IHttpOperation } from "@stoplight/types";
import { type AjvBuild, type AjvInstance, prismAjv } from "./requestCheck.js";

/** One schema no value is checked against: where it is, and why Ajv refused it. */
export interface UncheckableSchema {
  /** The operation and the place: `createThing request body application/json`, `getThing query limit`, … */
  where: string;
  reason: string;
}

const DRAFT_2019_09 = /^https?:\/\/json-schema.org\/draft\/2019-09\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema.org\/draft\/2020-12\/schema#?$/;

/** The build prism picks for a schema, by its `$schema` as prism reads it. */
function buildOf(schema: { $schema?: unknown }): AjvBuild {
  const dialect = String(schema.$schema);
  return DRAFT_2019_09.test(dialect) ? "ajv/dist/2019" : DRAFT_2020_12.test(dialect) ? "ajv/dist/2020" : "ajv";
}

/** A reason is Ajv's message, cut here (a meta-schema's refusal can quote much of the schema). */
const REASON_CHARS = 300;

type MediaContent = { mediaType: string; schema?: unknown; inputSchema?: unknown; outputSchema?: unknown };

/**
 * Every schema prism compiles for an operation, by where: request bodies and answers as prism normalizes them before
 * checking (compile.ts adds those), each parameter's and each declared header's.
 */
function schemasOf(op: IHttpOperation): Array<[string, unknown]> {
  const name = op.iid ?? op.id;
  const found: Array<[string, unknown]> = [];
  for (const c of (op.request?.body?.contents ?? []) as MediaContent[]) found.push([`${name} request body ${c.mediaType}`, c.inputSchema ?? c.schema]);
  for (const kind of ["query", "headers", "path", "cookie"] as const)
    for (const p of (op.request?.[kind] ?? []) as Array<{ name: string; schema?: unknown }>) found.push([`${name} ${kind} ${p.name}`, p.schema]);
  for (const r of op.responses ?? []) {
    for (const c of (r.contents ?? []) as MediaContent[]) found.push([`${name} ${r.code} body ${c.mediaType}`, c.outputSchema ?? c.schema]);
    for (const h of r.headers ?? []) found.push([`${name} ${r.code} header ${h.name}`, h.schema]);
  }
  return found.filter(([, schema]) => schema !== null && typeof schema === "object");
}

/** The schemas of `operations` that prism's validator cannot compile, each place once (a schema that recurs is compiled once). */
export function uncheckableSchemas(operations: readonly IHttpOperation[]): UncheckableSchema[] {
  const instances = new Map<AjvBuild, AjvInstance>();
  // Compiled as prism compiles them: its options, the schema checked against the meta-schema first (Ajv's default).
  const ajvFor = (build: AjvBuild) => {
    let instance = instances.get(build);
    if (!instance) {
      instance = prismAjv(build, { coerceTypes: false });
      instances.set(build, instance);
    }
    return instance;
  };
  const verdicts = new Map<string, string | undefined>();
  const found: UncheckableSchema[] = [];
  for (const op of operations)
    for (const [where, schema] of schemasOf(op)) {
      const text = JSON.stringify(schema);
      if (!verdicts.has(text)) {
        try {
          ajvFor(buildOf(schema as { $schema?: unknown })).compile(schema as object);
          verdicts.set(text, undefined);
        } catch (error) {
          const message = (error as Error).message;
          verdicts.set(text, message.length > REASON_CHARS ? `${message.slice(0, REASON_CHARS)}…` : message);
        }
      }
      const reason = verdicts.get(text);
      if (reason !== undefined) found.push({ where, reason });
    }
  return found;
}

/** What a start says of them: at most `limit` places, then how many more. */
export function uncheckableLines(specPath: string, found: readonly UncheckableSchema[], limit = 10): string[] {
  if (found.length === 0) return [];
  const lines = [
    `contract: ${found.length} schema${found.length === 1 ? "" : "s"} of ${specPath} cannot be compiled by the validator; prism lets every value under ${found.length === 1 ? "it" : "them"} through unchecked:`,
    ...found.slice(0, limit).map(({ where, reason }) => `contract:   ${where}: ${reason}`),
  ];
  if (found.length > limit) lines.push(`contract:   … and ${found.length - limit} more`);
  return lines;
}
