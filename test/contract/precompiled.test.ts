/**
 * No request waits for a validator to be compiled: the build compiles every
 * schema the request checks use (our fast check and prism's diagnostics)
 * into the contract cache, and a fresh sandbox serves a first request of
 * every operation, valid or not, without compiling anything.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { recordCompiles } from "../../src/contract/ajv.js";
import { cacheKeyOf, loadCompiledOperations, pruneContractCache } from "../../src/contract/compile.js";
import { adminSpecPath, defaultSpecPath } from "../../src/paths.js";
import { withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ auth: "none", validateResponses: false });
});
afterAll(() => sandbox.close());

describe("precompiled request validators", () => {
  it("serve the first request of every operation, with a body that fails and one that passes, without compiling", async () => {
    const recorder = recordCompiles();
    for (const op of await loadCompiledOperations(defaultSpecPath)) {
      const path = `/platform${op.path.replace(/\{[^}]+\}/g, "x")}`;
      for (const body of [{}, { name: 7, rules: [{ bogus: true }], network: "nowhere" }]) {
        const req = request(sandbox.url)[op.method as "post"](path);
        await (op.request?.body ? req.send(body) : req);
      }
    }
    const compiled = recorder.stop();
    expect(
      compiled.map((c) => c.flavour),
      "schemas compiled at run time: run `npm run build` to precompile them",
    ).toEqual([]);
  });
});

describe("the contract cache the build leaves in the package", () => {
  it("keeps the entries of the current documents and removes those of earlier ones", () => {
    const dir = mkdtempSync(join(tmpdir(), "contract-cache-"));
    try {
      const current = [cacheKeyOf(defaultSpecPath), cacheKeyOf(adminSpecPath)];
      const stale = "0123456789abcdef";
      for (const key of [...current, stale]) {
        writeFileSync(join(dir, `operations-${key}.json`), "[]");
        writeFileSync(join(dir, `responses-${key}.json`), "[]");
        mkdirSync(join(dir, `validators-${key}`));
      }
      writeFileSync(join(dir, "notes.txt"), "not the cache's");
      const removed = pruneContractCache([defaultSpecPath, adminSpecPath], dir);
      expect(removed.sort()).toEqual([`operations-${stale}.json`, `responses-${stale}.json`, `validators-${stale}`]);
      expect(readdirSync(dir).sort()).toEqual(
        ["notes.txt", ...current.flatMap((k) => [`operations-${k}.json`, `responses-${k}.json`, `validators-${k}`])].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
