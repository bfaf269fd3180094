/**
 * A run that loops for long lets the event loop go by the gas it burns: while an endless loop burns 10M gas,
 * callbacks queued with setImmediate keep running, and the run still ends out of gas with the gas it burnt; a loop
 * whose body is a long straight line, a straight line of creates and a loop of precompile calls pause by their gas.
 * A short run never pauses.
 * Counted, not timed: the test asserts how often the loop ran meanwhile, never how long anything took.
 */
import { createClock } from "../../clock.js";
import { describe, expect, it } from "vitest";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { Store } from "../../store/store.js";
import { runEvm } from "./runtime.js";

// JUMPDEST; PUSH1 0; JUMP — forever, run as the init code of a deployless call.
const ENDLESS = "0x5b600056";
// 100 times: STATICCALL of the identity precompile (0x04) with 32 KiB, ~3,100 gas a call and one JUMPI an iteration.
const PRECOMPILE_LOOP = "0x6100645b60006000618000600060045afa50600190038060035700";
// JUMPDEST; 4,000 times CALLER POP (16,000 gas); PUSH1 0; JUMP — forever, one jump an iteration.
const STRAIGHT_LOOP = `0x5b${"3350".repeat(4_000)}600056` as const;
// Copies a child's init code (4,000 times CALLER POP, then STOP: no jump) to memory, then CREATEs it 300 times in a
// straight line; no jump anywhere, ~48,500 gas a create.
const CHILD = `${"3350".repeat(4_000)}00`;
const hex2 = (n: number) => n.toString(16).padStart(4, "0");
const CREATES_PREFIX_LENGTH = 9 + 9 * 300 + 1;
const STRAIGHT_CREATES =
  `0x61${hex2(CHILD.length / 2)}61${hex2(CREATES_PREFIX_LENGTH)}600039${`61${hex2(CHILD.length / 2)}60006000f050`.repeat(300)}00${CHILD}` as const;
// PUSH1 1; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN — returns at once, no jump.
const QUICK = "0x600160005260206000f3";

async function project() {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
  return store.begin("p");
}

/** Runs `data` deployless and counts the turns of the event loop that happened before it ended. */
async function turnsDuring(data: `0x${string}`, gasLimit: bigint) {
  const store = await project();
  const { result: outcome, turns } = await turnsWhile(() =>
    runEvm(
      // A network of its own: the runtime of a network is made once per process, with the models of its first run.
      { store, clock: createClock(() => 0), network: "yielding-jumps-test", chainId: 84532, block: 1 },
      { from: "0x0000000000000000000000000000000000000001", to: null, value: 0n, data, gasLimit },
      () => [],
      { commit: false },
    ),
  );
  return { outcome, turns };
}

describe("yielding work", () => {
  it("lets the event loop run during an endless loop, which still ends out of gas", async () => {
    const { outcome, turns } = await turnsDuring(ENDLESS, 10_000_000n);
    expect(outcome.success).toBe(false);
    expect(outcome.error).toBe("out of gas");
    expect(outcome.gasUsed).toBe(10_000_000n);
    // One pause every 16,384 gas: ~610 (counting a jump as one unit, it paused every 16,384 jumps: ~50 times).
    expect(turns).toBeGreaterThanOrEqual(500);
  });

  it("pauses a loop whose body is a long straight line by its gas, though it jumps only ~620 times", async () => {
    const { outcome, turns } = await turnsDuring(STRAIGHT_LOOP, 10_000_000n);
    expect(outcome.error).toBe("out of gas");
    // ~16,000 gas an iteration: nearly a pause a jump (counting jumps, it never paused).
    expect(turns).toBeGreaterThanOrEqual(300);
  });

  it("pauses a straight line of creates by the gas each one burnt", async () => {
    const { outcome, turns } = await turnsDuring(STRAIGHT_CREATES, 10_000_000n);
    expect(outcome.gasUsed).toBeGreaterThan(9_000_000n);
    // ~200 creates of ~48,500 gas, no jump: a pause every few creates (counting jumps, it never paused).
    expect(turns).toBeGreaterThanOrEqual(40);
  });

  it("counts a precompile's gas as work: a loop of 100 precompile calls pauses, though it jumps only 100 times", async () => {
    const { outcome, turns } = await turnsDuring(PRECOMPILE_LOOP, 1_000_000n);
    expect(outcome.success).toBe(true);
    // ~310k gas of precompile work: one pause every 16,384 units (before, 100 jumps never paused).
    expect(turns).toBeGreaterThanOrEqual(15);
  });

  it("does not pause a run without loops", async () => {
    const { outcome, turns } = await turnsDuring(QUICK, 100_000n);
    expect(outcome.success).toBe(true);
    expect(turns).toBeLessThanOrEqual(1);
  });
});
