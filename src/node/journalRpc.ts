/**
 * How a JSON-RPC node call goes into the request journal: one entry per
 * method, so a batch of ten is ten entries, each with its JSON-RPC method,
 * its error when it failed (code and message) and its own request and
 * response. Bundler methods (eth_sendUserOperation…) are node methods like
 * the others. The HTTP status is the node's: 200 for an answered call (a
 * JSON-RPC error included), 404 for an unknown network or node token.
 */
import type { Journal, ViolationKind } from "../pipeline/journal.js";
import { EVM_REVERTS, type EvmRevertTrace } from "../chain/evm/revertTrace.js";
import { CALLER_VIOLATION, stringifyWithBigInts } from "./jsonRpc.js";

interface RpcCall {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
}

interface RpcReply {
  id?: unknown;
  error?: { code?: unknown; message?: unknown };
  /** Where the EVM runs of this call failed (jsonRpc.ts's `answer` puts them there). */
  [EVM_REVERTS]?: EvmRevertTrace[];
  /** The caller broke the JSON-RPC or the method's contract (jsonRpc.ts's `answer` decides it). */
  [CALLER_VIOLATION]?: true;
}

export interface NodeCallFacts {
  projectId?: string;
  /** Makes one correlation id per entry. */
  correlationId: () => string;
  receivedAt: number;
  wallNow: number;
  path: string;
  headers: Record<string, string>;
  status: number;
  /** The request as parsed (undefined when it did not parse), and the answer as sent. */
  payload: unknown;
  /** The answer as sent, and as the object it was written from (when there was one: no need to parse it back). */
  answer?: unknown;
  answerText: string;
  requestText: string;
  /** The node refused the call as a whole for the caller's mistake (unknown network or token, a payload that does not parse). */
  violation?: ViolationKind;
  /** The node answered the request as one (a batch over the cap, refused whole): one entry, however many calls it held. */
  whole?: boolean;
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Records a node call (or each call of a batch) in the journal. */
export function recordNodeCall(journal: Journal, facts: NodeCallFacts): void {
  const calls = facts.payload === undefined || facts.whole ? [undefined] : asArray(facts.payload);
  const replies = asArray(facts.answer !== undefined ? facts.answer : parsed(facts.answerText)) as Array<RpcReply | undefined>;
  const single = calls.length === 1;
  const durationMs = facts.wallNow - facts.receivedAt;
  calls.forEach((call, i) => {
    const rpc = call && typeof call === "object" ? (call as RpcCall) : undefined;
    // A batch's answers may come in any order: matched by id, else by position. A notification has none.
    const reply = rpc?.id !== undefined && rpc.id !== null ? (replies.find((r) => r && r.id === rpc.id) ?? replies[i]) : single ? replies[0] : undefined;
    const error = reply?.error;
    journal.recordCall({
      kind: "node",
      projectId: facts.projectId,
      correlationId: facts.correlationId(),
      receivedAt: facts.receivedAt,
      method: "POST",
      path: facts.path,
      ...(typeof rpc?.method === "string" ? { rpcMethod: rpc.method, operationId: `rpc:${rpc.method}` } : {}),
      ...(error ? { rpcError: { code: Number(error.code ?? 0), message: String(error.message ?? "") } } : {}),
      ...(reply?.[EVM_REVERTS] ? { evmReverts: reply[EVM_REVERTS] } : {}),
      ...(facts.violation ? { violation: facts.violation } : reply?.[CALLER_VIOLATION] ? { violation: "rpc" as const } : {}),
      status: facts.status,
      durationMs,
      auth: "node token",
      request: { headers: facts.headers, body: single ? facts.requestText : JSON.stringify(call) },
      response: { headers: { "content-type": "application/json" }, body: single || reply === undefined ? facts.answerText : stringifyWithBigInts(reply) },
    });
  });
}

/** What a WebSocket endpoint needs to record its messages: the journal and a maker of correlation ids. */
export interface WebSocketJournal {
  journal: Journal;
  correlationId: () => string;
}

/** Parse error, invalid request, invalid params. */
const WEBSOCKET_VIOLATIONS = new Set([-32700, -32600, -32602]);

export interface WebSocketMessageFacts {
  projectId: string;
  network: string;
  receivedAt: number;
  wallNow: number;
  /** The message as received (text). */
  request: string;
  /** The direct answer sent, if any (notifications get none; later notifications of a subscription are not entries). */
  answer?: string;
}

/**
 * Records one message a client sent over a node WebSocket (a subscribe, an unsubscribe…) with its answer: the
 * JSON-RPC method, its error when it failed. For every WebSocket endpoint of the node (Solana PubSub, EVM).
 *
 * @example
 *   recordWebSocketMessage(wsJournal, { projectId, network, receivedAt, wallNow: Date.now(), request: text, answer });
 */
export function recordWebSocketMessage(target: WebSocketJournal | undefined, facts: WebSocketMessageFacts): void {
  if (!target) return;
  const call = parsed(facts.request) as RpcCall | undefined;
  const reply = facts.answer === undefined ? undefined : (parsed(facts.answer) as RpcReply | undefined);
  const method = call && typeof call === "object" && typeof call.method === "string" ? call.method : undefined;
  const error = reply?.error;
  // The WebSocket endpoints answer these codes only from their checks of the message itself (not JSON, not a
  // request, params the subscription refuses): each is the caller's violation.
  const violation = error && WEBSOCKET_VIOLATIONS.has(Number(error.code));
  target.journal.recordCall({
    kind: "websocket",
    projectId: facts.projectId,
    correlationId: target.correlationId(),
    receivedAt: facts.receivedAt,
    method: "WS",
    path: `/rpc/v1/${facts.network}/<node token>`,
    ...(method ? { rpcMethod: method, operationId: `ws:${method}` } : {}),
    ...(error ? { rpcError: { code: Number(error.code ?? 0), message: String(error.message ?? "") } } : {}),
    ...(violation ? { violation: "rpc" as const } : {}),
    // 101: the message travelled over the upgraded connection (Switching Protocols), as HAR viewers show WebSocket traffic.
    status: 101,
    durationMs: facts.wallNow - facts.receivedAt,
    auth: "node token",
    request: { body: facts.request },
    ...(facts.answer !== undefined ? { response: { body: facts.answer } } : {}),
  });
}
