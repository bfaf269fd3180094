/**
 * Commerce charges: what OnchainKit's checkout pays. A charge is a USDC amount owed to a recipient on one
 * network, created by the developer (admin API, or from a product when a buyer checks out), kept per project:
 *
 *   NEW ──(hydrated for a payer: the calls that pay it)──▶ PENDING ──(the Transfers contract call lands)──▶ COMPLETED
 *   NEW / PENDING ──(the sandbox clock passes expiresAt)──▶ EXPIRED   (derived, never written)
 *
 * Hydrating again (another payer, or the same one later) replaces the payment intent; only the latest can pay.
 * A payment that fails (allowance, balance, wrong intent) reverts and leaves the charge as it was.
 *
 * Not an area of its own: the platform's v2 REST API has no charge operation; the admin API and the node's
 * cdp_ methods share this model, hence its place under wallet/shared.
 */
import type { Hex } from "viem";
import { declareCollection } from "../../../store/collections.js";
import type { Collection, ProjectTx } from "../../../store/store.js";

/** A product a checkout names by id: each checkout of it creates a new charge for its price. */
export interface CommerceProductRecord {
  productId: string;
  name: string;
  network: string;
  /** USDC in its smallest unit (6 decimals). */
  amount: string;
  recipient: `0x${string}`;
  createdAt: string;
}

/** The payment intent a hydration issues: the fields of the Transfers contract's `transferTokenPreApproved`. */
export interface ChargeIntent {
  /** bytes16, unique per hydration. */
  id: Hex;
  sender: `0x${string}`;
  recipientAmount: string;
  feeAmount: string;
  /** Unix seconds. */
  deadline: number;
  /** What the sandbox operator "signs": the intent's hash, checked by the contract against the charge it issued. */
  signature: Hex;
}

export interface ChargeRecord {
  chargeId: string;
  network: string;
  chainId: number;
  name: string;
  productId?: string;
  /** USDC in its smallest unit: what the payer pays, fee included. */
  amount: string;
  recipient: `0x${string}`;
  status: "NEW" | "PENDING" | "COMPLETED";
  createdAt: string;
  expiresAt: string;
  intent?: ChargeIntent;
  payment?: { transactionHash: Hex; payer: `0x${string}`; paidAt: string };
}

const CHARGES = declareCollection<ChargeRecord>("commerceCharges", {
  indexes: { intent: (c) => c.intent?.id.toLowerCase() },
  order: (a, b) => a.createdAt.localeCompare(b.createdAt),
});
const PRODUCTS = declareCollection<CommerceProductRecord>("commerceProducts");

export const charges = (store: ProjectTx): Collection<ChargeRecord> => store.collection(CHARGES);
export const commerceProducts = (store: ProjectTx): Collection<CommerceProductRecord> => store.collection(PRODUCTS);

/** The status the clock gives a charge: EXPIRED once past `expiresAt` unless it was paid. */
export function chargeStatus(charge: ChargeRecord, nowMs: number): ChargeRecord["status"] | "EXPIRED" {
  if (charge.status !== "COMPLETED" && nowMs > Date.parse(charge.expiresAt)) return "EXPIRED";
  return charge.status;
}
