/** What the node's WebSocket dispatcher (`webSockets.ts`) and the subscription endpoints it hands upgrades to share. */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Clock } from "../clock.js";
import type { Store } from "../store/store.js";
import { rpcFailure } from "./jsonRpc.js";

/** Whose node a WebSocket is: the network of its path, the project its token names, and the token itself. */
export interface WebSocketTarget {
  network: string;
  projectId: string;
  /** The client API key (or project id) the socket was opened with: rotating that key closes the socket. */
  token: string;
}

/** One kind of node WebSocket: takes an upgrade the dispatcher has checked, and stops with the server. */
export interface WebSocketEndpoint {
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, target: WebSocketTarget): void;
  /** Closes every socket opened with `token` (a client API key just rotated away): code 1008, ROTATED_KEY_REASON. */
  retire(token: string): void;
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
type SubscriptionCheck = () => void;

/** A connection being served: the check of its subscriptions, and how many it holds. */
export interface ServedConnection {
  check: SubscriptionCheck;
  subscriptions(): number;
}

/**
 * Whether a connection may open one more subscription: undefined if so, else why not (the connection, its project or
 * the sandbox holds as many as it may).
 */
export type SubscriptionRoom = () => string | undefined;

/**
 * What changed in a project that a check may want to read again: a count that moves with each of its commits (a
 * snapshot restored counts) and each time the clock is set. Equal counts: nothing a subscription reads has changed.
 */
export type ChangeCount = (projectId: string) => number;

/** Open WebSockets of one kind per sandbox; one more is refused with 503 before the upgrade. */
const MAX_CONNECTIONS = 256;
/** Open WebSockets of one kind per project (429 beyond): one project cannot take every socket of the sandbox. */
const MAX_PROJECT_CONNECTIONS = 64;
/** Subscriptions per connection: a subscription is checked again and again, so each one costs the node. */
const MAX_SUBSCRIPTIONS = 128;
/** Subscriptions of one kind per project, over all its connections, and per sandbox. */
const MAX_PROJECT_SUBSCRIPTIONS = 1_024;
const MAX_SANDBOX_SUBSCRIPTIONS = 4_096;

/** The close code and reason of a socket whose client API key was rotated (1008: policy violation). */
const ROTATED_KEY_CODE = 1008;
const ROTATED_KEY_REASON = "client API key rotated: reconnect with the current key";

interface Connection {
  projectId: string;
  token: string;
  served: ServedConnection;
}

/**
 * The connection bookkeeping of a subscription endpoint: it takes upgrades up to MAX_CONNECTIONS per sandbox (503
 * beyond) and MAX_PROJECT_CONNECTIONS per project (429 beyond), serves each with `serve`, bounds subscriptions per
 * connection, project and sandbox, and runs every open connection's check when the clock changes and every
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
  serve: (ws: WebSocket, target: WebSocketTarget, changeOf: ChangeCount, room: SubscriptionRoom) => ServedConnection;
}): WebSocketEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload });
  const connections = new Map<WebSocket, Connection>();
  const checkAll = () => {
    for (const c of connections.values()) c.served.check();
  };
  const commits = new Map<string, number>();
  let clockChanges = 0;
  const changeOf: ChangeCount = (projectId) => clockChanges + (commits.get(projectId) ?? 0);
  const stopCommits = o.store.onCommit((projectId) => {
    commits.set(projectId, (commits.get(projectId) ?? 0) + 1);
    if (o.checkOnCommit) for (const c of connections.values()) if (c.projectId === projectId) c.served.check();
  });
  const stopClock = o.clock.onChange(() => {
    clockChanges++;
    checkAll();
  });
  const connectionsOf = (projectId: string) => {
    let n = 0;
    for (const c of connections.values()) if (c.projectId === projectId) n++;
    return n;
  };
  // Counted when a subscription is asked for (rare next to checks): at most MAX_CONNECTIONS small sums.
  const roomOf =
    (ws: WebSocket): SubscriptionRoom =>
    () => {
      const own = connections.get(ws);
      if (!own) return "the connection is closing";
      if (own.served.subscriptions() >= MAX_SUBSCRIPTIONS) return `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`;
      let project = 0;
      let all = 0;
      for (const c of connections.values()) {
        const n = c.served.subscriptions();
        all += n;
        if (c.projectId === own.projectId) project += n;
      }
      if (project >= MAX_PROJECT_SUBSCRIPTIONS) return `at most ${MAX_PROJECT_SUBSCRIPTIONS} ${o.name} subscriptions per project`;
      if (all >= MAX_SANDBOX_SUBSCRIPTIONS) return `at most ${MAX_SANDBOX_SUBSCRIPTIONS} ${o.name} subscriptions per sandbox`;
      return undefined;
    };
  // The interval runs only while a connection is open: with none there is nothing to check.
  let timer: NodeJS.Timeout | undefined;

  return {
    accept(req, socket, head, target) {
      if (connections.size >= MAX_CONNECTIONS)
        return refuseUpgrade(socket, 503, "Service Unavailable", `the node serves at most ${MAX_CONNECTIONS} ${o.name} WebSockets at once`);
      if (connectionsOf(target.projectId) >= MAX_PROJECT_CONNECTIONS)
        return refuseUpgrade(socket, 429, "Too Many Requests", `the node serves at most ${MAX_PROJECT_CONNECTIONS} ${o.name} WebSockets per project at once`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const served = o.serve(ws, target, changeOf, roomOf(ws));
        connections.set(ws, { projectId: target.projectId, token: target.token, served });
        timer ??= setInterval(checkAll, o.checkEveryMs).unref();
        ws.on("close", () => {
          connections.delete(ws);
          if (connections.size === 0) {
            clearInterval(timer);
            timer = undefined;
          }
        });
      });
    },
    retire(token) {
      for (const [ws, c] of connections) if (c.token === token) ws.close(ROTATED_KEY_CODE, ROTATED_KEY_REASON);
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
