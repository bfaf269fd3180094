import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Journal } from "./journal.js";
import { JournalFile } from "./journalFile.js";

const dir = mkdtempSync(join(tmpdir(), "journal-file-"));
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

function nodeCall(journal: Journal, n: number, body: string) {
  journal.recordCall({
    kind: "node",
    correlationId: `c${n}`,
    receivedAt: Date.parse("2026-01-01T00:00:00Z"),
    method: "POST",
    path: "/rpc/v1/base-sepolia/<node token>",
    rpcMethod: "eth_call",
    status: 200,
    durationMs: 1,
    request: { headers: { authorization: "Bearer aaa.bbb.ccc" }, body },
    response: { body: "{}" },
  });
}

describe("the journal file", () => {
  it("appends one line per entry, cutting each body at the per-entry limit instead of dropping older bodies", () => {
    const file = join(dir, "cut.jsonl");
    writeFileSync(file, '{"sequence":0}\n'); // an existing journal is appended to
    const sink = new JournalFile(file, 10);
    const journal = new Journal(10_000, 1);
    journal.attach(sink);
    for (let i = 1; i <= 3; i++) nodeCall(journal, i, "x".repeat(5 + i * 3));
    sink.flush();
    const written = lines(file);
    expect(written.map((e) => e.sequence)).toEqual([0, 1, 2, 3]);
    expect(written[1]!.request).toMatchObject({ body: "x".repeat(8) });
    expect(written[1]!.request.truncated).toBeUndefined();
    expect(written[2]!.request).toMatchObject({ body: "x".repeat(10), truncated: true });
    // Every entry keeps its body in the file, though memory keeps only the newest one's.
    expect(written[3]!.request.body).toHaveLength(10);
    expect(journal.find(undefined, "c1")?.detail).toBeUndefined();
    expect(written[1]!.request.headers.authorization).toBe("Bearer aaa.bbb.<signature removed>");
    sink.close();
  });

  it("writes nothing until flushed within the turn, then everything; writes after close are dropped, not thrown", () => {
    const file = join(dir, "flush.jsonl");
    const sink = new JournalFile(file);
    const journal = new Journal();
    journal.attach(sink);
    nodeCall(journal, 1, "{}");
    expect(readFileSync(file, "utf8")).toBe("");
    sink.close();
    expect(lines(file)).toHaveLength(1);
    nodeCall(journal, 2, "{}");
    sink.close();
    expect(lines(file)).toHaveLength(1);
  });
});
