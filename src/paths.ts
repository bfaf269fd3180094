/** Where the package's own files live, whether running from src/ (tests) or dist/ (built). */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

export const packageRoot = findRoot(dirname(fileURLToPath(import.meta.url)));
export const defaultSpecPath = join(packageRoot, "openapi.yaml");
export const adminSpecPath = join(packageRoot, "admin-openapi.yaml");
export const scenariosDir = join(packageRoot, "scenarios");
