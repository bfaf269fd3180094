/**
 * The wallet.* webhook events of signing and sending, flat and in snake_case
 * as the platform documents them, in one of three variants: an API-key
 * account (no user fields), an end user's account used with the end user's
 * own token (`user_id`), or used by the developer under a delegation grant
 * (`user_id` and `delegation_id`).
 *
 *   sign a message / typed data / hash  →  wallet.message.signed / .typed_data.signed / .hash.signed
 *   sign a transaction (not sent)       →  wallet.transaction.signed
 *   send a transaction                  →  .created → .signed → .broadcast (in the request),
 *                                          then .confirmed, or .failed when it reverted, once its
 *                                          block is mined on the sandbox clock (onchain.ts)
 *
 * Sends are recorded in `webhookWalletTransactions` until the dispatcher has
 * seen their block mined. The sandbox mines every transaction in the next
 * block, so `.pending` (stuck in the mempool for 30 s) and `.replaced` never
 * happen.
 */
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";
import { emitWebhookEvent, type EmitContext } from "./emit.js";

/** Who acted: nobody but the API key, the end user, or the developer for the end user. */
export type WalletActor = Record<string, never> | { user_id: string } | { user_id: string; delegation_id: string };
export const API_KEY_WALLET: WalletActor = {};

export type SigningEventType = "wallet.message.signed" | "wallet.typed_data.signed" | "wallet.hash.signed" | "wallet.transaction.signed";

/** A send waiting for its block: what the confirmation needs. */
export interface WatchedWalletTransaction {
  chain: "evm" | "solana";
  /** EVM transaction hash, or Solana transaction signature. */
  hash: string;
  network: string;
  /** The sending account (EVM payloads name it; Solana ones do not). */
  address: string;
  actor: WalletActor;
}

export const WALLET_TRANSACTIONS = declareCollection<WatchedWalletTransaction>("webhookWalletTransactions");
export const watchedWalletTransactions = (store: ProjectTx): Collection<WatchedWalletTransaction> => store.collection(WALLET_TRANSACTIONS);

/** A signature made outside a send: `address` signed `eventType`'s kind of payload. */
export function emitWalletSigned(ctx: EmitContext, eventType: SigningEventType, address: string, actor: WalletActor): void {
  // Built only when a subscription takes it: most projects have none, and signing is on the hot path.
  emitWebhookEvent(ctx, { eventType, data: () => ({ address, signed_at: ctx.clock.iso(), ...actor }) });
}

/** A send accepted by the sandbox's chain: created, signed and broadcast now; confirmed or failed when mined. */
export function emitWalletSend(ctx: EmitContext, sent: WatchedWalletTransaction): void {
  const at = ctx.clock.iso();
  const evm = sent.chain === "evm";
  const id = evm ? { transaction_hash: sent.hash } : { transaction_signature: sent.hash };
  emitWebhookEvent(ctx, {
    eventType: "wallet.transaction.created",
    data: { ...(evm ? { address: sent.address } : {}), network: sent.network, created_at: at, ...sent.actor },
  });
  emitWebhookEvent(ctx, { eventType: "wallet.transaction.signed", data: { address: sent.address, signed_at: at, ...sent.actor } });
  emitWebhookEvent(ctx, {
    eventType: "wallet.transaction.broadcast",
    data: { ...id, ...(evm ? { address: sent.address } : {}), network: sent.network, broadcast_at: at, ...sent.actor },
  });
  watchedWalletTransactions(ctx.store).put(`${sent.network}|${sent.hash}`, sent);
}

/** The body of `.confirmed` or `.failed` for a mined send, at the block's time. */
export function walletOutcomePayload(sent: WatchedWalletTransaction, outcome: "confirmed" | "failed", atIso: string): Record<string, unknown> {
  const evm = sent.chain === "evm";
  return {
    ...(evm ? { transaction_hash: sent.hash, address: sent.address } : { transaction_signature: sent.hash }),
    network: sent.network,
    [`${outcome}_at`]: atIso,
    ...sent.actor,
  };
}
