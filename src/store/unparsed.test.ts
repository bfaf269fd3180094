/**
 * A data file with its index opens without parsing its collections: each is read from the file the first time
 * something reads it, and reads the same records as a whole parse. An index that does not describe the very file
 * beside it (stale, torn, of another version, with wrong ranges) is not used: the whole file is parsed. A snapshot
 * after such a start copies the collections nothing read, byte for byte.
 */
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { declareCollection } from "./collections.js";
import { indexFileOf } from "./dataIndex.js";
import { Store } from "./store.js";

interface Rec {
  id: string;
  label: string;
  dueAtMs?: number;
}

const ACCOUNTS = declareCollection<Rec>("lazyAccounts", { order: "insertion" });
const TRANSFERS = declareCollection<Rec>("lazyTransfers", { dueAt: (r) => r.dueAtMs });
const NOTES = declareCollection<Rec>("lazyNotes");

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-unparsed-"));
  file = join(dir, "state.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const project = (id: string) => ({ id, name: id, createdAt: "2026-01-01T00:00:00.000Z", settings: { tier: id }, apiKeys: [], data: {} });

/** A data file of two projects and three collections (one empty in a project), with its index: closed cleanly. */
async function writeState(): Promise<void> {
  const store = await Store.open(file);
  for (const id of ["p", "q"]) {
    await store.putProject(project(id));
    const tx = store.begin(id);
    for (let i = 0; i < 50; i++) {
      tx.collection(ACCOUNTS).put(`acct-${i}`, { id: `acct-${i}`, label: `${id}-label-${String(i).padStart(3, "0")}` });
      tx.collection(TRANSFERS).put(`tr-${i}`, { id: `tr-${i}`, label: "pending", dueAtMs: 5_000 + i });
    }
    if (id === "p") tx.collection(NOTES).put("n", { id: "n", label: "é ü 漢字" }); // multi-byte text: ranges are in bytes
    await tx.commit();
  }
  await store.save();
  await store.close();
}

/** Overwrites bytes of the data file in place (the same file, not a new one), as only a test would. */
function patchInPlace(search: string, replacement: string): void {
  const at = readFileSync(file).indexOf(search);
  expect(at).toBeGreaterThan(0);
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.from(replacement), 0, Buffer.byteLength(replacement), at);
  closeSync(fd);
}

/** The state a start reads with the index moved away: the whole file parsed. */
async function wholeParse(): Promise<unknown> {
  const copy = join(dir, "whole.json");
  copyFileSync(file, copy);
  rmSync(indexFileOf(copy), { force: true });
  try {
    copyFileSync(`${file}.log`, `${copy}.log`);
  } catch {
    rmSync(`${copy}.log`, { force: true });
  }
  const store = await Store.open(copy);
  return store.copyState();
}

describe("a data file with its index", () => {
  it("is opened without parsing its collections: a record is read from the file the first time it is read", async () => {
    await writeState();
    const store = await Store.open(file);
    // Changed in the file after the start, in place: a start that had parsed it would not see the change.
    patchInPlace("p-label-007", "p-LABEL-007");
    expect(store.begin("p").collection(ACCOUNTS).get("acct-7")?.label).toBe("p-LABEL-007");
    // Read once, the collection is parsed: a later change of the file is not seen.
    patchInPlace("p-label-008", "p-LABEL-008");
    expect(store.begin("p").collection(ACCOUNTS).get("acct-8")?.label).toBe("p-label-008");
  });

  it("answers whether records are due, and whether there are any, without parsing them", async () => {
    await writeState();
    const store = await Store.open(file);
    // The transfers' text made unreadable after the start: a check that parsed them would throw.
    patchInPlace('{"tr-0":', '{"tr-0"!');
    expect(store.hasDueCommitted("p", TRANSFERS, 4_999)).toBe(false);
    expect(store.hasDueCommitted("p", TRANSFERS, 5_000)).toBe(true);
    expect(store.someCommitted("p", TRANSFERS)).toBe(true);
    expect(store.someCommitted("q", NOTES)).toBe(false);
    expect(() => store.begin("p").collection(TRANSFERS).get("tr-1")).toThrow(/lazyTransfers.*cannot be read/);
  });

  it("reads the same records as a whole parse, writes logged after the snapshot included", async () => {
    await writeState();
    const logged = await Store.open(file);
    const tx = logged.begin("q");
    tx.collection(TRANSFERS).put("tr-3", { id: "tr-3", label: "completed" });
    tx.collection(ACCOUNTS).delete("acct-1");
    tx.collection(NOTES).put("m", { id: "m", label: "new" });
    await tx.commit(); // in the log only: nothing closes this store (a crash)
    const lazy = await Store.open(file);
    expect(lazy.copyState()).toEqual(await wholeParse());
    expect(
      lazy
        .begin("q")
        .collection(ACCOUNTS)
        .page(0, 3)
        .items.map((r) => r.id),
    ).toEqual(["acct-0", "acct-2", "acct-3"]);
    expect(lazy.recordsOf("p")).toEqual((await Store.open(join(dir, "whole.json"))).recordsOf("p"));
    await logged.close(); // the crash is over: its log's file handle is not left to the collector
  });

  it("is not used when it describes another version of the file: a crash between the file's rename and the index's", async () => {
    await writeState();
    const stale = readFileSync(indexFileOf(file));
    // The same length of text, so the file's size alone would not tell the versions apart.
    const store = await Store.open(file);
    const tx = store.begin("p");
    tx.collection(ACCOUNTS).put("acct-2", { id: "acct-2", label: "p-label-902" });
    await tx.commit();
    await store.save();
    const sizeAfter = readFileSync(file).length;
    writeFileSync(indexFileOf(file), stale);
    expect(JSON.parse(stale.toString()).size).toBe(sizeAfter);
    const reopened = await Store.open(file);
    expect(reopened.begin("p").collection(ACCOUNTS).get("acct-2")?.label).toBe("p-label-902");
    expect(reopened.copyState()).toEqual(await wholeParse());
  });

  it("is not used when it is torn, not an index, or its ranges do not hold the collections", async () => {
    await writeState();
    const good = JSON.parse(readFileSync(indexFileOf(file), "utf8"));
    const expected = await wholeParse();
    const shifted = { ...good, collections: good.collections.map((c: unknown[], i: number) => (i === 1 ? [c[0], c[1], (c[2] as number) + 1, c[3], c[4]] : c)) };
    const swapped = { ...good, collections: good.collections.map((c: unknown[], i: number) => (i === 0 ? ["q", c[1], c[2], c[3], c[4]] : c)) };
    for (const text of [
      "",
      "{",
      '{"format":"cdp-sandbox-data-index"}',
      JSON.stringify(shifted),
      JSON.stringify(swapped),
      JSON.stringify({ ...good, size: good.size + 1 }),
    ]) {
      writeFileSync(indexFileOf(file), text);
      expect((await Store.open(file)).copyState()).toEqual(expected);
    }
  });

  it("lets a snapshot copy the collections nothing read byte for byte, which then read from the new file", async () => {
    await writeState();
    const before = readFileSync(file, "utf8");
    const beforeIndex = JSON.parse(readFileSync(indexFileOf(file), "utf8"));
    const store = await Store.open(file);
    const tx = store.begin("p");
    tx.collection(NOTES).put("n2", { id: "n2", label: "touched" });
    await tx.commit();
    await store.save();
    const after = readFileSync(file);
    const afterIndex = JSON.parse(readFileSync(indexFileOf(file), "utf8"));
    const text = (bytes: Buffer, [p, name, start, end]: [string, string, number, number]) => [p, name, bytes.subarray(start, end).toString("utf8")];
    const untouched = (index: { collections: Array<[string, string, number, number]> }, bytes: Buffer) =>
      index.collections.filter(([p, name]) => !(p === "p" && name === "lazyNotes")).map((c) => text(bytes, c));
    expect(untouched(afterIndex, after)).toEqual(untouched(beforeIndex, Buffer.from(before)));
    // The old file is gone; what was unparsed now reads from the new one.
    const fresh = await Store.open(file);
    patchInPlace("q-label-011", "q-LABEL-011");
    expect(store.begin("q").collection(ACCOUNTS).get("acct-11")?.label).toBe("q-LABEL-011");
    expect(fresh.begin("q").collection(ACCOUNTS).get("acct-11")?.label).toBe("q-LABEL-011");
    // The new file is the whole state as JSON.stringify writes it.
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(store.copyState()));
  });

  it("lets a request parse a collection while a snapshot copies it", async () => {
    const store = await Store.open(file);
    await store.putProject(project("p"));
    const tx = store.begin("p");
    for (let i = 0; i < 40_000; i++) tx.collection(NOTES).put(`note-${i}`, { id: `note-${i}`, label: "x".repeat(60) });
    await tx.commit();
    await store.close();
    const lazy = await Store.open(file);
    const saving = lazy.save();
    // Once the copy has begun (its first megabyte written), the collection is read: the file it copies from stays open.
    const temporary = join(dir, ".state.json.tmp");
    while (!existsSync(temporary) || statSync(temporary).size < 1 << 20) await new Promise((resolve) => setImmediate(resolve));
    expect(lazy.begin("p").collection(NOTES).get("note-39999")?.label).toHaveLength(60);
    await saving;
    expect(JSON.parse(readFileSync(file, "utf8")).projects.p.data.lazyNotes["note-0"].label).toHaveLength(60);
  });
});

describe("the warm-up after a start through the index", () => {
  /** A data file of one project whose notes (about 3.5 MB of text) make many pieces, a few ids integer-like. */
  async function writeLarge(): Promise<void> {
    const store = await Store.open(file);
    await store.putProject(project("p"));
    const tx = store.begin("p");
    for (let i = 0; i < 40_000; i++) {
      const id = i % 1000 === 7 ? String(i) : `note-${i}`;
      tx.collection(NOTES).put(id, { id, label: `${"x".repeat(50)}-${i % 3}` });
    }
    tx.collection(ACCOUNTS).put("a", { id: "a", label: "one" });
    await tx.commit();
    await store.close();
  }

  it("cuts each collection's text at the comma before a record, every ~256 KB", async () => {
    await writeLarge();
    const bytes = readFileSync(file);
    const notes = JSON.parse(readFileSync(indexFileOf(file), "utf8")).collections.find((c: unknown[]) => c[1] === "lazyNotes");
    const [, , start, end, , cuts] = notes as [string, string, number, number, number, number[]];
    expect(cuts.length).toBeGreaterThanOrEqual(12);
    for (const cut of cuts) expect(String.fromCharCode(bytes[start + cut]!)).toBe(",");
    const sizes = [...cuts, end - start].map((cut, i) => cut - (i === 0 ? 0 : cuts[i - 1]!));
    expect(Math.max(...sizes)).toBeLessThan(300 * 1024);
  });

  it("parses the collections a piece per turn, reading the same records as a whole parse", async () => {
    await writeLarge();
    const expected = await wholeParse();
    const store = await Store.open(file);
    await store.warmUp().done;
    // Parsed by the warm-up: a change of the file after it is not seen.
    patchInPlace(`"note-39999","label":"${"x".repeat(50)}`, `"note-39999","label":"${"y".repeat(50)}`);
    expect(store.begin("p").collection(NOTES).get("note-39999")?.label).toMatch(/^x{50}-/);
    expect(store.copyState()).toEqual(expected);
    // In the same order too, integer-like ids first as in any object.
    const ids = (state: unknown) => Object.keys((state as ReturnType<Store["copyState"]>).projects.p!.data.lazyNotes!);
    expect(ids(store.copyState())).toEqual(ids(expected));
  });

  it("lets a read that comes before the warm-up is done parse the rest at once, and a snapshot copy it meanwhile", async () => {
    await writeLarge();
    const expected = await wholeParse();
    const store = await Store.open(file);
    const warming = store.warmUp();
    for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
    await store.save(); // copies the collection's bytes while it is part parsed: it reads from the new file after
    expect(store.begin("p").collection(NOTES).get("note-39998")?.label).toBe(`${"x".repeat(50)}-2`);
    await warming.done;
    expect({ ...store.copyState(), snapshotId: "" }).toEqual({ ...(expected as object), snapshotId: "" });
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(store.copyState()));
  });

  it("leaves a collection whose text was damaged unparsed, for the request that reads it to get the error", async () => {
    await writeLarge();
    const store = await Store.open(file);
    patchInPlace('"note-20000","label":', '"note-20000"!"label":');
    await store.warmUp().done;
    expect(store.begin("p").collection(ACCOUNTS).get("a")?.label).toBe("one");
    expect(() => store.begin("p").collection(NOTES).get("note-1")).toThrow(/lazyNotes.*cannot be read/);
  });
});
