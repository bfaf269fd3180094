/**
 * `--data FILE` loads only a sandbox data file: a format marker and a version, and the state's shape. Any other
 * file is refused as it is (not a byte written, no log beside it), with a message naming the file and what was
 * expected; a data file written before the marker existed is taken and gains the marker.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/paths.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "data-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A file holding `text`, and a check that it is still exactly that and has no log beside it. */
function fileWith(text: string) {
  const file = join(dir, `state-${++n}.json`);
  writeFileSync(file, text);
  return {
    file,
    expectUntouched() {
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(existsSync(`${file}.log`), "no write-ahead log is started beside a refused file").toBe(false);
      expect(existsSync(join(dir, `.state-${n}.json.tmp`))).toBe(false);
    },
  };
}

describe("--data refuses what is not a sandbox data file", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["a copy of package.json", readFileSync(join(packageRoot, "package.json"), "utf8"), /no "format" marker/],
    ["null", "null", /it holds null/],
    ["a number", "5", /it holds a number/],
    ["an array", "[]", /it holds an array/],
    ["an unmarked file with fields of its own", `{"version":1,"projects":{},"name":"x"}`, /fields a data file does not \(name\)/],
    ["projects that are a number", '{"projects":5}', /no "format" marker/],
    ["a marked file whose projects are a number", '{"format":"cdp-sandbox-state","version":1,"projects":5}', /"projects" is a number/],
    ["a project that is not one", '{"format":"cdp-sandbox-state","version":1,"projects":{"p":{"id":"q"}}}', /project "p" is not a project/],
    ["another program's format", '{"format":"something-else","version":1,"projects":{}}', /"format" is "something-else"/],
    ["a file that is not JSON", '{"format":"cdp-sandbox-state",', /not valid JSON/],
  ];
  for (const [what, text, reason] of cases) {
    it(`refuses ${what}, naming the file, and writes nothing`, async () => {
      const f = fileWith(text);
      const started = withSandbox({ data: f.file });
      await expect(started).rejects.toThrow(f.file);
      await expect(started).rejects.toThrow(reason);
      if (!/not valid JSON/.test(reason.source)) await expect(started).rejects.toThrow(/expected|cdp-sandbox data file/);
      f.expectUntouched();
    });
  }

  it("refuses a data file of a later version, saying which versions it reads", async () => {
    const f = fileWith('{"format":"cdp-sandbox-state","version":2,"projects":{}}');
    await expect(withSandbox({ data: f.file })).rejects.toThrow(/data file of version 2; this cdp-sandbox reads version 1/);
    f.expectUntouched();
  });
});

describe("--data takes a sandbox data file", () => {
  it("starts a new one in a file that is missing or empty, marked with the format and version", async () => {
    for (const file of [join(dir, "missing.json"), fileWith("").file]) {
      const sandbox = await withSandbox({ data: file });
      await sandbox.close();
      expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ format: "cdp-sandbox-state", version: 1, projects: expect.any(Object) });
    }
  });

  it("migrates a data file written before the marker existed: the same projects, and the marker once rewritten", async () => {
    const file = join(dir, "unmarked.json");
    const first = await withSandbox({ data: file });
    const { projectId, apiKeyId } = first.credentials;
    await first.close();
    const { format: _marker, ...unmarked } = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify(unmarked));
    const second = await withSandbox({ data: file });
    expect(second.credentials).toMatchObject({ projectId, apiKeyId });
    await second.close();
    expect(JSON.parse(readFileSync(file, "utf8")).format).toBe("cdp-sandbox-state");
  });

  it("restarts through the index beside it: the records read back, listed and written as before", async () => {
    const file = join(dir, "indexed.json");
    const first = await withSandbox({ data: file });
    const created: string[] = [];
    for (const name of ["one", "two", "three"]) {
      const res = await call(first, "POST", "/platform/v2/evm/accounts", { body: { name }, wallet: true });
      expect(res.status).toBe(201);
      created.push(res.body.address);
    }
    await first.close();
    const index = JSON.parse(readFileSync(`${file}.index`, "utf8"));
    expect(index.snapshotId).toBe(JSON.parse(readFileSync(file, "utf8")).snapshotId);

    const second = await withSandbox({ data: file });
    expect((await call(second, "GET", `/platform/v2/evm/accounts/${created[1]}`)).body.name).toBe("two");
    const listed = await call(second, "GET", "/platform/v2/evm/accounts?pageSize=10");
    expect(listed.body.accounts.map((a: { name: string }) => a.name)).toEqual(["one", "two", "three"]);
    expect((await call(second, "POST", "/platform/v2/evm/accounts", { body: { name: "two" }, wallet: true })).status).toBe(409);
    expect((await call(second, "POST", "/platform/v2/evm/accounts", { body: { name: "four" }, wallet: true })).status).toBe(201);
    await second.close();

    const third = await withSandbox({ data: file });
    const all = await call(third, "GET", "/platform/v2/evm/accounts?pageSize=10");
    expect(all.body.accounts.map((a: { name: string }) => a.name)).toEqual(["one", "two", "three", "four"]);
    await third.close();
  });
});
