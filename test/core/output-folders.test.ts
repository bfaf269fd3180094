/**
 * The files a sandbox writes (`journal`, `exportOnExit`) land in folders that need not exist yet: a test runner's
 * global setup pointing at test-results/ before its first run gets its files, not ENOENT at start or nothing at
 * the end.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox } from "cdp-sandbox";
import { call } from "#test/helpers/sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-output-folders-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a sandbox's output files", () => {
  it("makes the missing folders of its journal and its export on exit", async () => {
    const journal = join(dir, "test-results", "run", "journal.jsonl");
    const exported = join(dir, "exports", "state.json");
    const sandbox = await startSandbox({ seed: "output-folders", journal, exportOnExit: exported });
    const created = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "Folders" }, wallet: true });
    expect(created.status).toBe(201);
    await sandbox.close();

    const lines = readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { operationId?: string });
    expect(lines.map((l) => l.operationId)).toContain("createEvmAccount");
    expect(existsSync(exported)).toBe(true);
    expect(readFileSync(exported, "utf8")).toContain('"name": "Folders"');
  });
});
