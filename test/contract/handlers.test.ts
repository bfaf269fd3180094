/**
 * One step from an operationId to its handler: every operation of
 * openapi.yaml is served by exactly one area, from that area's
 * `handlers.ts`, and nothing else in src/domains builds a map of handlers;
 * the admin API's handlers and admin-openapi.yaml name the same operations.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { adminHandlers } from "../../src/admin/handlers.js";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { areas } from "../../src/domains/index.js";
import { adminSpecPath, defaultSpecPath, packageRoot } from "../../src/paths.js";

const domainsDir = join(packageRoot, "src", "domains");

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("the platform's handlers", () => {
  it("serve every operation of the contract, each from exactly one area, under its operationId", async () => {
    const operationIds = (await loadCompiledOperations(defaultSpecPath)).map((op) => op.iid);
    const servedBy = new Map<string, string[]>();
    for (const [area, map] of Object.entries(areas)) {
      for (const key of Object.keys(map)) servedBy.set(key, [...(servedBy.get(key) ?? []), area]);
    }
    expect(
      operationIds.filter((id) => !servedBy.has(id!)),
      "operations without a handler",
    ).toEqual([]);
    expect(
      [...servedBy.keys()].filter((key) => !operationIds.includes(key)),
      "handler keys that are no operationId",
    ).toEqual([]);
    expect(
      [...servedBy].filter(([, owners]) => owners.length > 1),
      "operations served by two areas",
    ).toEqual([]);
  });

  it("are listed by one handlers.ts per area, the only map of handlers in src/domains", () => {
    const folders = readdirSync(domainsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "shared")
      .map((entry) => entry.name);
    expect(Object.keys(areas).sort(), "src/domains/index.ts lists every area folder").toEqual(folders.sort());
    const index = readFileSync(join(domainsDir, "index.ts"), "utf8");
    for (const area of folders) expect(index).toContain(`from "./${area}/handlers.js"`);
    const mapsElsewhere = sourcesUnder(domainsDir)
      .filter((file) => !/\/domains\/[^/]+\/handlers\.ts$/.test(file) && !file.endsWith("/domains/types.ts") && !file.endsWith("/domains/index.ts"))
      .filter((file) => /:\s*Handlers\b|\bHandlers\s*=|satisfies\s+Handlers\b/.test(readFileSync(file, "utf8")))
      .map((file) => relative(packageRoot, file));
    expect(mapsElsewhere, "files outside an area's handlers.ts that build a map of handlers").toEqual([]);
  });
});

describe("the admin API's handlers", () => {
  it("name exactly the operations of admin-openapi.yaml", async () => {
    const operationIds = (await loadCompiledOperations(adminSpecPath)).map((op) => op.iid).sort();
    expect(Object.keys(adminHandlers).sort()).toEqual(operationIds);
  });
});
