/**
 * In interval mining, what lands later never lands in a block before one already mined: after automine ran the
 * head ahead of the clock and was switched off, a send goes after the mined blocks, and so does a settlement (an
 * x402 payment, a delivery that fell due), which landed in the clock's block, behind them, before.
 */
import { describe, expect, it } from "vitest";
import { createClock } from "../clock.js";
import { Store } from "../store/store.js";
import { bindMiningMode, headBlock, inclusionBlock, settlementBlock } from "./mining.js";

async function project() {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
  return store.begin("p");
}

describe("blocks after automine is switched off", () => {
  it("puts a settlement in the head mined ahead of the clock, not behind it, and a send after it", async () => {
    const store = await project();
    const clock = createClock(() => 1_000_000);
    bindMiningMode(clock, "auto");
    const mined = [inclusionBlock(store, clock, "base-sepolia"), inclusionBlock(store, clock, "base-sepolia"), inclusionBlock(store, clock, "base-sepolia")];
    const head = headBlock(store, "base-sepolia", clock.now());
    expect(mined).toEqual([head - 2, head - 1, head]);
    bindMiningMode(clock, "interval");
    expect(settlementBlock(store, clock, "base-sepolia")).toBe(head);
    // A delivery that fell due before those blocks were mined lands in the head too.
    expect(settlementBlock(store, clock, "base-sepolia", clock.now() - 60_000)).toBe(head);
    expect(inclusionBlock(store, clock, "base-sepolia")).toBe(head + 1);
  });

  it("keeps the clock's block for a settlement when nothing was mined ahead of it", async () => {
    const store = await project();
    const clock = createClock(() => 1_000_000);
    bindMiningMode(clock, "interval");
    expect(settlementBlock(store, clock, "base-sepolia")).toBe(headBlock(store, "base-sepolia", clock.now()));
  });
});
