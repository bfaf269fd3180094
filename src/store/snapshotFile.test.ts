/**
 * The snapshot of `--data` is the same JSON text `JSON.stringify` gives, is
 * written without holding the event loop for the whole state, and is replaced
 * whole (a temporary file renamed over it).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonPieces, SnapshotFile } from "./snapshotFile.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-snapshot-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A state shaped as the sandbox keeps it, with `n` records in one collection. */
function state(n: number) {
  const records: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) records[`0x${i.toString(16).padStart(40, "0")}`] = { address: `0x${i}`, name: `a-${i}`, policies: [], n: i, gone: undefined };
  return {
    version: 1,
    defaultProjectId: "p",
    missing: undefined,
    projects: { p: { id: "p", settings: { at: new Date(0) }, data: { evmAccounts: records, empty: {} } }, q: { id: "q", data: {} } },
    list: [1, undefined, "two", { three: 3 }],
  };
}

describe("the --data snapshot", () => {
  it("is exactly JSON.stringify's text, taken apart record by record", () => {
    for (const value of [state(0), state(3), {}, [], null, 1, "text", { a: { b: { c: { d: { e: { f: [1, { g: undefined }] } } } } } }]) {
      expect([...jsonPieces(value)].join("")).toBe(JSON.stringify(value));
    }
    // The records of a collection are pieces of their own, so a large collection can be written a slice at a time.
    expect([...jsonPieces(state(1000))].length).toBeGreaterThan(1000);
  });

  it("lets other work run while a large state is written, and reads back the same state", async () => {
    const file = join(dir, "state.json");
    const big = state(100_000);
    // Each record counts when it is serialized: other work that runs half way through the records sees a count
    // between none and all. One JSON.stringify of the whole state would let nothing run in between.
    let serialized = 0;
    for (const record of Object.values(big.projects.p.data.evmAccounts) as Record<string, unknown>[]) {
      const toJSON = () => {
        serialized++;
        return { ...record };
      };
      Object.defineProperty(record, "toJSON", { enumerable: false, value: toJSON });
    }
    const seen: number[] = [];
    const ticker = setInterval(() => seen.push(serialized), 0);
    try {
      await new SnapshotFile(file).write(big);
    } finally {
      clearInterval(ticker);
    }
    expect(serialized).toBe(100_000);
    expect(seen.some((count) => count > 0 && count < 100_000)).toBe(true);
    const text = readFileSync(file, "utf8");
    expect(text).toBe(JSON.stringify(big));
    expect(await new SnapshotFile(file).read()).toEqual(JSON.parse(text));
    // Nothing but the snapshot is left beside it: the temporary file was renamed over it.
    expect(readdirSync(dir)).toEqual(["state.json"]);
  }, 120_000); // 100,000 records written, read back and compared whole: seconds alone, far more on a loaded CI runner

  it("reads nothing (a new state) when there is no file yet", async () => {
    const file = join(dir, "absent.json");
    expect(await new SnapshotFile(file).read()).toBeNull();
    expect(existsSync(file)).toBe(false);
  });
});
