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
    const visited: Rec[] = [];
    recs.each((r) => visited.push(r));
    expect(ids(visited)).toEqual(["b2", "c1", "d1"]);
    // Deleting a record that is new in this transaction hides it too.
    recs.delete("d");
    expect(ids(recs.list())).toEqual(["b2", "c1"]);
    // Nothing of it is committed yet.
    expect(ids(store.begin("p").collection(RECS).list())).toEqual(["a1", "b1", "c1"]);
  });

  it("gives one view per collection, which reads the transaction as it is at each call: after writes, a savepoint's undo and a commit", async () => {
    const tx = store.begin("p");
    const recs = tx.collection(RECS);
    expect(tx.collection(RECS)).toBe(recs);
    expect(tx.collection(OTHERS)).not.toBe(recs);
    const undo = tx.savepoint();
    tx.collection(RECS).put("d", { id: "d", n: 1 });
    expect(ids(recs.list())).toEqual(["a1", "b1", "c1", "d1"]);
    undo();
    expect(recs.get("d")).toBeUndefined();
    recs.delete("a");
    await tx.commit();
    expect(ids(recs.list())).toEqual(["b1", "c1"]);
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

  it("visits records without copying them, for tallies over large collections", () => {
    const recs = store.begin("p").collection(RECS);
    const first: Readonly<Rec>[] = [];
    const second: Readonly<Rec>[] = [];
    recs.each((r) => first.push(r));
    recs.each((r) => second.push(r));
    expect(second).toHaveLength(3);
    for (const [i, r] of second.entries()) expect(r).toBe(first[i]);
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

interface Named {
  id: string;
  name?: string;
  at: number;
}
const NAMED = declareCollection<Named>("named", {
  indexes: { name: (r) => r.name },
  order: (a, b) => a.at - b.at,
  // Records with a name are due at `at` (the way a processing transfer is due when it settles).
  dueAt: (r) => (r.name === undefined ? undefined : r.at),
});

describe("indexes, ordered pages and due times", () => {
  it("find by a declared key, page in the declared order and list what is due, as a scan and a sort would, through every commit", async () => {
    // A seeded run of puts, renames and deletes; after each commit the indexed answers equal the brute-force ones.
    let seed = 11;
    const next = (n: number) => {
      // mulberry32: exact in 32-bit integer arithmetic
      seed = (seed + 0x6d2b79f5) | 0;
      let z = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      return ((z ^ (z >>> 14)) >>> 0) % n;
    };
    let written = 0;
    for (let round = 0; round < 40; round++) {
      const tx = store.begin("p");
      const named = tx.collection(NAMED);
      for (let i = 0; i < 5; i++) {
        const id = `r${next(30)}`;
        if (next(4) === 0) named.delete(id);
        else {
          named.put(id, { id, at: next(10), ...(next(3) > 0 ? { name: `n${next(8)}` } : {}) });
          written++;
        }
      }
      // Inside the transaction, pending writes count too.
      const check = (view: typeof named) => {
        const all = view.list();
        for (let n = 0; n < 8; n++) expect(view.findBy("name", `n${n}`)?.name).toBe(all.find((r) => r.name === `n${n}`)?.name);
        const sorted = [...all].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        expect(view.page(0, 7).items).toEqual(sorted.slice(0, 7));
        expect(view.page(5, 4).items).toEqual(sorted.slice(5, 9));
        expect(view.page(2, 3, { descending: true }).items).toEqual([...sorted].reverse().slice(2, 5));
        expect(view.page(0, 1).total).toBe(all.length);
        for (const nowMs of [-1, 0, 4, 9]) {
          const due = all.filter((r) => r.name !== undefined && r.at <= nowMs).sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
          expect(view.dueBy(nowMs)).toEqual(due);
        }
      };
      check(named);
      await tx.commit();
      check(store.begin("p").collection(NAMED));
      const committed = store.begin("p").collection(NAMED).list();
      for (const nowMs of [0, 5]) expect(store.hasDueCommitted("p", NAMED, nowMs)).toBe(committed.some((r) => r.name !== undefined && r.at <= nowMs));
    }
    expect(written).toBeGreaterThan(100);
    expect(store.begin("p").collection(NAMED).page(0, 100).total).toBeGreaterThan(10);
  });

  it("pages a filtered list in insertion order as filtering the whole list would, copying only the page", async () => {
    const LOGGED = declareCollection<Named>("logged", { order: "insertion" });
    let n = 0;
    for (let round = 0; round < 12; round++) {
      const tx = store.begin("p");
      const logged = tx.collection(LOGGED);
      for (let i = 0; i < 9; i++) logged.put(`k${(n * 7) % 40}`, { id: `k${(n * 7) % 40}`, at: n++ % 5 });
      if (round % 3 === 2) logged.delete(`k${(n * 3) % 40}`);
      const check = (view: typeof logged) => {
        const all = view.list();
        const wanted = (r: Readonly<Named>) => r.at % 2 === 0;
        for (const [offset, size] of [
          [0, 4],
          [3, 5],
          [10, 100],
        ] as const) {
          const matching = all.filter(wanted);
          expect(view.pageWhere(offset, size, wanted)).toEqual({ items: matching.slice(offset, offset + size), more: matching.length > offset + size });
          const reversed = [...matching].reverse();
          expect(view.pageWhere(offset, size, wanted, { descending: true }).items).toEqual(reversed.slice(offset, offset + size));
        }
        expect(view.page(0, 1000).items).toEqual(all);
      };
      check(logged);
      await tx.commit();
      check(store.begin("p").collection(LOGGED));
    }
  });

  it("hands out copies from an index, and a reset empties it", async () => {
    const tx = store.begin("p");
    tx.collection(NAMED).put("x", { id: "x", name: "alpha", at: 1 });
    await tx.commit();
    const found = store.begin("p").collection(NAMED).findBy("name", "alpha")!;
    found.name = "changed";
    expect(store.begin("p").collection(NAMED).findBy("name", "alpha")?.name).toBe("alpha");
    await store.clearRecords(["p"]);
    expect(store.begin("p").collection(NAMED).findBy("name", "alpha")).toBeUndefined();
    expect(store.begin("p").collection(NAMED).page(0, 10)).toEqual({ items: [], total: 0 });
  });

  it("finds a record under each of its keys when an index gives several, pending or committed, and forgets keys it loses", async () => {
    const TAGGED = declareCollection<{ id: string; tags: string[] }>("tagged", { indexes: { tag: (r) => r.tags } });
    const tx = store.begin("p");
    tx.collection(TAGGED).put("a", { id: "a", tags: ["red", "round"] });
    expect(tx.collection(TAGGED).findBy("tag", "round")?.id).toBe("a"); // pending
    await tx.commit();
    const view = store.begin("p").collection(TAGGED);
    expect([view.findBy("tag", "red")?.id, view.findBy("tag", "round")?.id, view.findBy("tag", "blue")]).toEqual(["a", "a", undefined]);
    const change = store.begin("p");
    change.collection(TAGGED).put("a", { id: "a", tags: ["blue"] });
    expect(change.collection(TAGGED).findBy("tag", "red")).toBeUndefined(); // the pending write shadows the committed keys
    await change.commit();
    const after = store.begin("p").collection(TAGGED);
    expect([after.findBy("tag", "red"), after.findBy("tag", "round"), after.findBy("tag", "blue")?.id]).toEqual([undefined, undefined, "a"]);
  });

  it("lists the ids under a key once each, committed and pending, without those a pending write moved or deleted", async () => {
    const TAGGED = declareCollection<{ tags: string[] }>("taggedIds", { indexes: { tag: (r) => r.tags } });
    const seed = store.begin("p");
    for (const [id, tags] of [
      ["a", ["red"]],
      ["b", ["red", "round"]],
      ["c", ["red"]],
      ["d", ["blue"]],
    ] as const)
      seed.collection(TAGGED).put(id, { tags: [...tags] });
    await seed.commit();
    const tx = store.begin("p");
    const view = tx.collection(TAGGED);
    expect(view.idsBy("tag", "red")).toEqual(["a", "b", "c"]);
    view.put("a", { tags: ["blue"] }); // moved off the key
    view.put("b", { tags: ["red"] }); // rewritten, still under it
    view.delete("c");
    view.put("e", { tags: ["red"] }); // new
    expect(view.idsBy("tag", "red").sort()).toEqual(["b", "e"]);
    expect(view.idsBy("tag", "blue").sort()).toEqual(["a", "d"]);
    expect(view.idsBy("tag", "green")).toEqual([]);
    expect(() => view.idsBy("colour", "red")).toThrow(/declares no index colour/);
    await tx.commit();
    expect(store.begin("p").collection(TAGGED).idsBy("tag", "red").sort()).toEqual(["b", "e"]);
  });
});

describe("finding by key among a transaction's own writes", () => {
  it("reads each write's keys about once, however many writes the transaction holds (an init file's 100,000 accounts)", () => {
    let keyReads = 0;
    const NAMED = declareCollection<{ id: string; name: string }>("named", {
      indexes: {
        name: (r) => {
          keyReads++;
          return r.name;
        },
      },
    });
    const named = store.begin("p").collection(NAMED);
    const n = 5_000;
    // As an init file's accounts: each checks that its name is free, then is written.
    for (let i = 0; i < n; i++) {
      expect(named.findBy("name", `n${i}`)).toBeUndefined();
      named.put(`id${i}`, { id: `id${i}`, name: `n${i}` });
    }
    expect(named.findBy("name", "n4321")?.id).toBe("id4321");
    // Before, every find walked every pending write: n²/2 = 12.5M key reads.
    expect(keyReads).toBeLessThan(3 * n);
  });

  it("follows renames and deletions among the writes, and a savepoint's undo", () => {
    const NAMED = declareCollection<{ id: string; name: string }>("named2", { indexes: { name: (r) => r.name } });
    const tx = store.begin("p");
    const named = tx.collection(NAMED);
    named.put("a", { id: "a", name: "one" });
    expect(named.findBy("name", "one")?.id).toBe("a");
    const undo = tx.savepoint();
    named.put("a", { id: "a", name: "two" });
    named.put("b", { id: "b", name: "one" });
    expect([named.findBy("name", "one")?.id, named.findBy("name", "two")?.id]).toEqual(["b", "a"]);
    named.delete("b");
    expect(named.findBy("name", "one")).toBeUndefined();
    undo();
    expect([named.findBy("name", "one")?.id, named.findBy("name", "two")]).toEqual(["a", undefined]);
  });
});

describe("records handed over", () => {
  it("are kept as given inside handingOver, copied outside it again (also after a failure), and land only on commit", async () => {
    const tx = store.begin("p");
    const handed = { id: "h", n: 1 };
    const copied = { id: "k", n: 1 };
    await tx.handingOver(async () => tx.collection(RECS).put("h", handed));
    await expect(
      tx.handingOver(async () => {
        throw new Error("a failed batch");
      }),
    ).rejects.toThrow("a failed batch");
    tx.collection(RECS).put("k", copied);
    expect(store.committedRecord("p", RECS, "h")).toBeUndefined();
    await tx.commit();
    expect(store.committedRecord("p", RECS, "h")).toBe(handed);
    expect(store.committedRecord("p", RECS, "k")).not.toBe(copied);
    expect(store.committedRecord("p", RECS, "k")).toEqual(copied);
    // Reads still hand out copies of a handed-over record.
    expect(store.begin("p").collection(RECS).get("h")).not.toBe(handed);
  });
});

describe("records handed over in a scratch store", () => {
  it("go straight into the scratch's records in write order, indexes kept, and reach the store only when it adopts the scratch", async () => {
    const NAMED = declareCollection<{ id: string; name: string }>("named3", { indexes: { name: (r) => r.name } });
    const { scratch } = await store.fork(() => undefined);
    const tx = scratch.begin("p");
    const named = tx.collection(NAMED);
    named.put("before", { id: "before", name: "first" }); // pending until handingOver commits it, first
    expect(named.findBy("name", "first")?.id).toBe("before");
    const handed = { id: "h", name: "handed" };
    await tx.handingOver(async () => {
      named.put("h", handed);
      expect(scratch.committedRecord("p", NAMED, "h")).toBe(handed);
      expect(named.findBy("name", "handed")?.id).toBe("h");
      named.delete("before");
      expect(named.findBy("name", "first")).toBeUndefined();
      named.put("before", { id: "before", name: "again" });
    });
    expect(store.committedRecord("p", NAMED, "h")).toBeUndefined();
    await tx.commit();
    await store.adopt(scratch);
    expect(store.committedRecord("p", NAMED, "h")).toBe(handed);
    expect(
      store
        .begin("p")
        .collection(NAMED)
        .list()
        .map((r) => r.name),
    ).toEqual(["handed", "again"]);
  });

  it("are found by their index keys after the writes, whether or not a read inside them used the index", async () => {
    const NAMED = declareCollection<{ id: string; name: string }>("named4", { indexes: { name: (r) => r.name } });
    const { scratch } = await store.fork(() => undefined);
    const tx = scratch.begin("p");
    const named = tx.collection(NAMED);
    named.put("a", { id: "a", name: "first" });
    expect(named.findBy("name", "first")?.id).toBe("a"); // the index is built before the writes below
    await tx.handingOver(async () => {
      named.put("a", { id: "a", name: "renamed" });
      named.put("b", { id: "b", name: "second" });
    });
    expect(named.findBy("name", "first")).toBeUndefined();
    expect(named.findBy("name", "renamed")?.id).toBe("a");
    await tx.handingOver(async () => {
      expect(named.findBy("name", "second")?.id).toBe("b");
      named.delete("b");
      named.put("c", { id: "c", name: "second" });
    });
    expect(named.findBy("name", "second")?.id).toBe("c");
  });

  it("are pending again from a savepoint on, so that the savepoint still undoes what follows it", async () => {
    const { scratch } = await store.fork(() => undefined);
    const tx = scratch.begin("p");
    await tx.handingOver(async () => {
      tx.collection(RECS).put("d", { id: "d", n: 1 });
      const undo = tx.savepoint();
      tx.collection(RECS).put("e", { id: "e", n: 1 });
      tx.collection(RECS).put("d", { id: "d", n: 2 });
      undo();
    });
    await tx.commit();
    expect(scratch.committedRecord("p", RECS, "d")).toEqual({ id: "d", n: 1 });
    expect(scratch.committedRecord("p", RECS, "e")).toBeUndefined();
  });
});

describe("committed reads outside a transaction", () => {
  it("answer whether any committed record satisfies a predicate through adds, deletes and a reset", async () => {
    const none = declareCollection<Rec>("none");
    expect(store.someCommitted("p", none)).toBe(false);
    expect(store.someCommitted("p", RECS, (r) => r.n === 2)).toBe(false);
    const tx = store.begin("p");
    tx.collection(RECS).put("d", { id: "d", n: 2 });
    expect(store.someCommitted("p", RECS, (r) => r.n === 2)).toBe(false); // pending, not committed
    await tx.commit();
    expect(store.someCommitted("p", RECS, (r) => r.n === 2)).toBe(true);
    const removal = store.begin("p");
    removal.collection(RECS).delete("d");
    await removal.commit();
    expect(store.someCommitted("p", RECS, (r) => r.n === 2)).toBe(false);
    expect(store.someCommitted("p", RECS)).toBe(true);
    await store.clearRecords(["p"]);
    expect(store.someCommitted("p", RECS)).toBe(false);
  });
});
