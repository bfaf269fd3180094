/**
 * The handler types in src/contract/generated/ are what
 * `npm run types:contract` makes from openapi.yaml and admin-openapi.yaml today: a contract change
 * without regenerated types fails here (and the handlers' typecheck follows).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/paths.js";

describe("generated contract types", () => {
  for (const [document, generated] of [
    ["openapi.yaml", "types.ts"],
    ["admin-openapi.yaml", "admin-types.ts"],
  ]) {
    it(`are up to date with ${document}`, async () => {
      const fresh = astToString(await openapiTS(pathToFileURL(join(packageRoot, document)), { defaultNonNullable: false }));
      const committed = readFileSync(join(packageRoot, "src", "contract", "generated", generated), "utf8");
      const body = (text: string) => text.slice(text.indexOf("export")); // the CLI adds a banner comment
      expect(body(committed) === body(fresh), "run `npm run types:contract` and commit the result").toBe(true);
    }, 60_000);
  }
});
