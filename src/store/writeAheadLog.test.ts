/**
 * With a data file, a commit appends one line to the log beside the snapshot
 * (the snapshot is not rewritten), a restart replays the log, a line cut short
 * by a crash is dropped, and rewriting the snapshot starts the log over.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { declareCollection } from "./collections.js";
import { Store } from "./store.js";
import { WriteAheadLog } from "./writeAheadLog.js";

const RECS = declareCollection<{ id: string; n: number }>("walRecs");
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-wal-"));
  file = join(dir, "state.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function openWithProject(): Promise<Store> {
  const store = await Store.open(file);
  if (!store.project("p")) await store.putProject({ id: "p", name: "p", createdAt: "2026-01-01T00:00:00.000Z", settings: {}, apiKeys: [], data: {} });
  return store;
}

/** Closes the log file a store left open without writing anything more (a store a test treats as crashed). */
async function abandon(store: Store) {
  await (store as unknown as { log: WriteAheadLog }).log.close();
}

async function put(store: Store, id: string, n: number, remove?: string) {
  const tx = store.begin("p");
  tx.collection(RECS).put(id, { id, n });
  if (remove) tx.collection(RECS).delete(remove);
  await tx.commit();
}

describe("the write-ahead log of --data", () => {
  it("appends a commit to the log without rewriting the snapshot, and a start after a crash replays it", async () => {
    const store = await openWithProject();
    await store.save();
    const snapshot = statSync(file);
    await put(store, "a", 1);
    await put(store, "b", 2);
    await put(store, "c", 3, "a");
    expect(statSync(file).mtimeMs).toBe(snapshot.mtimeMs);
    expect(readFileSync(`${file}.log`, "utf8").trim().split("\n")).toHaveLength(3);
    // No close: the process died here, with every acknowledged commit in the log.
    const reopened = await Store.open(file);
    expect(reopened.begin("p").collection(RECS).list()).toEqual([
      { id: "b", n: 2 },
      { id: "c", n: 3 },
    ]);
    // A real crash closes the file with the process; here the "dead" store's log handle is closed by hand, or it
    // would be closed on garbage collection, with Node's warning in the middle of the suite.
    await abandon(store);
  });

  it("drops a last line cut short by a crash, which was never acknowledged, and refuses a damaged log", async () => {
    const store = await openWithProject();
    await put(store, "a", 1);
    appendFileSync(`${file}.log`, '{"p":"p","w":[["walRecs","z",{"id":"z","n');
    expect((await Store.open(file)).begin("p").collection(RECS).list()).toEqual([{ id: "a", n: 1 }]);
    writeFileSync(`${file}.log`, `not json\n${readFileSync(`${file}.log`, "utf8")}`);
    expect(() => WriteAheadLog.read(`${file}.log`)).toThrow(/line 1/);
    await abandon(store);
  });

  it("starts the log over once the snapshot holds everything, and a clean close leaves the data file whole", async () => {
    const store = await openWithProject();
    await put(store, "a", 1);
    await store.save();
    expect(readFileSync(`${file}.log`, "utf8")).toBe("");
    await put(store, "b", 2);
    await store.close();
    expect(readFileSync(`${file}.log`, "utf8")).toBe("");
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).projects.p.data.walRecs)).toEqual(["a", "b"]);
    expect(
      (await Store.open(file))
        .begin("p")
        .collection(RECS)
        .list()
        .map((r) => r.id),
    ).toEqual(["a", "b"]);
  });

  it("loses no acknowledged commit when many commit at once", async () => {
    const store = await openWithProject();
    await Promise.all(Array.from({ length: 50 }, (_, i) => put(store, `k${i}`, i)));
    await store.close();
    expect((await Store.open(file)).begin("p").collection(RECS).list()).toHaveLength(50);
  });
});
