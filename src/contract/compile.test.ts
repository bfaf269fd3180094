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
    expect(operations.map((op) => op.iid)).toEqual(["getProbe"]);
    const file = `operations-${cacheKeyOf(spec)}.json`;
    expect(existsSync(join(dir, "cache", "cdp-sandbox", "contract", file))).toBe(true);
    expect(existsSync(join(packageRoot, ".contract-cache", file))).toBe(false);
  });
});
