/**
 * Tiny stateful handlers used by the core tests to observe the pipeline
 * (isolation, idempotency, persistence) independently of any platform domain.
 */
import type { AnyHandler } from "../../src/wallet/types.js";
import { declareCollection } from "../../src/store/collections.js";

const TEST_ACCOUNTS = declareCollection<{ address: string; name?: string; createdAt: string }>("testAccounts");

export function recordingHandlers(counter: { calls: number } = { calls: 0 }): Record<string, AnyHandler> {
  return {
    createEvmAccount: async (req, ctx) => {
      counter.calls++;
      await new Promise((r) => setTimeout(r, 20)); // widen the window for concurrent duplicates
      const accounts = ctx.store.collection(TEST_ACCOUNTS);
      const address = `0x${ctx.random.hex(20)}`;
      const record = { address, name: (req.body as { name?: string } | undefined)?.name, createdAt: new Date(ctx.clock.now()).toISOString() };
      accounts.put(address, record);
      return { status: 201, body: record };
    },
    listEvmAccounts: (_req, ctx) => ({
      status: 200,
      body: { accounts: ctx.store.collection(TEST_ACCOUNTS).list() },
    }),
    deleteEvmAccount: () => {
      throw new Error("boom: a sandbox defect");
    },
  };
}
