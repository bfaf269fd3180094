/**
 * An index finds every record under each of its keys, through adds, moves and removals, whether one record or
 * several share a key.
 */
import { describe, expect, it } from "vitest";
import { declareCollection } from "./collections.js";
import { CollectionIndexes } from "./indexes.js";

interface Rec {
  name?: string;
  tags: string[];
}

const RECS = declareCollection<Rec>("recs", { indexes: { name: (r) => r.name, tag: (r) => r.tags } });

describe("a collection's index", () => {
  it("finds one record or several under a key, and none once they are gone or moved", () => {
    const records: Record<string, Rec> = { a: { name: "x", tags: ["t", "u"] }, b: { tags: ["t"] } };
    const index = new CollectionIndexes(RECS, () => records);
    const found = (name: string, key: string) => [...index.lookup(name, key)].sort();
    expect(found("name", "x")).toEqual(["a"]);
    expect(found("tag", "t")).toEqual(["a", "b"]);
    expect(found("tag", "u")).toEqual(["a"]);
    expect(found("name", "y")).toEqual([]);

    // A second record under "x", then the first moves to "y": "x" finds the second alone.
    const c = { name: "x", tags: [] };
    index.update("c", undefined, c);
    records.c = c;
    expect(found("name", "x")).toEqual(["a", "c"]);
    index.update("a", records.a, { name: "y", tags: ["t", "u"] });
    records.a = { name: "y", tags: ["t", "u"] };
    expect(found("name", "x")).toEqual(["c"]);
    expect(found("name", "y")).toEqual(["a"]);

    // Writing a record again under the key it already has keeps it there once.
    index.update("c", c, c);
    expect(found("name", "x")).toEqual(["c"]);

    index.update("b", records.b, undefined);
    expect(found("tag", "t")).toEqual(["a"]);
    index.update("a", records.a, undefined);
    expect(found("tag", "t")).toEqual([]);
    expect(found("name", "y")).toEqual([]);
    // A key never written, and one whose last record left, answer the same.
    index.update("c", c, undefined);
    expect(found("name", "x")).toEqual([]);
  });

  it("refuses a lookup in an index the collection does not declare", () => {
    expect(() => new CollectionIndexes(RECS, () => ({})).lookup("nope", "x")).toThrow(/declares no index nope/);
  });
});
