/**
 * A small contract for `--spec` whose schemas the validator partly cannot compile: two operations alike but for their
 * body's pattern, one the linear pattern engine runs and one with a lookahead it cannot, and on the latter a query
 * parameter whose bound the meta-schema refuses.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";

const body = (pattern: string) => ({
  required: true,
  content: { "application/json": { schema: { type: "object", required: ["code"], properties: { code: { type: "string", pattern } } } } },
});
const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { ok: { type: "boolean" } } } } } } };

/** Writes the contract into `dir` and returns its path; another `marker` makes it a document never compiled before. */
export function writeUncheckableContract(dir: string, marker = ""): string {
  const file = join(dir, "openapi.yaml");
  const contract = {
    openapi: "3.0.3",
    info: { title: `uncheckable ${marker}`.trim(), version: "1" },
    servers: [{ url: "/platform" }],
    paths: {
      "/v2/codes/checked": { post: { operationId: "postCheckedCode", requestBody: body("^[0-9]{8,}$"), responses: ok } },
      "/v2/codes/unchecked": {
        post: {
          operationId: "postUncheckedCode",
          // A lookahead (at least one digit): RE2 has none, so Ajv cannot compile the body's schema.
          requestBody: body("^(?=.*[0-9]).{8,}$"),
          // A bound the meta-schema refuses: not a number.
          parameters: [{ name: "limit", in: "query", schema: { type: "integer", maximum: "ten" } }],
          responses: ok,
        },
      },
    },
  };
  writeFileSync(file, stringify(contract));
  return file;
}
