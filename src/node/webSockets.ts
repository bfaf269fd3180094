/**
 * The node's WebSockets: an upgrade to `/rpc/v1/{network}/{token}` (the HTTP node's path, under the same network and
 * token rules) is handed to Solana's PubSub (`solanaWebSocket.ts`) or the EVM's `eth_subscribe`
 * (`evmWebSocket.ts`); anything else is refused before the upgrade with the JSON-RPC error body the HTTP node
 * answers. The upgrade handler never throws: a refused upgrade ends that socket only. Rotating a project's client
 * API key closes the sockets opened with the old key (close code 1008, "client API key rotated: …").
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { chainIdOf } from "../chain/networks.js";
import type { Clock } from "../clock.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import { evmSubscriptions } from "./evmWebSocket.js";
import type { WebSocketJournal } from "./journalRpc.js";
import { type ClientKeyIndex, nodeCaller, UNKNOWN_NODE_TOKEN } from "./nodeToken.js";
import { isSolanaNetwork } from "./solana/methods.js";
import { solanaPubSub } from "./solanaWebSocket.js";
import { refuseUpgrade as refuse } from "./webSocketEndpoint.js";

export interface NodeWebSocketDeps {
  store: Store;
  clock: Clock;
  /** For the ids of the webhook events that due transitions emit before an EVM call. */
  random: Random;
  /** The sandbox's per-project write locks: an EVM call over the socket writes the ledger as an HTTP one does. */
  locks: ProjectLocks;
  /** The client API keys: a node URL names its project by one (or by the project id). */
  clientKeys: ClientKeyIndex;
  /** Each message a client sends over a node WebSocket is recorded here. */
  journal?: WebSocketJournal;
  /** The time budget of one message's read-only EVM work (chain/evm/evmBudget.ts); undefined: the default, 0: none. */
  evmTimeoutMs?: number;
}

const PATH = /^\/rpc\/v1\/([^/]+)\/([^/]+)\/?$/;

/** Serves the node's WebSockets on `server`'s upgrade requests; returns the function that closes them all. */
export function attachNodeWebSockets(server: Server, deps: NodeWebSocketDeps): () => void {
  const solana = solanaPubSub({ store: deps.store, clock: deps.clock, journal: deps.journal });
  const evm = evmSubscriptions(deps);
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? "/", "http://sandbox").pathname;
    } catch {
      return refuse(socket, 400, "Bad Request", "the request target is not a path");
    }
    const match = PATH.exec(pathname);
    if (!match) return refuse(socket, 404, "Not Found", "no WebSocket endpoint here; the node's is at /rpc/v1/{network}/{token}");
    let network: string;
    let token: string;
    try {
      network = decodeURIComponent(match[1]!);
      token = decodeURIComponent(match[2]!);
    } catch {
      return refuse(socket, 400, "Bad Request", "a path segment has a malformed percent-escape");
    }
    const solanaNetwork = isSolanaNetwork(network);
    if (!solanaNetwork && chainIdOf(network) === undefined) return refuse(socket, 404, "Not Found", `unknown network ${network}`);
    // Any Origin is accepted, as on the HTTP node: the client API key is public by design.
    const projectId = nodeCaller(token, deps.store, deps.clientKeys)?.projectId;
    if (!projectId) return refuse(socket, 401, "Unauthorized", UNKNOWN_NODE_TOKEN);
    (solanaNetwork ? solana : evm).accept(req, socket, head, { network, projectId, token });
  });
  // A rotated client key retires its node URL at once, the sockets opened with it included.
  const stopRetiring = deps.clientKeys.onClientKeyRetired((key) => {
    solana.retire(key);
    evm.retire(key);
  });
  return () => {
    stopRetiring();
    solana.close();
    evm.close();
  };
}
