/**
 * How every node door (HTTP, the EVM WebSocket) answers a JSON-RPC payload: under the project's write lock (the node
 * writes the same ledgers as the platform API), with what the clock has made due settled first (deliveries and
 * payouts show in what the node reports), and one commit once every message is answered.
 */
import type { Clock } from "../clock.js";
import { settleProject } from "../products/settle.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { Random } from "../random.js";
import type { ProjectTx, Store } from "../store/store.js";
import { answer, type RpcMethod } from "./jsonRpc.js";

export interface LedgerDoorDeps {
  store: Store;
  clock: Clock;
  random: Random;
  locks: ProjectLocks;
}

export function answerOnLedger<Ctx extends { store: ProjectTx }>(
  deps: LedgerDoorDeps,
  projectId: string,
  payload: unknown,
  methods: Readonly<Record<string, RpcMethod<Ctx>>>,
  contextOf: (tx: ProjectTx) => Ctx,
  /** The message of error -32601, in the words of the node being imitated. */
  unknownMethod: (method: string) => string,
): Promise<unknown> {
  return deps.locks.run(projectId, true, async () => {
    const tx = deps.store.begin(projectId);
    settleProject(tx, { clock: deps.clock, random: deps.random });
    const out = await answer(payload, methods, contextOf(tx), unknownMethod);
    await tx.commit();
    return out;
  });
}
