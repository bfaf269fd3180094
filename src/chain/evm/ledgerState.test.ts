/**
 * Storage slots in the project's store: a slot's record holds its contract and value (the slot is its key's end),
 * records of the older shape (which repeated the slot) load from a data file and read the same, and clearing a
 * contract's storage (at a CREATE) removes its slots of either shape, committed or written in the same transaction,
 * and no other contract's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "../../store/store.js";
import { JournaledTx } from "./journaledTx.js";
import { LedgerStateManager, putStorageSlot, storageAt } from "./ledgerState.js";

const NETWORK = "base-sepolia";
const TOKEN = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";
const word = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
const slotId = (address: string, slot: number) => `${NETWORK}|${address}|${slot.toString(16).padStart(64, "0")}`;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A store loaded from a data file whose storage records have the older shape (the slot repeated in the record). */
async function storeWithOlderSlots(): Promise<Store> {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-slots-"));
  const file = join(dir, "state.json");
  const older = (address: string, slot: number, value: string) => ({
    contract: `${NETWORK}|${address}`,
    slot: slot.toString(16).padStart(64, "0"),
    value,
  });
  const evmStorage = {
    [slotId(TOKEN, 1)]: older(TOKEN, 1, "0x07"),
    [slotId(TOKEN, 2)]: older(TOKEN, 2, "0x0100"),
    [slotId(OTHER, 1)]: older(OTHER, 1, "0x09"),
  };
  const project = { id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: { evmStorage } };
  writeFileSync(file, JSON.stringify({ format: "cdp-sandbox-state", version: 1, defaultProjectId: "p", projects: { p: project } }));
  return Store.open(file);
}

describe("EVM storage slots", () => {
  it("keeps a slot's contract and value only, and reads it back as a 32-byte word", async () => {
    const store = await Store.open();
    await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
    const tx = store.begin("p");
    putStorageSlot(tx, NETWORK, TOKEN, 3n, word(0x2a));
    await tx.commit();
    expect(store.recordsOf("p")?.evmStorage).toEqual({ [slotId(TOKEN, 3)]: { contract: `${NETWORK}|${TOKEN}`, value: "0x2a" } });
    expect(storageAt(store.begin("p"), NETWORK, TOKEN, 3n)).toBe(word(0x2a));
  });

  it("reads slots written by the older shape from a data file, and a CREATE's clear removes them with newer ones", async () => {
    const store = await storeWithOlderSlots();
    try {
      const tx = store.begin("p");
      expect(storageAt(tx, NETWORK, TOKEN, 1n)).toBe(word(7));
      expect(storageAt(tx, NETWORK, TOKEN, 2n)).toBe(word(0x100));
      // A slot written in this transaction, not yet committed, goes too.
      putStorageSlot(tx, NETWORK, TOKEN, 5n, word(5));
      const state = new LedgerStateManager(() => undefined);
      state.bind(new JournaledTx(tx), NETWORK);
      expect(await state.getStorage(createAddressFromString(TOKEN), hexToBytes(word(1)))).toEqual(new Uint8Array([7]));
      await state.clearStorage(createAddressFromString(TOKEN));
      for (const slot of [1n, 2n, 5n]) expect(storageAt(tx, NETWORK, TOKEN, slot)).toBe(word(0));
      expect(storageAt(tx, NETWORK, OTHER, 1n)).toBe(word(9));
      await tx.commit();
      expect(Object.keys(store.recordsOf("p")?.evmStorage ?? {})).toEqual([slotId(OTHER, 1)]);
    } finally {
      await store.close();
    }
  });

  it("puts every cleared slot back when the frame that cleared them reverts", async () => {
    const store = await storeWithOlderSlots();
    try {
      const tx = store.begin("p");
      const journaled = new JournaledTx(tx);
      const state = new LedgerStateManager(() => undefined);
      state.bind(journaled, NETWORK);
      await state.checkpoint();
      await state.clearStorage(createAddressFromString(TOKEN));
      expect(storageAt(tx, NETWORK, TOKEN, 1n)).toBe(word(0));
      await state.revert();
      expect(storageAt(tx, NETWORK, TOKEN, 1n)).toBe(word(7));
      expect(storageAt(tx, NETWORK, TOKEN, 2n)).toBe(word(0x100));
    } finally {
      await store.close();
    }
  });
});
