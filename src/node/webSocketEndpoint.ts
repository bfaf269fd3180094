/** What the node's WebSocket dispatcher (`webSockets.ts`) and the endpoints it hands upgrades to share. */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
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
