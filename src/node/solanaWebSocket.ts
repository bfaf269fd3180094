/**
 * Solana's PubSub over WebSocket, on the same paths as the node's HTTP JSON-RPC (`/rpc/v1/{solana|solana-devnet}/{token}`,
 * the same network and token rules): what @solana/web3.js's `confirmTransaction` subscribes to.
 *
 * - `signatureSubscribe` [signature, {commitment}] answers a subscription id, then sends one
 *   `signatureNotification` once the transaction reaches the commitment (at once if it already has) and ends it;
 * - `slotSubscribe` sends a `slotNotification` each time the head slot moves;
 * - `accountSubscribe` [address, {encoding}] sends an `accountNotification` each time the account changes;
 * - `programSubscribe` [program, {encoding, filters}] sends a `programNotification` for each account of the program
 *   that changes (it compares the program's accounts after each commit of the project: its cost grows with their
 *   number);
 * - `logsSubscribe` ["all" | {mentions: [address]}] sends a `logsNotification` for each transaction that lands
 *   (one naming the address), with its signature, error and logs;
 * - `<kind>Unsubscribe` [id] answers whether the subscription existed;
 * - any other method is error -32601; a message without an id is a notification and gets no answer.
 *
 * Landing follows getSignatureStatuses on the project's ledger and the sandbox clock: subscriptions are checked when
 * the clock is set or advanced, and on a short interval while any is open (automine and wall-clock slots).
 */
import type { WebSocket } from "ws";
import type { Clock } from "../clock.js";
import type { Store } from "../store/store.js";
import { RpcError } from "./jsonRpc.js";
import { recordWebSocketMessage, type WebSocketJournal } from "./journalRpc.js";
import { solanaMethods, type SolanaNodeContext } from "./solana/methods.js";
import { accountChanges, accountSnapshot, newLogs, programSnapshot } from "./solana/subscriptions.js";
import { type ChangeCount, type ServedConnection, type SubscriptionRoom, subscriptionEndpoint, type WebSocketEndpoint } from "./webSocketEndpoint.js";

export interface SolanaWebSocketDeps {
  store: Store;
  clock: Clock;
  /** Each message a client sends is recorded here, with its answer. */
  journal?: WebSocketJournal;
}

/** How often open subscriptions are checked besides clock changes, in wall milliseconds. */
const CHECK_INTERVAL_MS = 100;
/** The largest message a client may send (a subscription request is a few hundred bytes). */
const MAX_PAYLOAD = 64 * 1024;

type Subscription =
  | { kind: "signature"; signature: string; commitment: string }
  | { kind: "slot"; lastSlot: number }
  | { kind: "account"; address: string; encoding: unknown; last: string; seen: number }
  | { kind: "program"; program: string; options: { encoding?: unknown; filters?: unknown }; last: Map<string, string>; seen: number }
  | { kind: "logs"; mentions: string; seen: Set<string> };

const SUBSCRIBE = new Set(["signatureSubscribe", "slotSubscribe", "accountSubscribe", "programSubscribe", "logsSubscribe"]);

const UNSUBSCRIBE: Record<string, Subscription["kind"]> = {
  signatureUnsubscribe: "signature",
  slotUnsubscribe: "slot",
  accountUnsubscribe: "account",
  programUnsubscribe: "program",
  logsUnsubscribe: "logs",
};

interface SignatureStatus {
  slot: number;
  err: unknown;
  confirmationStatus: string;
}

/** Serves Solana PubSub on the upgrades `webSockets.ts` hands it (a Solana network, a known node token). */
export function solanaPubSub(deps: SolanaWebSocketDeps): WebSocketEndpoint {
  return subscriptionEndpoint({
    name: "Solana",
    store: deps.store,
    clock: deps.clock,
    maxPayload: MAX_PAYLOAD,
    checkEveryMs: CHECK_INTERVAL_MS,
    checkOnCommit: false,
    serve: (ws, { network, projectId }, changeOf, room) => serve(ws, { network, projectId, deps, changeOf, room }),
  });
}

/**
 * One connection: answers its messages and returns the check of its subscriptions. Account and program
 * subscriptions, whose checks cost more the more accounts a program owns (~60 ms for 10,000 token accounts), compare
 * again only when `changeOf` says the project changed since their last look.
 */
function serve(
  ws: WebSocket,
  o: { network: string; projectId: string; deps: SolanaWebSocketDeps; changeOf: ChangeCount; room: SubscriptionRoom },
): ServedConnection {
  const subscriptions = new Map<number, Subscription>();
  let nextId = 0;
  // A read of the committed ledger: a transaction never committed changes nothing.
  const context = (): SolanaNodeContext | undefined =>
    o.deps.store.project(o.projectId) ? { network: o.network, store: o.deps.store.begin(o.projectId), clock: o.deps.clock } : undefined;
  const send = (message: object) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  // The message being handled, so its answer is recorded with it (in the journal).
  let current: { receivedAt: number; request: string; answer?: string } | undefined;
  const reply = (id: unknown, body: object) => {
    const message = { jsonrpc: "2.0", id, ...body };
    if (current) current.answer = JSON.stringify(message);
    send(message);
  };

  const check = () => {
    if (subscriptions.size === 0) return;
    const ctx = context();
    if (!ctx) return;
    const slot = solanaMethods.getSlot!([], ctx) as number;
    for (const [id, sub] of subscriptions) {
      if (sub.kind === "slot") {
        if (slot === sub.lastSlot) continue;
        sub.lastSlot = slot;
        send({ jsonrpc: "2.0", method: "slotNotification", params: { result: { parent: slot - 1, root: slot, slot }, subscription: id } });
        continue;
      }
      if (sub.kind === "account") {
        const change = o.changeOf(o.projectId);
        if (change === sub.seen) continue;
        sub.seen = change;
        const now = accountSnapshot(ctx, sub.address, sub.encoding);
        if (now === sub.last) continue;
        sub.last = now;
        send({ jsonrpc: "2.0", method: "accountNotification", params: { result: { context: { slot }, value: JSON.parse(now) }, subscription: id } });
        continue;
      }
      if (sub.kind === "program") {
        const change = o.changeOf(o.projectId);
        if (change === sub.seen) continue;
        sub.seen = change;
        const now = programSnapshot(ctx, sub.program, sub.options);
        for (const value of accountChanges(sub.last, now)) {
          send({ jsonrpc: "2.0", method: "programNotification", params: { result: { context: { slot }, value }, subscription: id } });
        }
        sub.last = now;
        continue;
      }
      if (sub.kind === "logs") {
        for (const value of newLogs(ctx, sub.mentions, sub.seen)) {
          send({ jsonrpc: "2.0", method: "logsNotification", params: { result: { context: { slot }, value }, subscription: id } });
        }
        continue;
      }
      const statuses = solanaMethods.getSignatureStatuses!([[sub.signature]], ctx) as { value: (SignatureStatus | null)[] };
      const status = statuses.value[0];
      if (!status) continue;
      if (sub.commitment !== "processed" && status.confirmationStatus === "processed") continue;
      subscriptions.delete(id);
      send({
        jsonrpc: "2.0",
        method: "signatureNotification",
        params: { result: { context: { slot: status.slot }, value: { err: status.err } }, subscription: id },
      });
    }
  };

  const handle = (message: unknown) => {
    if (!message || typeof message !== "object" || Array.isArray(message)) return reply(null, { error: { code: -32600, message: "Invalid request" } });
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (id === undefined || id === null) return; // a notification (web3.js pings this way): no answer
    const args = Array.isArray(params) ? params : [];
    const invalid = (text: string) => reply(id, { error: { code: -32602, message: `Invalid params: ${text}` } });
    const full = SUBSCRIBE.has(method as string) ? o.room() : undefined;
    if (full) return invalid(full);
    switch (method) {
      case "signatureSubscribe": {
        const [signature, options] = args as [unknown, { commitment?: unknown } | undefined];
        if (typeof signature !== "string" || signature.length === 0) return invalid("expected a transaction signature");
        const commitment = typeof options?.commitment === "string" ? options.commitment : "finalized";
        if (!["processed", "confirmed", "finalized"].includes(commitment)) return invalid(`unknown commitment ${commitment}`);
        const sub = nextId++;
        subscriptions.set(sub, { kind: "signature", signature, commitment });
        reply(id, { result: sub });
        return check();
      }
      case "slotSubscribe": {
        const sub = nextId++;
        subscriptions.set(sub, { kind: "slot", lastSlot: -1 });
        reply(id, { result: sub });
        return check();
      }
      case "accountSubscribe": {
        const [address, options] = args as [unknown, { encoding?: unknown } | undefined];
        const ctx = context();
        if (typeof address !== "string" || !ctx) return invalid("expected an account address");
        const last = accountSnapshot(ctx, address, options?.encoding); // refuses a bad address or encoding
        const sub = nextId++;
        subscriptions.set(sub, { kind: "account", address, encoding: options?.encoding, last, seen: o.changeOf(o.projectId) });
        return reply(id, { result: sub });
      }
      case "programSubscribe": {
        const [program, options] = args as [unknown, { encoding?: unknown; filters?: unknown } | undefined];
        const ctx = context();
        if (typeof program !== "string" || !ctx) return invalid("expected a program address");
        const last = programSnapshot(ctx, program, options ?? {});
        const sub = nextId++;
        subscriptions.set(sub, { kind: "program", program, options: options ?? {}, last, seen: o.changeOf(o.projectId) });
        return reply(id, { result: sub });
      }
      case "logsSubscribe": {
        const filter = args[0] as unknown;
        const mentions =
          filter === "all" || filter === "allWithVotes"
            ? "*"
            : Array.isArray((filter as { mentions?: unknown })?.mentions) && (filter as { mentions: unknown[] }).mentions.length === 1
              ? String((filter as { mentions: unknown[] }).mentions[0])
              : undefined;
        const ctx = context();
        if (mentions === undefined || !ctx) return invalid('expected "all" or {"mentions": [one address]}');
        const seen = new Set<string>();
        newLogs(ctx, mentions, seen); // what landed before the subscription is not announced
        const sub = nextId++;
        subscriptions.set(sub, { kind: "logs", mentions, seen });
        return reply(id, { result: sub });
      }
      case "signatureUnsubscribe":
      case "slotUnsubscribe":
      case "accountUnsubscribe":
      case "programUnsubscribe":
      case "logsUnsubscribe": {
        const kind = UNSUBSCRIBE[method];
        const sub = args[0];
        if (typeof sub !== "number") return invalid("expected a subscription id");
        const known = subscriptions.get(sub)?.kind === kind;
        if (known) subscriptions.delete(sub);
        return known ? reply(id, { result: true }) : invalid("Invalid subscription id.");
      }
      default:
        return reply(id, { error: { code: -32601, message: "Method not found" } });
    }
  };

  ws.on("error", () => ws.terminate()); // a broken frame or an oversized message ends this connection only
  const receive = (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (isBinary) return reply(null, { error: { code: -32700, message: "Parse error: send JSON text" } });
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return reply(null, { error: { code: -32700, message: "Parse error" } });
    }
    try {
      handle(message);
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      reply((message as { id?: unknown }).id ?? null, { error: { code, message: (error as Error).message } });
    }
  };
  ws.on("message", (data, isBinary) => {
    current = { receivedAt: Date.now(), request: isBinary ? "<binary>" : data.toString() };
    receive(data, isBinary);
    const { network, projectId } = o;
    recordWebSocketMessage(o.deps.journal, { projectId, network, ...current, wallNow: Date.now() });
    current = undefined;
  });
  return { check, subscriptions: () => subscriptions.size };
}
