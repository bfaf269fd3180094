/**
 * x402 Facilitator state, per project.
 *
 * Payment authorizations: an EIP-3009 authorization (payer, token, nonce) is
 * unused until a settlement executes it, then used for ever — a second settle
 * (or a verify) of the same authorization is refused. A Solana payment is
 * identified by its message: once settled, the same transaction is a
 * duplicate settlement.
 *
 * Payment channels (the `upto` scheme on Solana): opened by a deposit
 * settlement, which escrows the payer's maximum in the channel; claimed once
 * by the claim settlement, which pays the charge to payTo and refunds the
 * rest. An open channel cannot be opened again, a claimed one not claimed
 * again.
 *
 * EIP-2612 nonces: an upto EVM payment may carry a permit approving Permit2
 * (the gas-sponsoring extension); executing it moves the owner's nonce on.
 *
 * Settlements: one record per settled payment (transaction, payer, amount,
 * resource), kept for the Bazaar's usage figures (last 30 days).
 *
 * Bazaar resources: discovered when a payment carrying the `bazaar` extension
 * settles, or when `validateX402Resource` finds a valid 402 with that
 * extension; active from then on. A later validation that finds the endpoint
 * broken makes it inactive (hidden from discovery) until a settlement or a
 * validation succeeds again. Bundles are curated through `/_sandbox`.
 */
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

/** Requirements as the contract shapes them (version 1 or 2), kept as received. */
export type Requirements = Record<string, unknown>;

export interface UsedAuthorization {
  id: string;
  network: string;
  transaction: string;
  usedAtMs: number;
}

export interface Settlement {
  /** Transaction hash or signature. */
  id: string;
  network: string;
  payer: string;
  payTo: string;
  asset: string;
  amount: string;
  /** Bazaar key of the resource paid for, when the payment named one. */
  resourceKey?: string;
  /** Solana: hash of the settled message, to refuse duplicates. */
  messageHash?: string;
  atMs: number;
}

export interface PaymentChannel {
  /** `network|channelId`. */
  id: string;
  channelId: string;
  network: string;
  payer: string;
  payTo: string;
  mint: string;
  /** What the channel escrows: the authorized maximum. */
  deposit: string;
  authorizedSigner: string;
  expiresAt: number;
  status: "open" | "claimed";
  /** The deposit's transaction signature. */
  openedBy: string;
  /** The claim's transaction signature and charge. */
  claimedBy?: string;
  charged?: string;
  openedAtMs: number;
}

export interface BazaarResource {
  /** The resource URL, with `#tool` for an MCP tool (MCP servers multiplex tools over one URL). */
  key: string;
  resource: string;
  type: "http" | "mcp";
  tool?: string;
  x402Version: 1 | 2;
  description?: string;
  mimeType?: string;
  accepts: Requirements[];
  extensions?: Record<string, unknown>;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  lastUpdatedMs: number;
  lastCrawledMs?: number;
  active: boolean;
}

export interface Bundle {
  slug: string;
  name: string;
  description?: string;
  /** Member resource URLs (or keys), in bundle order. */
  resources: string[];
  createdAtMs: number;
}

const X402_USED_AUTHORIZATIONS = declareCollection<UsedAuthorization>("x402UsedAuthorizations");
const X402_SETTLEMENTS = declareCollection<Settlement>("x402Settlements");
const X402_PAYMENT_CHANNELS = declareCollection<PaymentChannel>("x402PaymentChannels");
const X402_BAZAAR_RESOURCES = declareCollection<BazaarResource>("x402BazaarResources");
const X402_BUNDLES = declareCollection<Bundle>("x402Bundles");

export const usedAuthorizations = (store: ProjectTx): Collection<UsedAuthorization> => store.collection(X402_USED_AUTHORIZATIONS);
export const settlements = (store: ProjectTx): Collection<Settlement> => store.collection(X402_SETTLEMENTS);
export const paymentChannels = (store: ProjectTx): Collection<PaymentChannel> => store.collection(X402_PAYMENT_CHANNELS);
export const bazaarResources = (store: ProjectTx): Collection<BazaarResource> => store.collection(X402_BAZAAR_RESOURCES);
export const bundles = (store: ProjectTx): Collection<Bundle> => store.collection(X402_BUNDLES);

/** Key of an EIP-3009 authorization: the token contract's `authorizationState(authorizer, nonce)`. */
export const authorizationKey = (network: string, asset: string, from: string, nonce: string) =>
  `${network}|${asset.toLowerCase()}|${from.toLowerCase()}|${nonce.toLowerCase()}`;
