/**
 * The undo log under the EVM's call frames: nested checkpoints revert exactly what their frame wrote (a record
 * that did not exist is gone again, one that did gets its old value back), commits fold into the enclosing frame,
 * and nothing reaches the project's transaction that a revert took back.
 */
import { describe, expect, it } from "vitest";
import { declareCollection } from "../../store/collections.js";
import { Store } from "../../store/store.js";
import { JournaledTx } from "./journaledTx.js";

const THINGS = declareCollection<{ v: number }>("journalTestThings");

async function journaled() {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
  const tx = store.begin("p");
  tx.collection(THINGS).put("kept", { v: 1 });
  return { tx, j: new JournaledTx(tx) };
}

describe("JournaledTx", () => {
  it("reverts an inner frame's writes and keeps the outer frame's", async () => {
    const { tx, j } = await journaled();
    j.checkpoint();
    j.collection(THINGS).put("outer", { v: 2 });
    j.checkpoint();
    j.collection(THINGS).put("kept", { v: 10 });
    j.collection(THINGS).put("inner", { v: 3 });
    j.collection(THINGS).delete("outer");
    j.revert();
    j.commit();
    expect(tx.collection(THINGS).get("kept")).toEqual({ v: 1 });
    expect(tx.collection(THINGS).get("outer")).toEqual({ v: 2 });
    expect(tx.collection(THINGS).get("inner")).toBeUndefined();
  });

  it("folds a committed inner frame into the outer one, which a revert then takes back whole", async () => {
    const { tx, j } = await journaled();
    j.checkpoint();
    j.checkpoint();
    j.collection(THINGS).put("kept", { v: 5 });
    j.collection(THINGS).insert("new", { v: 6 });
    j.commit();
    expect(j.depth).toBe(1);
    j.revert();
    expect(tx.collection(THINGS).get("kept")).toEqual({ v: 1 });
    expect(tx.collection(THINGS).get("new")).toBeUndefined();
    expect(() => j.revert()).toThrow(/without a checkpoint/);
  });

  it("undoes to a savepoint without closing any checkpoint", async () => {
    const { tx, j } = await journaled();
    j.checkpoint();
    const undo = j.savepoint();
    j.collection(THINGS).put("kept", { v: 7 });
    undo();
    expect(j.depth).toBe(1);
    expect(tx.collection(THINGS).get("kept")).toEqual({ v: 1 });
  });
});
