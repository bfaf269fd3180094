/**
 * JSON-RPC 2.0 framing for the node: one message or a batch in, one answer
 * each out, method errors as `{ code, message, data? }`, and bigints written as the
 * plain JSON integers the Solana RPC uses for its u64 fields.
 */
import { nextTurn } from "../byTurns.js";
import { arrayMembersOver } from "../pipeline/body.js";
import { EvmTimeout } from "../chain/evm/evmBudget.js";
import { collectEvmReverts, EVM_REVERTS, type EvmRevertTrace } from "../chain/evm/revertTrace.js";

/**
 * A JSON-RPC error a method throws on purpose (codes as geth and the Solana RPC use them), with the error's `data` if
 * any. Invalid params (-32602) is the caller's violation of the method's contract, unless the site says the state
 * decided it (`fromState`: an account that does not exist, no liquidity), as real nodes answer those with -32602 too.
 */
export class RpcError extends Error {
  readonly callerViolation: boolean;
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    options?: { fromState?: boolean },
  ) {
    super(message);
    this.callerViolation = code === -32602 && !options?.fromState;
  }
}

/** Marks a reply the caller's violation (a message that is no request, params the method refuses), for the journal. */
export const CALLER_VIOLATION = Symbol("callerViolation");

const asViolation = <T extends object>(value: T): T => Object.defineProperty(value, CALLER_VIOLATION, { value: true });

/** The most calls one batch may carry: geth's and most providers' default; a larger batch is refused whole. */
const MAX_BATCH_CALLS = 1_000;

/**
 * The answer to a batch over MAX_BATCH_CALLS, as geth answers it: one error with the id of the batch's first call,
 * nothing run. Undefined for a batch within the cap.
 */
export function batchTooLarge(batch: readonly unknown[]): unknown[] | undefined {
  if (batch.length <= MAX_BATCH_CALLS) return undefined;
  return tooLargeAnswer(batch.find(isCall));
}

const isCall = (m: unknown): m is Message => typeof m === "object" && m !== null && "method" in m;
const tooLargeAnswer = (first: Message | undefined) => [
  reply(first?.id, { error: { code: -32600, message: `batch too large: at most ${MAX_BATCH_CALLS} calls` } }),
];

/** Characters of an over-cap batch's text parsed between two turns of the event loop. */
const OVER_CAP_PIECE_CHARS = 262_144;

/**
 * `batchTooLarge` for a batch still in its JSON text: the answer when the text is an array of more than
 * MAX_BATCH_CALLS members that all parse, each parsed on its own and dropped, a turn of the event loop every
 * OVER_CAP_PIECE_CHARS. Parsing the whole array held the loop 10–25 ms for 1.5–3.5 MB of calls, and kept them all
 * alive for the collector to copy. Undefined when the text is anything else: the caller parses it whole as before
 * (a batch within the cap, or the parse error geth answers for a batch that is not JSON, over the cap or not).
 */
export async function batchTextTooLarge(text: string): Promise<unknown[] | undefined> {
  const members = arrayMembersOver(text, MAX_BATCH_CALLS);
  if (!members) return undefined;
  let first: Message | undefined;
  let sinceTurn = 0;
  for (const [start, end] of members) {
    let member: unknown;
    try {
      member = JSON.parse(text.slice(start, end));
    } catch {
      return undefined;
    }
    if (!first && isCall(member)) first = member;
    sinceTurn += end - start;
    if (sinceTurn >= OVER_CAP_PIECE_CHARS) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
  return tooLargeAnswer(first);
}

/**
 * geth's answer to an EVM call cut by `--rpc.evmtimeout` (-32000, "execution aborted (timeout = 5s)"), followed by
 * the setting that raises the sandbox's budget.
 */
const evmTimedOut = (error: EvmTimeout) => ({
  code: -32000,
  message: `${error.message}: the read-only EVM work of one request (eth_call, eth_estimateGas and the like) may take ${error.budgetMs} ms; raise it with the sandbox's --evm-timeout MS (evmTimeoutMs in process), 0 for no limit`,
});

/** What geth answers for a call of a batch still unanswered when the request's time ran out. */
export const requestTimedOut = (id: unknown) => reply(id, { error: { code: -32002, message: "request timed out" } });

/** A method of a node table: its params and a context of the caller's choosing. */
export type RpcMethod<Ctx> = (params: unknown[], ctx: Ctx) => unknown;

interface Message {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const reply = (id: unknown, body: object) => ({ jsonrpc: "2.0", id: id ?? null, ...body });

/** A reply that is not an answer to any method (unknown network or token, unreadable payload). */
export const rpcFailure = (code: number, message: string) => reply(null, { error: { code, message } });

/**
 * Answers a parsed payload from a method table. Methods are looked up among
 * the table's own keys only (a method named `constructor` is unknown).
 */
export async function answer<Ctx extends { store: object; evmBudget?: { readonly exhausted: boolean } }>(
  payload: unknown,
  methods: Readonly<Record<string, RpcMethod<Ctx>>>,
  ctx: Ctx,
  /** The message of error -32601, in the words of the node being imitated. */
  unknownMethod: (method: string) => string,
): Promise<unknown> {
  const one = async (message: Message | null) => {
    if (!message || typeof message !== "object" || typeof message.method !== "string") {
      return asViolation(reply(message?.id, { error: { code: -32600, message: "invalid request" } }));
    }
    try {
      if (!Object.hasOwn(methods, message.method)) throw new RpcError(-32601, unknownMethod(message.method));
      const params = Array.isArray(message.params) ? message.params : [];
      return reply(message.id, { result: await methods[message.method]!(params, ctx) });
    } catch (error) {
      if (error instanceof RpcError) {
        const answer = reply(message.id, { error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } });
        return error.callerViolation ? asViolation(answer) : answer;
      }
      if (error instanceof EvmTimeout) return reply(message.id, { error: evmTimedOut(error) });
      // Whatever was thrown (an EVM error object is not an Error), the reply carries a message, as JSON-RPC requires.
      return reply(message.id, {
        error: { code: -32603, message: error instanceof Error ? error.message : String((error as { error?: unknown })?.error ?? error) },
      });
    }
  };
  // Each reply carries the traces of the EVM runs that failed answering it, for its journal entry (never on the wire).
  const traced = async (message: Message | null) => {
    const reverts: EvmRevertTrace[] = [];
    const value = await collectEvmReverts(ctx.store, reverts, () => one(message));
    if (reverts.length > 0) Object.defineProperty(value, EVM_REVERTS, { value: reverts });
    return value;
  };
  if (!Array.isArray(payload)) return traced(payload as Message | null);
  const refused = batchTooLarge(payload);
  if (refused) return refused;
  // A batch is answered in order, one message after the other: they may write the same ledger. Between two calls
  // the event loop goes, so a batch of slow calls holds it no longer than its slowest call. Once an EVM run of the
  // request has found its time budget spent, the calls after it are not run, as geth answers a batch past its timeout.
  const answers: unknown[] = [];
  for (const [i, message] of payload.entries()) {
    if (ctx.evmBudget?.exhausted) {
      answers.push(requestTimedOut((message as Message | null)?.id));
      continue;
    }
    if (i > 0) await nextTurn(); // timers, I/O and other projects' requests run between two calls
    answers.push(await traced(message as Message | null));
  }
  return answers;
}

/**
 * JSON with bigints written as plain integers, as the Solana RPC writes its
 * u64 fields (a rent-exempt account's rentEpoch is 2^64 − 1, beyond a double).
 */
export function stringifyWithBigInts(value: unknown): string {
  const marker = "\u0000bigint:";
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${marker}${v}` : v));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, "$1");
}
