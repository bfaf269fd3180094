/**
 * The node the official client reads: `GET /apikeys/v1/tokens/active` hands
 * out the caller's client API key, and JSON-RPC 2.0 at
 * `/rpc/v1/{network}/{token}` answers from that project's ledger — enough for
 * viem's public client, `waitForTransactionReceipt` and
 * `eth_sendRawTransaction` of transactions signed anywhere, and the `cdp_`
 * methods front-end kits call (`clientRpc/`). The token is the client API key
 * (or, as before client keys, the project id; `nodeToken.ts`); browsers may
 * call it from any origin (`cors.ts`).
 *
 * Like a platform request, a node call authenticates with the pipeline's
 * bearer check, holds the project's write lock (sends and due deliveries
 * write the ledger), lands what the clock made due first, and commits once.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Request, type Response } from "express";
import type { AuthMode } from "../auth/bearer.js";
import type { Clock } from "../clock.js";
import { chainIdOf } from "../chain/networks.js";
import { MAX_JSON_DEPTH, nestsDeeperThan, turnAfterLargeBody } from "../pipeline/body.js";
import { errorResponse } from "../pipeline/errors.js";
import { redirectedFrom } from "../pipeline/exchange.js";
import { sendOutgoing } from "../pipeline/write.js";
import { authenticateApiKey } from "../pipeline/authenticate.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import { clientRpcMethods, nodeEthCall } from "./clientRpc/methods.js";
import { nodeCors } from "./cors.js";
import { evmMethods } from "./evm/methods.js";
import { createEvmDoor, type NodeTesting } from "./evm/testDoor.js";
import { answerOnLedger } from "./answerOnLedger.js";
import { batchTextTooLarge, batchTooLarge, rpcFailure, stringifyWithBigInts } from "./jsonRpc.js";
import { nodeCaller, UNKNOWN_NODE_TOKEN } from "./nodeToken.js";
import { createOnrampV1Router } from "./onrampV1.js";
import { isSolanaNetwork, solanaMethods } from "./solana/methods.js";
import type { Journal, ViolationKind } from "../pipeline/journal.js";
import { recordNodeCall } from "./journalRpc.js";

export interface NodeDeps {
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  /** For the ids of the webhook events that due transitions emit before a call. */
  random: Random;
  authMode: AuthMode;
  /** The sandbox's per-project write locks: the node writes the same ledgers as the platform API. */
  locks: ProjectLocks;
  /** Where each call (each method of a batch) is recorded. */
  journal?: Journal;
  /** The test methods (`anvil_*`, `evm_*`…) and dev accounts (evm/testDoor.ts); without it the node answers neither. */
  testing?: NodeTesting;
  /** The time budget of one request's read-only EVM work (chain/evm/evmBudget.ts); undefined: the default, 0: none. */
  evmTimeoutMs?: number;
}

/**
 * A JSON-RPC call to `/rpc/v1/{network}/{token}` (path parameters decoded), its raw body in `req.body`. Plain
 * node:http, so the assembly can hand it the usual call straight away, past Express's router (app.ts).
 */
export type NodeRpc = (req: IncomingMessage & { body?: unknown }, res: ServerResponse, network: string, token: string) => Promise<void>;

export function createNodeRpc(deps: NodeDeps): NodeRpc {
  // The EVM table and the client-side cdp_ methods, answered on the same URL.
  const evmNodeMethods = { ...evmMethods, ...clientRpcMethods };
  const evmDoor = createEvmDoor({ ...deps, random: deps.random.fork("client-rpc") }, evmNodeMethods, nodeEthCall, deps.testing);
  const journalIds = deps.random.fork("node-journal");
  return async (req, res, network, token) => {
    const receivedAt = Date.now();
    let payload: unknown;
    // Decoded once, for the parse and the journal both (a batch may be megabytes).
    let decoded: string | undefined;
    const bodyText = () => (decoded ??= Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "");
    /** `whole`: the node refused the request as one (a batch over the cap): one journal entry, not one per call. */
    const send = (status: number, text: string, answer?: unknown, violation?: ViolationKind, whole = false) => {
      sendOutgoing(res, { status, headers: { "content-type": "application/json" }, bodyText: text });
      if (!deps.journal) return;
      const { authorization: _token, ...headers } = req.headers as Record<string, string>;
      recordNodeCall(deps.journal, {
        projectId: nodeCaller(token, deps.store, deps.projects)?.projectId,
        correlationId: () => `${journalIds.hex(8)}-SBX`,
        receivedAt,
        wallNow: Date.now(),
        // The node token in the path names the project; the journal shows it as it shows other credentials.
        path: `/rpc/v1/${network}/<node token>`,
        headers,
        status,
        payload,
        answer,
        answerText: text,
        requestText: bodyText(),
        violation,
        whole,
      });
    };
    const chainId = chainIdOf(network);
    const solana = isSolanaNetwork(network);
    if (chainId === undefined && !solana) {
      send(404, JSON.stringify(rpcFailure(-32001, `unknown network ${network}`)), undefined, "route");
      return;
    }
    const caller = nodeCaller(token, deps.store, deps.projects);
    if (!caller) {
      send(401, JSON.stringify(rpcFailure(-32001, UNKNOWN_NODE_TOKEN)), undefined, "auth");
      return;
    }
    const projectId = caller.projectId;
    const text = bodyText();
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      send(200, JSON.stringify(rpcFailure(-32600, `the request nests deeper than ${MAX_JSON_DEPTH} levels`)), undefined, "rpc");
      return;
    }
    // Refused whole before anything of it runs, without the project's lock or a journal entry per call (1,001
    // entries, each body copied and redacted, held the loop 80–290 ms), and from its text a call at a time.
    const overCap = await batchTextTooLarge(text);
    if (overCap) {
      send(200, JSON.stringify(overCap), overCap, "rpc", true);
      return;
    }
    try {
      payload = JSON.parse(text);
    } catch {
      send(200, JSON.stringify(rpcFailure(-32700, "parse error")), undefined, "rpc");
      return;
    }
    await turnAfterLargeBody(text);
    const tooLarge = Array.isArray(payload) ? batchTooLarge(payload) : undefined;
    if (tooLarge) {
      send(200, JSON.stringify(tooLarge), tooLarge, "rpc", true);
      return;
    }
    const out = solana
      ? await answerOnLedger(
          deps,
          projectId,
          payload,
          solanaMethods,
          (tx) => ({ network, store: tx, clock: deps.clock }),
          () => "Method not found",
        )
      : await evmDoor({ projectId, network, chainId: chainId!, payload, headers: req.headers });
    send(200, stringifyWithBigInts(out), out);
  };
}

/** The node's routes for Express; `rpc` answers the JSON-RPC URL (the same one the assembly's quick path calls). */
export function createNodeRouter(deps: NodeDeps, rpc: NodeRpc = createNodeRpc(deps)): express.Router {
  const router = express.Router();
  const correlationIds = deps.random.fork("node-correlation");

  router.get("/apikeys/v1/tokens/active", async (req: Request, res: Response) => {
    try {
      const target = { method: "GET", host: req.headers.host ?? "", redirectedFrom: redirectedFrom(req), path: req.path };
      const projectId =
        deps.authMode === "none"
          ? deps.projects.defaultProjectId()
          : (await authenticateApiKey(target, { mode: deps.authMode, projects: deps.projects }, req.headers.authorization)).projectId;
      res.json({ id: await deps.projects.clientKeyOf(projectId) });
    } catch (error) {
      const correlationId = `${correlationIds.hex(8)}-SBX`;
      const out = errorResponse(error, correlationId);
      res.status(out.status).set(out.headers).set("x-correlation-id", correlationId).send(out.bodyText);
    }
  });

  router.use(createOnrampV1Router({ store: deps.store, clock: deps.clock, random: deps.random.fork("onramp-v1"), clientKeys: deps.projects }));
  router.use("/rpc/v1", nodeCors);
  router.post("/rpc/v1/:network/:token", (req: Request, res: Response) => rpc(req, res, String(req.params.network), String(req.params.token)));
  return router;
}
