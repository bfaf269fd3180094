/**
 * The EVM node over WebSocket, on the HTTP node's paths (`ws://…/rpc/v1/{network}/{token}`, same network and token
 * rules, checked by `webSockets.ts` before the upgrade): what viem's `webSocket` transport, `watchBlocks` and
 * `watchContractEvent` use.
 *
 * - every method of the HTTP node answers as it does there (the project's lock, due work settled first, one commit);
 * - `eth_subscribe` ["newHeads"] sends each new block's header; ["logs", {address?, topics?}] each matching log of
 *   a successful transaction once its block is mined; ["newPendingTransactions"] each new transaction's hash as it
 *   is sent (before its block in `interval` mining; with automine, its block is mined at once);
 * - `eth_unsubscribe` [id] answers whether the subscription existed.
 *
 * What is new is read from the project's ledger: subscriptions are checked when the project commits (a send, a
 * faucet, a settlement), when the clock is set or advanced, and on a short interval while any is open (wall-clock
 * blocks). Connections and subscriptions are bounded; a connection's broken frame ends that connection only.
 */
import { type Hex, isAddress } from "viem";
import { type LedgerTx, ledgerTxs } from "../chain/evm/ledger.js";
import { nextTurn } from "../byTurns.js";
import { chainIdOf } from "../chain/networks.js";
import { CHAIN_CONTRACTS } from "../products/sandboxContracts.js";
import type { Clock } from "../clock.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import type { WebSocket } from "ws";
import { eth_getBlockByNumber } from "./evm/chain.js";
import { type EvmNodeContext, hex, latestBlock } from "./evm/context.js";
import { evmMethods } from "./evm/methods.js";
import { receiptView } from "./evm/views.js";
import { recordWebSocketMessage, type WebSocketJournal } from "./journalRpc.js";
import { type EvmTimeBudget, evmTimeBudget } from "../chain/evm/evmBudget.js";
import { answerOnLedger } from "./answerOnLedger.js";
import { batchTooLarge, requestTimedOut } from "./jsonRpc.js";
import { type ServedConnection, type SubscriptionRoom, subscriptionEndpoint, type WebSocketEndpoint, type WebSocketTarget } from "./webSocketEndpoint.js";

export interface EvmWebSocketDeps {
  store: Store;
  clock: Clock;
  random: Random;
  locks: ProjectLocks;
  /** Each message a client sends is recorded here, with its answer. */
  journal?: WebSocketJournal;
  /** The time budget of one message's read-only EVM work (evmBudget.ts); undefined: the default, 0: none. */
  evmTimeoutMs?: number;
}

/** The time budget of one message (evmBudget.ts), started when its first call holds the project's lock. */
interface MessageBudget {
  started(): EvmTimeBudget | undefined;
  exhausted(): boolean;
}

function messageBudget(ms: number | undefined): MessageBudget {
  let budget: EvmTimeBudget | undefined;
  let started = false;
  return {
    started() {
      if (!started) budget = evmTimeBudget(ms);
      started = true;
      return budget;
    },
    exhausted: () => budget?.exhausted === true,
  };
}

/** How often open subscriptions are checked besides commits and clock changes, in wall milliseconds. */
const CHECK_INTERVAL_MS = 100;
/** The largest message a client may send. */
const MAX_PAYLOAD = 1024 * 1024;
/** At most this many block headers per check: a clock jump of a day on Base is 43,200 blocks; the newest are sent. */
const MAX_HEADS_PER_CHECK = 64;

type TopicFilter = (Hex | null | (Hex | null)[])[];

type Subscription =
  | { kind: "newHeads"; lastBlock: number }
  | { kind: "logs"; lastBlock: number; addresses?: string[]; topics: TopicFilter }
  | { kind: "newPendingTransactions"; seen: number };

class InvalidParams extends Error {}

const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/** The `logs` filter of eth_subscribe, checked as a node checks it. */
function readLogFilter(raw: unknown): { addresses?: string[]; topics: TopicFilter } {
  if (raw === undefined || raw === null) return { topics: [] };
  if (typeof raw !== "object" || Array.isArray(raw)) throw new InvalidParams("the logs filter must be an object {address?, topics?}");
  const { address, topics } = raw as { address?: unknown; topics?: unknown };
  let addresses: string[] | undefined;
  if (address !== undefined && address !== null) {
    const list = Array.isArray(address) ? address : [address];
    if (!list.every((a) => typeof a === "string" && isAddress(a, { strict: false })))
      throw new InvalidParams("address must be an address or a list of addresses");
    addresses = (list as string[]).map((a) => a.toLowerCase());
  }
  if (topics === undefined || topics === null) return { addresses, topics: [] };
  if (!Array.isArray(topics) || topics.length > 4) throw new InvalidParams("topics must be a list of at most 4 positions");
  const isTopic = (t: unknown) => t === null || (typeof t === "string" && HASH32.test(t));
  for (const position of topics) {
    if (Array.isArray(position) ? !position.every(isTopic) : !isTopic(position))
      throw new InvalidParams("each topic is null, a 32-byte hash, or a list of them");
  }
  return { addresses, topics: topics as TopicFilter };
}

function matches(log: { address: string; topics: readonly Hex[] }, sub: { addresses?: string[]; topics: TopicFilter }): boolean {
  if (sub.addresses && !sub.addresses.includes(log.address.toLowerCase())) return false;
  return sub.topics.every((position, i) => {
    if (position === null) return true;
    const topic = log.topics[i]?.toLowerCase();
    if (topic === undefined) return false;
    const wanted = Array.isArray(position) ? position : [position];
    return wanted.some((w) => w === null || w.toLowerCase() === topic);
  });
}

/** Serves `eth_subscribe` and the node's methods on the upgrades `webSockets.ts` hands it (an EVM network, a known token). */
export function evmSubscriptions(deps: EvmWebSocketDeps): WebSocketEndpoint {
  return subscriptionEndpoint({
    name: "EVM",
    store: deps.store,
    clock: deps.clock,
    maxPayload: MAX_PAYLOAD,
    checkEveryMs: CHECK_INTERVAL_MS,
    checkOnCommit: true,
    serve: (ws, target, _changeOf, room) => serve(ws, target, deps, room),
  });
}

/** One connection: answers its messages and returns the check of its subscriptions. */
function serve(ws: WebSocket, { network, projectId }: WebSocketTarget, deps: EvmWebSocketDeps, room: SubscriptionRoom): ServedConnection {
  const chainId = chainIdOf(network)!;
  const subscriptions = new Map<string, Subscription>();
  let nextId = 1;
  // A read of the committed ledger: the transaction is never committed, so a check changes nothing.
  const readContext = (): EvmNodeContext | undefined =>
    deps.store.project(projectId) ? { network, chainId, store: deps.store.begin(projectId), clock: deps.clock, contracts: CHAIN_CONTRACTS } : undefined;
  const send = (message: object) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message, (_k, v) => (typeof v === "bigint" ? hex(v) : v)));
  };
  const notify = (subscription: string, result: unknown) => send({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription, result } });
  /** Transactions of this network recorded after the first `seen` of the project's (the ledger keeps them in the order sent). */
  const sentSince = (ctx: EvmNodeContext, seen: number): { txs: LedgerTx[]; total: number } => {
    let index = 0;
    const txs = ledgerTxs(ctx.store).filter((t) => index++ >= seen && t.network === network);
    return { txs, total: index };
  };
  const minedIn = (ctx: EvmNodeContext, from: number, to: number) =>
    ledgerTxs(ctx.store)
      .filter((t) => t.network === network && t.block > from && t.block <= to && t.status === "success")
      .sort((a, b) => a.block - b.block);

  const checkSubscriptions = () => {
    if (subscriptions.size === 0) return;
    const ctx = readContext();
    if (!ctx) return;
    const head = latestBlock(ctx);
    // A block's header is made once per check, however many newHeads subscriptions the connection holds (up to 128).
    const headers = new Map<number, object>();
    const headerOf = (n: number) => {
      let header = headers.get(n);
      if (!header) {
        const { transactions: _transactions, ...fields } = eth_getBlockByNumber([hex(n), false], ctx)!;
        header = fields;
        headers.set(n, header);
      }
      return header;
    };
    for (const [id, sub] of subscriptions) {
      if (sub.kind === "newPendingTransactions") {
        const { txs, total } = sentSince(ctx, sub.seen);
        sub.seen = total;
        for (const t of txs) notify(id, t.hash);
        continue;
      }
      if (head <= sub.lastBlock) {
        sub.lastBlock = Math.min(sub.lastBlock, head);
        continue;
      }
      const from = sub.lastBlock;
      sub.lastBlock = head;
      if (sub.kind === "newHeads") {
        for (let n = Math.max(from + 1, head - MAX_HEADS_PER_CHECK + 1); n <= head; n++) notify(id, headerOf(n));
        continue;
      }
      for (const t of minedIn(ctx, from, head)) {
        for (const log of receiptView(t).logs) if (matches(log, sub)) notify(id, log);
      }
    }
  };

  // Runs in a committer's turn and on timers: whatever goes wrong ends this connection, never the caller.
  const check = () => {
    try {
      checkSubscriptions();
    } catch {
      ws.terminate();
    }
  };

  const subscribe = (args: unknown[]): string => {
    const full = room();
    if (full) throw new InvalidParams(full);
    const ctx = readContext();
    if (!ctx) throw new InvalidParams("the project no longer exists");
    const head = latestBlock(ctx);
    let sub: Subscription;
    switch (args[0]) {
      case "newHeads":
        sub = { kind: "newHeads", lastBlock: head };
        break;
      case "logs":
        sub = { kind: "logs", lastBlock: head, ...readLogFilter(args[1]) };
        break;
      case "newPendingTransactions":
        sub = { kind: "newPendingTransactions", seen: sentSince(ctx, Number.MAX_SAFE_INTEGER).total };
        break;
      default:
        throw new InvalidParams(`unknown subscription ${JSON.stringify(args[0])}; newHeads, logs and newPendingTransactions are served`);
    }
    const id = hex(nextId++);
    subscriptions.set(id, sub);
    return id;
  };

  /** Any other method, as the HTTP node answers it, with the time budget of the message (a batch's, shared) it is part of. */
  const call = (message: unknown, budget: MessageBudget) =>
    answerOnLedger(
      deps,
      projectId,
      message,
      evmMethods,
      (tx) => {
        const evmBudget = budget.started();
        return { network, chainId, store: tx, clock: deps.clock, contracts: CHAIN_CONTRACTS, ...(evmBudget ? { evmBudget } : {}) };
      },
      (m) => `the method ${m} does not exist/is not available`,
    );

  const handle = async (message: unknown, budget: MessageBudget): Promise<unknown> => {
    if (!message || typeof message !== "object" || Array.isArray(message))
      return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } };
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    const args = Array.isArray(params) ? params : [];
    try {
      if (method === "eth_subscribe") return { jsonrpc: "2.0", id: id ?? null, result: subscribe(args) };
      if (method === "eth_unsubscribe") {
        const known = typeof args[0] === "string" && subscriptions.delete(args[0]);
        return { jsonrpc: "2.0", id: id ?? null, result: known };
      }
    } catch (error) {
      if (error instanceof InvalidParams) return { jsonrpc: "2.0", id: id ?? null, error: { code: -32602, message: `invalid params: ${error.message}` } };
      throw error;
    }
    if (!deps.store.project(projectId)) return { jsonrpc: "2.0", id: id ?? null, error: { code: -32001, message: "unknown node token" } };
    return call(message, budget);
  };

  ws.on("error", () => ws.terminate()); // a broken frame or an oversized message ends this connection only
  ws.on("message", (data, isBinary) => {
    const receivedAt = Date.now();
    const request = isBinary ? "<binary>" : data.toString();
    // Each message goes into the journal with its answer, once answered.
    const answer = (message: object) => {
      send(message);
      recordWebSocketMessage(deps.journal, { projectId, network, receivedAt, request, answer: JSON.stringify(message), wallNow: Date.now() });
    };
    if (isBinary) return answer({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error: send JSON text" } });
    let payload: unknown;
    try {
      payload = JSON.parse(request);
    } catch {
      return answer({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    }
    const reply = async () => {
      const budget = messageBudget(deps.evmTimeoutMs);
      // A batch is answered in order, as the HTTP node answers one: capped, letting the loop go between calls, and
      // with one time budget: once a run of it was aborted, the calls after it are not run.
      if (!Array.isArray(payload)) return handle(payload, budget);
      const refused = batchTooLarge(payload);
      if (refused) return refused;
      const out: unknown[] = [];
      for (const [i, message] of payload.entries()) {
        if (budget.exhausted()) {
          out.push(requestTimedOut((message as { id?: unknown } | null)?.id));
          continue;
        }
        if (i > 0) await nextTurn();
        out.push(await handle(message, budget));
      }
      return out;
    };
    reply().then(
      (out) => {
        answer(out as object);
        check(); // a send over this socket is announced to its own subscriptions without waiting
      },
      (error: Error) => answer({ jsonrpc: "2.0", id: (payload as { id?: unknown })?.id ?? null, error: { code: -32603, message: error.message } }),
    );
  });
  return { check, subscriptions: () => subscriptions.size };
}
