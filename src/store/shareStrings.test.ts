/**
 * Records that repeat their neighbour's values hold one copy of each: no record reads differently for it, and the
 * copies JSON.parse made are freed.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { shareLoadedStrings, shareStrings } from "./shareStrings.js";

const payload = "p".repeat(2_000);

/** `count` records as JSON.parse makes them: each its own copy of every string. */
const parsedRecords = (count: number): Record<string, Record<string, unknown>> => {
  const records: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) records[`rec_${i}`] = { id: `rec_${i}`, status: "failed", payload, nested: { network: "base-sepolia", list: [payload] } };
  return JSON.parse(JSON.stringify(records)) as Record<string, Record<string, unknown>>;
};

function heapAfterCollection(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  // Twice: the first collection after a parse may leave the parsed text for the next one.
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("sharing strings between neighbouring records", () => {
  it("changes no value: equal members, nested objects and arrays read as before, different ones stay", () => {
    const records = parsedRecords(3);
    records.rec_2!.status = "succeeded";
    (records.rec_2!.nested as { list: string[] }).list.push("extra");
    const before = structuredClone(records);
    shareLoadedStrings([records]);
    expect(records).toEqual(before);
    expect(Object.keys(records)).toEqual(["rec_0", "rec_1", "rec_2"]);
  });

  it("leaves records and neighbours of other shapes alone", () => {
    const record: Record<string, unknown> = { a: "x", b: { c: "y" }, d: null, e: 1 };
    shareStrings(record, { a: 1, b: "y", d: "x" }, "x");
    expect(record).toEqual({ a: "x", b: { c: "y" }, d: null, e: 1 });
    shareStrings(null, record);
    shareStrings("text", record);
  });

  it("frees the copies: 5,000 records holding a 2,000-character value twice hold it once", () => {
    // Each record holds the value twice (once nested), as parsed: 10,000 copies of 2,000 characters, ~20 MB.
    const records = parsedRecords(5_000);
    const parsed = heapAfterCollection();
    shareLoadedStrings([records]);
    const shared = heapAfterCollection();
    expect(parsed - shared).toBeGreaterThan(15_000_000);
    expect(records.rec_4999!.payload).toBe(payload);
  });

  it("frees the copies of records of two kinds that alternate: each shares with the record before the one before", () => {
    // A wallet's system account, then its token account, and so on: each member alternates between two values.
    const other = "q".repeat(2_000);
    const owner = (i: number) => (i % 2 === 0 ? payload : other);
    const records: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) records[`rec_${i}`] = { id: `rec_${i}`, owner: owner(i) };
    const text = JSON.stringify(records);
    const parsed = JSON.parse(text) as Record<string, Record<string, unknown>>;
    const before = heapAfterCollection();
    shareLoadedStrings([parsed]);
    const freed = before - heapAfterCollection();
    // Holding every value once frees all but two of the 10,000 parsed copies of 2,000 one-byte characters: ~20 MB.
    // (A measured reference, the same records given the one string of their value, also caught garbage of the
    // files run before in the same worker: it read 42 MB once.)
    expect(freed).toBeGreaterThan(0.75 * 10_000 * 2_000);
    expect(parsed.rec_9998!.owner).toBe(payload);
    expect(parsed.rec_9999!.owner).toBe(other);
  });
});
