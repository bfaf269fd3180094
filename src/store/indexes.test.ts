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

  it("lists every id in the records object's own order, listing the object's keys once while appends keep that order", () => {
    const records: Record<string, Rec> = { a: { tags: [] }, b: { tags: [] } };
    let listings = 0;
    const counted = new Proxy(records, {
      ownKeys: (target) => {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    // An index, an order and due times are built from one listing too.
    const declared = declareCollection<Rec>("declared", { indexes: { tag: (r) => r.tags }, order: "insertion", dueAt: (r) => r.tags.length });
    const index = new CollectionIndexes(declared, () => counted);
    // Each step writes the records object as a commit does, then tells the index.
    const write = (id: string, after: Rec | undefined) => {
      index.update(id, records[id], after);
      if (after) records[id] = after;
      else delete records[id];
    };
    expect(index.ids()).toEqual(["a", "b"]);
    write("c", { tags: [] });
    write("a", { tags: ["changed"] });
    expect(index.ids()).toEqual(Object.keys(records));
    expect(listings).toBe(1);
    // An id that is an array index comes first in the object, and a delete leaves a gap: both are listed again.
    write("7", { tags: [] });
    expect(index.ids()).toEqual(["7", "a", "b", "c"]);
    write("b", undefined);
    expect(index.ids()).toEqual(["7", "a", "c"]);
    expect(index.ids()).toEqual(Object.keys(records));
    expect(listings).toBe(3);
  });

  it("refuses a lookup in an index the collection does not declare", () => {
    expect(() => new CollectionIndexes(RECS, () => ({})).lookup("nope", "x")).toThrow(/declares no index nope/);
  });
});
