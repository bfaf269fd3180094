import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../paths.js";
import { cacheKeyOf, loadCompiledOperations } from "./compile.js";

const SPEC = `openapi: 3.1.0
info: { title: probe, version: "1" }
paths:
  /v2/probe:
    get:
      operationId: getProbe
      responses:
        "200":
          description: ok
          content: { application/json: { schema: { type: object, properties: { ok: { type: boolean } } } } }
        "404":
          description: none
          content: { application/json: { schema: { $ref: "#/components/schemas/Error" } } }
  /v2/probe/{id}:
    get:
      operationId: getProbeById
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        "200":
          description: ok
          content: { application/json: { schema: { type: object, properties: { id: { type: string } } } } }
        "404":
          description: none
          content: { application/json: { schema: { $ref: "#/components/schemas/Error" } } }
components:
  schemas:
    Error: { type: object, required: [errorType], properties: { errorType: { type: string } } }
`;

describe("the compiled contract cache of a --spec document", () => {
  const saved = process.env.XDG_CACHE_HOME;
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-compile-"));
  afterAll(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("is written to the user's cache folder, never into the installed package", async () => {
    const spec = join(dir, `probe-${process.pid}.yaml`);
    writeFileSync(spec, SPEC);
    process.env.XDG_CACHE_HOME = join(dir, "cache");
    const operations = await loadCompiledOperations(spec);
    expect(operations.map((op) => op.iid)).toEqual(["getProbe", "getProbeById"]);
    const file = `operations-${cacheKeyOf(spec)}.json`;
    expect(existsSync(join(dir, "cache", "cdp-sandbox", "contract", file))).toBe(true);
    expect(existsSync(join(packageRoot, ".contract-cache", file))).toBe(false);
  });

  it("reads back from the cache the responses it compiled, each distinct body schema as one object", async () => {
    const spec = join(dir, `probe-shared-${process.pid}.yaml`);
    writeFileSync(spec, SPEC);
    process.env.XDG_CACHE_HOME = join(dir, "cache");
    const compiled = await loadCompiledOperations(spec);
    const cached = await loadCompiledOperations(spec);
    expect(JSON.parse(JSON.stringify(cached.map((op) => op.responses)))).toEqual(JSON.parse(JSON.stringify(compiled.map((op) => op.responses))));
    const bodyOf = (op: (typeof cached)[number], code: string) => op.responses.find((r) => r.code === code)!.contents![0]!.schema;
    // The error body both operations declare is prepared once by the validator, which keeps what it prepared by object.
    expect(bodyOf(cached[0]!, "404")).toBe(bodyOf(cached[1]!, "404"));
    expect(bodyOf(cached[0]!, "200")).not.toBe(bodyOf(cached[1]!, "200"));
  });
});
