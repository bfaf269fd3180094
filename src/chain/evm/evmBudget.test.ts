/**
 * A run under a time budget is aborted at a pause once the budget is spent, and leaves nothing behind: not the writes
 * of the frames still open when it was thrown out (the outer frame's SSTORE below a child that loops), not its EVM
 * (the next run on the project gets a fresh one and answers normally), and the project's queue moves on. A run
 * outside any budget (a mined transaction) is never cut. The budgets here are a clock the test moves, or a
 * millisecond against an endless loop: nothing depends on the machine's speed.
 */
import { getContractAddress } from "viem";
import { describe, expect, it } from "vitest";
import { createClock } from "../../clock.js";
import { Store } from "../../store/store.js";
import { EvmTimeout, evmTimeBudget, withinEvmBudget } from "./evmBudget.js";
import { codeAt, storageAt } from "./ledgerState.js";
import { runEvm } from "./runtime.js";

// JUMPDEST; PUSH1 0; JUMP — forever.
const ENDLESS = "0x5b600056";
// SSTORE(0, 1); CREATE a child whose init code is ENDLESS (the child loops at depth 1 with 63/64 of the gas); STOP.
const WRITE_THEN_LOOP_IN_CHILD = "0x6001600055635b6000566000526004601c6000f000";
// PUSH1 1; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN — returns one word at once.
const QUICK = "0x600160005260206000f3";
const FROM = "0x00000000000000000000000000000000000000b1";
const NETWORK = "evm-budget-test";

async function project() {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
  return store.begin("p");
}

const run = (store: Awaited<ReturnType<typeof project>>, data: `0x${string}`, gasLimit: bigint, commit: boolean) =>
  runEvm({ store, clock: createClock(() => 0), network: NETWORK, chainId: 84532, block: 1 }, { from: FROM, to: null, value: 0n, data, gasLimit }, () => [], {
    commit,
  });

describe("a time budget on EVM runs", () => {
  it("aborts a run at a pause once spent, undoing the writes of every open frame, and the next run answers normally", async () => {
    const store = await project();
    let now = 0;
    const budget = evmTimeBudget(50, () => now)!;
    // The clock passes the deadline as soon as the run starts: the first pause (16,384 gas in) finds it spent.
    now = 51;
    const aborted = withinEvmBudget(store, budget, () => run(store, WRITE_THEN_LOOP_IN_CHILD, 10_000_000n, true));
    await expect(aborted).rejects.toBeInstanceOf(EvmTimeout);
    await expect(aborted).rejects.toThrow("execution aborted (timeout = 50ms)");
    expect(budget.exhausted).toBe(true);
    // Committed, the run would have kept its SSTORE and the created contract: nothing of it is in the ledger.
    const created = getContractAddress({ from: FROM, nonce: 0n });
    expect(storageAt(store, NETWORK, created, 0n)).toBe(`0x${"0".repeat(64)}`);
    expect(codeAt(store, NETWORK, created, () => undefined)).toBe("0x");
    // The queue moved on, and the next run (outside the budget) answers on a sound EVM.
    const next = await run(store, QUICK, 100_000n, false);
    expect(next).toMatchObject({ success: true, returnValue: `0x${"00".repeat(31)}01` });
  });

  it("leaves a run alone while its budget lasts, and a run outside any budget to its gas (a mined transaction's)", async () => {
    const store = await project();
    const now = 0;
    const lasting = evmTimeBudget(50, () => now)!;
    const within = await withinEvmBudget(store, lasting, () => run(store, ENDLESS, 1_000_000n, false));
    expect(within).toMatchObject({ success: false, error: "out of gas", gasUsed: 1_000_000n });
    expect(lasting.exhausted).toBe(false);
    // Committed outside any budget, as a transaction runs: the child runs out of gas, the parent's write is kept.
    const mined = await run(store, WRITE_THEN_LOOP_IN_CHILD, 1_000_000n, true);
    expect(mined.success).toBe(true);
    expect(storageAt(store, NETWORK, getContractAddress({ from: FROM, nonce: 0n }), 0n)).toBe(`0x${"0".repeat(63)}1`);
  });

  it("is no budget at 0 ms, as geth's 0 means no timeout, and prints its length as geth does", () => {
    expect(evmTimeBudget(0)).toBeUndefined();
    expect(new EvmTimeout(400).message).toBe("execution aborted (timeout = 400ms)");
    expect(new EvmTimeout(5_000).message).toBe("execution aborted (timeout = 5s)");
    expect(new EvmTimeout(1_500).message).toBe("execution aborted (timeout = 1.5s)");
  });
});
