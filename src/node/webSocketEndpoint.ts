/** What the node's WebSocket dispatcher (`webSockets.ts`) and the subscription endpoints it hands upgrades to share. */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Clock } from "../clock.js";
import type { Store } from "../store/store.js";
import { rpcFailure } from "./jsonRpc.js";

/** Whose node a WebSocket is: the network of its path and the project its token names. */
export interface WebSocketTarget {
  network: string;
  projectId: string;
}

/** One kind of node WebSocket: takes an upgrade the dispatcher has checked, and stops with the server. */
export interface WebSocketEndpoint {
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, target: WebSocketTarget): void;
  close(): void;
}

/** Refuses an upgrade with a JSON-RPC error body, as the HTTP node refuses a POST. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, message: string): void {
  const body = JSON.stringify(rpcFailure(-32001, message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** A connection's check of its subscriptions: sends what is new since it last looked. */
export type SubscriptionCheck = () => void;

/**
 * What changed in a project that a check may want to read again: a count that moves with each of its commits (a
 * snapshot restored counts) and each time the clock is set. Equal counts: nothing a subscription reads has changed.
 */
export type ChangeCount = (projectId: string) => number;

/** Open WebSockets of one kind per sandbox; one more is refused with 503 before the upgrade. */
const MAX_CONNECTIONS = 256;
/** Subscriptions per connection: a subscription is checked again and again, so each one costs the node. */
export const MAX_SUBSCRIPTIONS = 128;

/**
 * The connection bookkeeping of a subscription endpoint: it takes upgrades up to MAX_CONNECTIONS (503 beyond),
 * serves each with `serve`, and runs every open connection's check when the clock changes and every
 * `checkEveryMs` while any connection is open; with `checkOnCommit`, a project's connections are also checked as
 * soon as it commits.
 */
export function subscriptionEndpoint(o: {
  /** Names the endpoint in the refusal beyond the limit ("EVM", "Solana"). */
  name: string;
  store: Store;
  clock: Clock;
  maxPayload: number;
  checkEveryMs: number;
  checkOnCommit: boolean;
  serve: (ws: WebSocket, target: WebSocketTarget, changeOf: ChangeCount) => SubscriptionCheck;
}): WebSocketEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload });
  const connections = new Map<SubscriptionCheck, string>();
  const checkAll = () => {
    for (const check of connections.keys()) check();
  };
  const commits = new Map<string, number>();
  let clockChanges = 0;
  const changeOf: ChangeCount = (projectId) => clockChanges + (commits.get(projectId) ?? 0);
  const stopCommits = o.store.onCommit((projectId) => {
    commits.set(projectId, (commits.get(projectId) ?? 0) + 1);
    if (o.checkOnCommit) for (const [check, project] of connections) if (project === projectId) check();
  });
  const stopClock = o.clock.onChange(() => {
    clockChanges++;
    checkAll();
  });
  // The interval runs only while a connection is open: with none there is nothing to check.
  let timer: NodeJS.Timeout | undefined;

  return {
    accept(req, socket, head, target) {
      if (connections.size >= MAX_CONNECTIONS)
        return refuseUpgrade(socket, 503, "Service Unavailable", `the node serves at most ${MAX_CONNECTIONS} ${o.name} WebSockets at once`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const check = o.serve(ws, target, changeOf);
        connections.set(check, target.projectId);
        timer ??= setInterval(checkAll, o.checkEveryMs).unref();
        ws.on("close", () => {
          connections.delete(check);
          if (connections.size === 0) {
            clearInterval(timer);
            timer = undefined;
          }
        });
      });
    },
    close() {
      stopClock();
      stopCommits();
      clearInterval(timer);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
