/**
 * How the EVM node answers with its test methods and keys: the platform's methods, the client-side `cdp_` methods,
 * the keyed methods (`keyedMethods.ts`) and the test methods (`testMethods.ts`) inside one ledger transaction, as
 * every call is answered (`answerOnLedger.ts`); the methods that replace the project's records as a whole
 * (`projectMethods.ts`) each under the project's lock on its own, between the messages before and after it, so a
 * batch still sees its own writes in order.
 *
 * The test methods can move the clock, the mining mode and any balance: bound to loopback anyone who reaches the
 * node may call them (as the admin API); bound off loopback only a call with the admin token
 * (X-Sandbox-Admin-Token), unless the sandbox was started with `--allow-test-methods`.
 */
import type { Clock } from "../../clock.js";
import { evmTimeBudget } from "../../chain/evm/evmBudget.js";
import { CHAIN_CONTRACTS } from "../../products/sandboxContracts.js";
import type { Random } from "../../random.js";
import type { Snapshots } from "../../store/snapshots.js";
import type { ProjectTx } from "../../store/store.js";
import { answerOnLedger, type LedgerDoorDeps } from "../answerOnLedger.js";
import type { EthCall } from "../clientRpc/context.js";
import { answer, RpcError, type RpcMethod } from "../jsonRpc.js";
import { creditDevAccounts, type DevAccounts } from "./devAccounts.js";
import { evmKeyedMethods, type KeyedNodeContext } from "./keyedMethods.js";
import { evmProjectMethods, type ProjectMethodContext } from "./projectMethods.js";
import { evmTestMethods } from "./testMethods.js";

/** What the node's test methods reach beyond the ledger. */
export interface NodeTesting {
  snapshots: Snapshots;
  devAccounts: DevAccounts;
  /** Whether a call with these headers may use the test methods (loopback, the admin token, or the opt-in). */
  allows: (headers: Readonly<Record<string, string | string[] | undefined>>) => boolean;
  /** The project as a state file (GET /_sandbox/export with the project's key). */
  exportProject: (projectId: string) => unknown;
  reindex: () => void;
}

type Ctx = KeyedNodeContext & { random: Random; ethCall: EthCall };

const refused = (method: string) => () => {
  throw new RpcError(
    -32001,
    `unauthorized: ${method} changes the sandbox; off loopback it takes the admin token in the X-Sandbox-Admin-Token header (or a sandbox started with --allow-test-methods)`,
  );
};

const refusing = <C>(table: Readonly<Record<string, RpcMethod<C>>>): Record<string, RpcMethod<C>> =>
  Object.fromEntries(Object.keys(table).map((method) => [method, refused(method)]));

export interface EvmCall {
  projectId: string;
  network: string;
  chainId: number;
  payload: unknown;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * The EVM node's answer to a payload, with `platformMethods` (the platform's and the client-side ones) and, when
 * `testing` is given, the keyed and test methods.
 */
export function createEvmDoor(
  deps: LedgerDoorDeps & { clock: Clock; random: Random; evmTimeoutMs?: number },
  platformMethods: Readonly<Record<string, RpcMethod<Ctx>>>,
  ethCall: EthCall,
  testing: NodeTesting | undefined,
) {
  const unknownMethod = (m: string) => `the method ${m} does not exist/is not available`;
  const random = deps.random;
  const open = { ...platformMethods, ...evmKeyedMethods, ...(testing ? evmTestMethods : {}) } as Record<string, RpcMethod<Ctx>>;
  const closed = { ...platformMethods, ...evmKeyedMethods, ...(testing ? refusing(evmTestMethods) : {}) } as Record<string, RpcMethod<Ctx>>;
  const projectOpen = testing ? evmProjectMethods : {};
  const projectClosed = testing ? refusing(evmProjectMethods) : {};
  const devAccounts: DevAccounts = testing?.devAccounts ?? new Map();

  return async (call: EvmCall): Promise<unknown> => {
    const allowed = testing?.allows(call.headers) ?? false;
    const table = allowed ? open : closed;
    const projectTable = allowed ? projectOpen : projectClosed;
    // Made once the project's lock is held: the time budget counts the request's work, not its wait for the lock.
    const contextOf = (tx: ProjectTx): Ctx => {
      creditDevAccounts(tx, devAccounts);
      const evmBudget = evmTimeBudget(deps.evmTimeoutMs);
      return {
        network: call.network,
        chainId: call.chainId,
        store: tx,
        clock: deps.clock,
        contracts: CHAIN_CONTRACTS,
        random,
        ethCall,
        devAccounts,
        ...(evmBudget ? { evmBudget } : {}),
      };
    };
    const onLedger = (payload: unknown) => answerOnLedger(deps, call.projectId, payload, table, contextOf, unknownMethod);
    const isProjectMethod = (m: unknown) =>
      !!m && typeof m === "object" && typeof (m as { method?: unknown }).method === "string" && Object.hasOwn(projectTable, (m as { method: string }).method);
    const messages = Array.isArray(call.payload) ? call.payload : [call.payload];
    if (!testing || !messages.some(isProjectMethod)) return onLedger(call.payload);
    const projectCtx: ProjectMethodContext = {
      store: deps.store,
      projectId: call.projectId,
      clock: deps.clock,
      snapshots: testing.snapshots,
      reindex: testing.reindex,
      exportProject: testing.exportProject,
    };
    const answers: unknown[] = [];
    for (const message of messages)
      answers.push(
        isProjectMethod(message)
          ? await deps.locks.run(call.projectId, true, () => answer(message, projectTable, projectCtx, unknownMethod))
          : await onLedger(message),
      );
    return Array.isArray(call.payload) ? answers : answers[0];
  };
}
