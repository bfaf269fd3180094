/**
 * A contract given with --spec whose schemas prism's validator cannot compile: prism lets every value under such a
 * schema through, without a word. The start now names each one (operation, place, Ajv's reason), found once when the
 * document is compiled and kept in the cache beside it, and so do the coverage document and the CI report; the
 * platform's own contract names none.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseJunit, type TestSuites } from "junit2json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { cacheKeyOf, loadCompiledOperations, loadUncheckableSchemas } from "../../src/contract/compile.js";
import { defaultSpecPath } from "../../src/paths.js";
import { expectValidCoverage } from "#test/helpers/coverage.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { writeUncheckableContract } from "#test/helpers/uncheckableContract.js";

let dir: string;
let specFile: string;
let sandbox: Sandbox;
const lines: string[] = [];
const cacheHome = process.env.XDG_CACHE_HOME;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-uncheckable-"));
  // A document never compiled before, into a cache of this test's own.
  specFile = writeUncheckableContract(dir, randomUUID());
  process.env.XDG_CACHE_HOME = join(dir, "cache");
  sandbox = await withSandbox({ auth: "none", seed: "uncheckable", spec: specFile, handlers: {}, log: (line) => lines.push(line) });
});
afterAll(async () => {
  await sandbox?.close();
  if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = cacheHome;
  rmSync(dir, { recursive: true, force: true });
});

describe("a contract with schemas the validator cannot compile", () => {
  it("names each one at start: the operation, the place and Ajv's reason", () => {
    const said = lines.filter((line) => line.startsWith("contract:"));
    expect(said[0]).toBe(`contract: 2 schemas of ${specFile} cannot be compiled by the validator; prism lets every value under them through unchecked:`);
    expect(said[1]).toMatch(/^contract: {3}postUncheckedCode request body application\/json: .+/);
    expect(said[2]).toMatch(/^contract: {3}postUncheckedCode query limit: .*maximum.*/);
    expect(said).toHaveLength(3);
  });

  it("is right to: a value the lookahead refuses passes, where the same value is refused under a pattern that compiles", async () => {
    const checked = await call(sandbox, "POST", "/platform/v2/codes/checked", { anonymous: true, body: { code: "abcdefgh" } });
    expect(checked.status).toBe(400);
    expect(checked.body.errorMessage).toMatch(/pattern/);
    const unchecked = await call(sandbox, "POST", "/platform/v2/codes/unchecked?limit=99", { anonymous: true, body: { code: "abcdefgh" } });
    expect(unchecked.status, JSON.stringify(unchecked.body)).toBe(200);
  });

  it("keeps what it found in the cache beside the compiled operations, for every later start", async () => {
    const file = join(dir, "cache", "cdp-sandbox", "contract", `uncheckable-${cacheKeyOf(specFile)}.json`);
    const kept = JSON.parse(readFileSync(file, "utf8")) as Array<{ where: string; reason: string }>;
    expect(kept.map((k) => k.where)).toEqual(["postUncheckedCode request body application/json", "postUncheckedCode query limit"]);
    // A later load reads the operations from that cache, and what cannot be checked from beside them.
    await loadCompiledOperations(specFile);
    expect(loadUncheckableSchemas(specFile)).toEqual(kept);
  });

  it("lists them in the coverage document and the CI report, whose verdict says nothing of their values", async () => {
    const report = join(dir, "report");
    const later = await withSandbox({ auth: "none", seed: "uncheckable-report", spec: specFile, handlers: {}, report });
    const doc = later.coverage();
    await later.close();
    const listed = [
      { where: "postUncheckedCode request body application/json", reason: expect.stringContaining("(?=") },
      { where: "postUncheckedCode query limit", reason: "schema is invalid: data/maximum must be number" },
    ];
    expectValidCoverage(doc);
    expect(doc.uncheckedSchemas).toEqual(listed);
    expect(JSON.parse(readFileSync(join(report, "coverage.json"), "utf8")).uncheckedSchemas).toEqual(listed);
    const summary = readFileSync(join(report, "summary.md"), "utf8");
    expect(summary).toContain("| Schemas never checked | **2**: the validator cannot compile them (below) |");
    expect(summary).toContain("| postUncheckedCode query limit | schema is invalid: data/maximum must be number |");
    // junit.xml, as an independent parser reads it: a suite of skipped cases, one per schema.
    const junit = (await parseJunit(readFileSync(join(report, "junit.xml"), "utf8"))) as TestSuites;
    const never = junit.testsuite!.find((suite) => suite.name === "cdp-sandbox: schemas never checked")!;
    expect(never.skipped).toBe(2);
    expect(never.testcase!.map((c) => c.name)).toEqual(["postUncheckedCode request body application/json", "postUncheckedCode query limit"]);
    expect(never.testcase![1]!.skipped![0]!.message).toBe(
      "never checked: the validator cannot compile this schema (schema is invalid: data/maximum must be number)",
    );
  });

  it("says nothing of the platform's own contract, given with --spec too", async () => {
    const own: string[] = [];
    const platform = await withSandbox({ auth: "none", seed: "uncheckable-platform", spec: defaultSpecPath, log: (line) => own.push(line) });
    expect(platform.coverage().uncheckedSchemas).toBeUndefined();
    await platform.close();
    expect(own.filter((line) => line.startsWith("contract:"))).toEqual([]);
  });
});
