/**
 * The journal file is evidence, not the service: when it cannot be written (a full disk, here /dev/full, which
 * answers every write with ENOSPC; or a path whose folder does not exist), the sandbox warns once on stderr, says
 * so in GET /_sandbox/health, and goes on answering every request.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { call } from "../helpers/sandbox.js";

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const health = async (s: Sandbox) => (await call(s, "GET", "/_sandbox/health", { anonymous: true })).body;

/** A few platform requests, each answered, with a turn of the event loop between them so the file is flushed. */
async function answeredRequests(s: Sandbox, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    statuses.push((await call(s, "GET", "/platform/v2/evm/accounts")).status);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return statuses;
}

describe("a journal file that cannot be written", () => {
  it("on a full disk, turns the file off with one warning and a flag in the health answer; requests keep being answered", async () => {
    const warnings: string[] = [];
    sandbox = await startSandbox({ seed: "journal-full", journal: "/dev/full", log: (line) => warnings.push(line) });
    expect((await health(sandbox)).journalFile).toEqual({ file: "/dev/full", writing: true });
    expect(await answeredRequests(sandbox, 5)).toEqual([200, 200, 200, 200, 200]);
    const journalWarnings = warnings.filter((w) => w.includes("--journal"));
    expect(journalWarnings).toHaveLength(1);
    expect(journalWarnings[0]).toContain("ENOSPC");
    expect((await health(sandbox)).journalFile).toMatchObject({ file: "/dev/full", writing: false, error: expect.stringContaining("ENOSPC") });
    // The in-memory journal still has every request.
    const kept = (await call(sandbox, "GET", "/_sandbox/requests?operationId=listEvmAccounts", { anonymous: true })).body.requests;
    expect(kept.length).toBeGreaterThanOrEqual(5);
    // Closing flushes nothing more and throws nothing.
    await sandbox.close();
    sandbox = undefined;
  });

  it("at a path that cannot be opened, starts with the file off and says why", async () => {
    const warnings: string[] = [];
    // A missing folder is made (as for --export-on-exit); a "folder" that is a file cannot be.
    const folder = mkdtempSync(join(tmpdir(), "journal-missing-"));
    writeFileSync(join(folder, "a-file"), "");
    const missing = join(folder, "a-file", "journal.jsonl");
    sandbox = await startSandbox({ seed: "journal-missing", journal: missing, log: (line) => warnings.push(line) });
    expect(await answeredRequests(sandbox, 2)).toEqual([200, 200]);
    expect(warnings.filter((w) => w.includes("--journal"))).toEqual([expect.stringContaining("EEXIST")]);
    expect((await health(sandbox)).journalFile).toMatchObject({ file: missing, writing: false, error: expect.stringContaining("EEXIST") });
  });
});
