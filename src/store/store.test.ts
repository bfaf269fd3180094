/**
 * A transaction's view of a project: pending writes shadow committed records
 * in place, new ones come last, deletions hide; reads are copies; a savepoint
 * undoes what came after it; nothing reaches the project before commit.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { declareCollection } from "./collections.js";
import { Store } from "./store.js";

interface Rec {
  id: string;
  n: number;
}

const RECS = declareCollection<Rec>("recs");
const OTHERS = declareCollection<Rec>("others");
let store: Store;
beforeEach(async () => {
  store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: "2026-01-01T00:00:00.000Z", settings: {}, apiKeys: [], data: {} });
  const seed = store.begin("p");
  for (const id of ["a", "b", "c"]) seed.collection(RECS).put(id, { id, n: 1 });
  await seed.commit();
});

const ids = (recs: Rec[]) => recs.map((r) => `${r.id}${r.n}`);

describe("a transaction's view", () => {
  it("shows pending writes in place, new records last and deletions hidden, in list, find and filter alike", () => {
    const tx = store.begin("p");
    const recs = tx.collection(RECS);
    recs.put("d", { id: "d", n: 1 });
    recs.put("b", { id: "b", n: 2 });
    recs.delete("a");
    expect(ids(recs.list())).toEqual(["b2", "c1", "d1"]);
    expect(recs.find((r) => r.n === 2)).toEqual({ id: "b", n: 2 });
    expect(recs.find((r) => r.id === "a")).toBeUndefined();
    expect(ids(recs.filter((r) => r.n === 1))).toEqual(["c1", "d1"]);
    // Deleting a record that is new in this transaction hides it too.
    recs.delete("d");
    expect(ids(recs.list())).toEqual(["b2", "c1"]);
    // Nothing of it is committed yet.
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a1", "b1", "c1"]);
  });

  it("hands out copies: changing what a read returned changes nothing stored", async () => {
    const tx = store.begin("p");
    const recs = tx.collection(RECS);
    recs.list()[0]!.n = 99;
    recs.find((r) => r.id === "b")!.n = 99;
    recs.filter(() => true)[2]!.n = 99;
    recs.get("a")!.n = 99;
    await tx.commit();
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a1", "b1", "c1"]);
  });

  it("undoes every write made after a savepoint, and keeps those made before it", async () => {
    const tx = store.begin("p");
    const recs = tx.collection(RECS);
    recs.put("a", { id: "a", n: 2 });
    const undo = tx.savepoint();
    recs.put("a", { id: "a", n: 3 });
    recs.put("e", { id: "e", n: 1 });
    recs.delete("c");
    tx.collection(OTHERS).put("x", { id: "x", n: 1 });
    undo();
    expect(ids(recs.list())).toEqual(["a2", "b1", "c1"]);
    expect(tx.collection(OTHERS).list()).toEqual([]);
    await tx.commit();
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a2", "b1", "c1"]);
  });

  it("inserts a record under a new id, and refuses an id that is taken without replacing what is there", async () => {
    const tx = store.begin("p");
    const recs = tx.collection(RECS);
    recs.insert("d", { id: "d", n: 1 });
    expect(() => recs.insert("a", { id: "a", n: 9 })).toThrow(/already exists/); // committed
    expect(() => recs.insert("d", { id: "d", n: 9 })).toThrow(/already exists/); // pending in this transaction
    expect(() => recs.insert("constructor", { id: "constructor", n: 1 })).not.toThrow(); // only own records count
    recs.delete("b");
    recs.insert("b", { id: "b", n: 2 }); // a deleted id is free again
    await tx.commit();
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a1", "b2", "c1", "d1", "constructor1"]);
  });

  it("commits pending writes at once, and a discarded transaction leaves nothing", async () => {
    const dropped = store.begin("p");
    dropped.collection(RECS).put("z", { id: "z", n: 1 });
    dropped.discard();
    await dropped.commit();
    const tx = store.begin("p");
    tx.collection(RECS).delete("b");
    await tx.commit();
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a1", "c1"]);
  });
});
