/**
 * Each collection is declared once, by the module that owns its records:
 * two declarations of one name would let two record types share the same
 * records. The name and type travel together from there (tx.collection
 * takes the declaration, never a string).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../paths.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
}

describe("store collections", () => {
  it("are each declared once, in one module", () => {
    const declared = new Map<string, string[]>();
    for (const file of sources(join(packageRoot, "src"))) {
      const code = readFileSync(file, "utf8").replace(/^\s*(\*|\/\/).*$/gm, ""); // not the examples in comments
      for (const [, name] of code.matchAll(/declareCollection<[^>]*>\("([^"]+)"[,)]/g)) {
        declared.set(name!, [...(declared.get(name!) ?? []), relative(packageRoot, file)]);
      }
    }
    expect(declared.size).toBeGreaterThan(30);
    expect([...declared].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  it("are read only through the store outside src/store", () => {
    // store.project() hides a project's records from the type; whole copies are for the store's own snapshots.
    const raw = sources(join(packageRoot, "src"))
      .filter((file) => !file.includes(`${join("src", "store")}/`))
      .filter((file) => /\.copyState\(|\.copyProject\(|\.data\s*=\s*\{\s*\}/.test(readFileSync(file, "utf8")))
      .map((file) => relative(packageRoot, file));
    expect(raw).toEqual([]);
  });
});
