/**
 * Stage: the duplicate-effect detector. A 5xx leaves an operation's outcome
 * unknown, and a client that retries a send or a transfer without an
 * `X-Idempotency-Key` may do it twice. The sandbox notices: when a project
 * performs an effect that repeats one it performed within the window
 * (10 minutes of sandbox time) — the same operation on the same resource with
 * the same body: the same recipient, asset, amount and network, the same
 * signed transaction or user-operation calls, the same x402 payment — the
 * answer says `X-Sandbox-Duplicate-Of: <correlationId of the first>` and the
 * journal records it. The effect still happens, as on the platform.
 *
 * With the project setting `strictRetries: true` such a repeat is refused
 * instead (409 `sandbox_duplicate_effect`, nothing changes), for suites that
 * prove their retries are safe. A repeat the caller means (two payments of the
 * same amount) says so with `X-Sandbox-Allow-Repeat: true`. A replay of the
 * same idempotency key never reaches here: it is not an effect.
 */
import { hash } from "node:crypto";
import { canonicalJson, canonicalJsonOrSha256 } from "../auth/reqHash.js";
import { apiError } from "../errors/catalogue.js";
import { declareCollection } from "../store/collections.js";
import type { ProjectTx } from "../store/store.js";
import type { Exchange } from "./exchange.js";

/** Operations whose success moves money or makes something a retry would make again. */
const EFFECTS: ReadonlySet<string> = new Set([
  "sendEvmTransaction",
  "sendSolanaTransaction",
  "sendUserOperation",
  "prepareAndSendUserOperation",
  "sendEvmTransactionWithEndUserAccount",
  "sendSolanaTransactionWithEndUserAccount",
  "sendEvmAssetWithEndUserAccount",
  "sendSolanaAssetWithEndUserAccount",
  "sendUserOperationWithEndUserAccount",
  "requestEvmFaucet",
  "requestSolanaFaucet",
  "createTransfer",
  "executeFundTransfer",
  "createOnrampOrder",
  "settleX402Payment",
  "createSpendPermission",
  "authorizeWalletPaymentSession",
  "authorizeX402PaymentSession",
  "authorizeCoinbasePaymentSession",
  "capturePaymentSession",
  "voidPaymentSession",
  "refundPaymentSession",
  "createDisbursement",
]);

const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/**
 * The longest effect key kept as text (readable in an export: a faucet request's is ~115 characters); a longer one
 * is kept as the operation and the hash of that text. Every effect of the window is held in memory by its key, and a
 * signed send's text (the serialized transaction) made it ~330 characters, about a sixth of the heap a token
 * transfer left behind.
 */
const MAX_KEY_CHARS = 128;
const ALLOW_REPEAT_HEADER = "x-sandbox-allow-repeat";

interface EffectRecord {
  /** Its key (absent from records written before effects were forgotten: those stay). */
  fingerprint?: string;
  /** Of the first request that performed the effect. */
  correlationId: string;
  atMs: number;
}

/** Due (forgotten) once its window has passed: a later request can no longer repeat it. */
const EFFECTS_SEEN = declareCollection<EffectRecord>("_effects", { dueAt: (r) => r.atMs + DUPLICATE_WINDOW_MS + 1 });

/**
 * What makes two requests the same effect: the operation, its path (the resource) and its body, canonically.
 * Undefined when the operation has no effect a retry repeats, or the caller means the repeat. Made once per request,
 * before the handler runs, and handed to both `findDuplicate` and `recordEffect`.
 */
export async function effectOf(ex: Exchange): Promise<string | undefined> {
  const op = ex.operation;
  if (!op || !EFFECTS.has(op.operationId) || ex.headers[ALLOW_REPEAT_HEADER] === "true") return undefined;
  // An end user's client names its Temporary Wallet Secret in every signed body; it is no part of the effect.
  const { walletSecretId: _secret, ...body } = (ex.body ?? {}) as Record<string, unknown>;
  // A long body by its hash first (made in pieces: a 4 MB body must not hold the event loop), then a long key.
  const key = `${op.operationId} ${canonicalJson(ex.pathParams)} ${await canonicalJsonOrSha256(body, MAX_KEY_CHARS)}`;
  return key.length <= MAX_KEY_CHARS ? key : `${op.operationId} sha256:${hash("sha256", key, "hex")}`;
}

/**
 * Before the operation runs: whether it repeats an effect of the window. Throws the 409 when the project asked for
 * strict retries; otherwise returns the first request's correlation id (or undefined).
 */
export function findDuplicate(tx: ProjectTx, ex: Exchange, fingerprint: string | undefined, nowMs: number): string | undefined {
  if (fingerprint === undefined) return undefined;
  const seen = tx.collection(EFFECTS_SEEN).get(fingerprint);
  if (!seen || nowMs - seen.atMs > DUPLICATE_WINDOW_MS) return undefined;
  if (tx.settings().strictRetries === true) {
    throw apiError(
      "sandbox_duplicate_effect",
      `This ${ex.operation!.operationId} repeats request ${seen.correlationId} of ${new Date(seen.atMs).toISOString()} without its X-Idempotency-Key; ` +
        "the sandbox refuses it because the project set strictRetries (send the first request's key to retry safely, or X-Sandbox-Allow-Repeat: true to mean it).",
    );
  }
  return seen.correlationId;
}

/** After the operation succeeded, in its transaction: the effect to compare later requests with. */
export function recordEffect(tx: ProjectTx, ex: Exchange, fingerprint: string | undefined, nowMs: number): void {
  if (fingerprint === undefined) return;
  const effects = tx.collection(EFFECTS_SEEN);
  const seen = effects.get(fingerprint);
  // A run of repeats names its first request; the window runs from the latest of them.
  const first = seen && nowMs - seen.atMs <= DUPLICATE_WINDOW_MS ? seen.correlationId : ex.correlationId;
  // What no request can repeat any more goes, so the project keeps the effects of the window, not of its whole life.
  for (const past of effects.dueBy(nowMs)) if (past.fingerprint !== undefined) effects.delete(past.fingerprint);
  effects.put(fingerprint, { fingerprint, correlationId: first, atMs: nowMs });
}
