/**
 * One step from an operationId to its handler: every operation of
 * openapi.yaml is served by exactly one area, from that area's
 * `handlers.ts`, and nothing else in src/wallet or src/products builds a map of handlers;
 * the admin API's handlers and admin-openapi.yaml name the same operations.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { adminHandlers } from "../../src/admin/handlers.js";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { areas } from "../../src/products/index.js";
import { adminSpecPath, defaultSpecPath, packageRoot } from "../../src/paths.js";

/** The two floors of the platform's areas; their folders that hold no operations. */
const layerDirs = [join(packageRoot, "src", "wallet"), join(packageRoot, "src", "products")];
const notAreas = new Set(["shared", "records", "events", "server-accounts"]);

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

  it("are listed by one handlers.ts per area, the only map of handlers in src/wallet and src/products", () => {
    const folders = layerDirs.flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !notAreas.has(entry.name))
        .map((entry) => relative(join(packageRoot, "src"), join(dir, entry.name))),
    );
    expect(Object.keys(areas).sort(), "src/products/index.ts lists every area folder").toEqual(folders.map((f) => f.split("/")[1]).sort());
    const index = readFileSync(join(packageRoot, "src", "products", "index.ts"), "utf8");
    for (const folder of folders)
      expect(index).toContain(`from "${folder.startsWith("wallet/") ? `../${folder}` : `./${folder.slice("products/".length)}`}/handlers.js"`);
    const mapsElsewhere = layerDirs
      .flatMap(sourcesUnder)
      .filter((file) => !/\/(wallet|products)\/[^/]+\/handlers\.ts$/.test(file) && !file.endsWith("/wallet/types.ts") && !file.endsWith("/products/index.ts"))
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
