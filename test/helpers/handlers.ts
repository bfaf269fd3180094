/**
 * Tiny stateful handlers used by the core tests to observe the pipeline
 * (isolation, idempotency, persistence) independently of any platform domain.
 */
import type { HandlerMap } from "../../src/domains/types.js";

export function recordingHandlers(counter: { calls: number } = { calls: 0 }): HandlerMap {
  return {
    createEvmAccount: async (req, ctx) => {
      counter.calls++;
      await new Promise((r) => setTimeout(r, 20)); // widen the window for concurrent duplicates
      const accounts = ctx.store.collection<{ address: string; name?: string; createdAt: string }>("testAccounts");
      const address = `0x${ctx.random.hex(20)}`;
      const record = { address, name: req.body?.name, createdAt: new Date(ctx.clock.now()).toISOString() };
      accounts.put(address, record);
      return { status: 201, body: record };
    },
    listEvmAccounts: (_req, ctx) => ({
      status: 200,
      body: { accounts: ctx.store.collection("testAccounts").list() },
    }),
    deleteEvmAccount: () => {
      throw new Error("boom: a sandbox defect");
    },
  };
}
