/** Raw WebSocket clients for the node's subscription tests: one that queues what it receives, one that expects a refusal. */
import WebSocket from "ws";

/** A connected raw client that queues what it receives. */
export async function openWebSocket(url: string) {
  const ws = new WebSocket(url);
  const inbox: unknown[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    inbox.push(JSON.parse(data.toString()));
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve, reject) => ws.once("open", resolve).once("error", reject));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC messages are checked field by field
  const next = async (): Promise<any> => {
    while (inbox.length === 0) await new Promise<void>((wake) => waiters.push(wake));
    return inbox.shift();
  };
  return { ws, inbox, next, send: (message: object) => ws.send(JSON.stringify({ jsonrpc: "2.0", ...message })) };
}

/** The status a refused upgrade answers with (rejects if the upgrade is accepted). */
export const refusedWith = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("open", () => reject(new Error("the upgrade was accepted")));
    ws.on("error", () => undefined);
  });

/**
 * Closes the subscription socket of a @solana/web3.js Connection for good. web3.js keeps the socket private and
 * reconnects it without end once the server drops it (every second, each failure printed as `ws error: …`), so a
 * Connection left open when its sandbox closes keeps trying for the rest of the test worker's life.
 */
export function closeSolanaSocket(connection: object): void {
  const socket = (connection as { _rpcWebSocket?: { setAutoReconnect(on: boolean): void; close(): void } })._rpcWebSocket;
  socket?.setAutoReconnect(false);
  socket?.close();
}
