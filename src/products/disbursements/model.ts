/**
 * Disbursements: payouts from one of the merchant's custodial accounts to a
 * Coinbase user or an address, not tied to a payment session.
 *
 *   create ──→ pending ──lands on the sandbox clock──→ succeeded | failed
 *
 * Creating holds the amount in the source account when it is available; when
 * it lands, the hold is spent and the payout made (succeeded, with its
 * transaction for an address), or, with nothing held, it fails with
 * insufficient_funds. Each transition sends its acceptance.disbursement.*
 * webhook event.
 */
import { evmTokenBySymbol, NATIVE_TOKEN_ADDRESS } from "../../chain/evm/index.js";
import type { components } from "../../contract/generated/types.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { fromUnits } from "../shared/decimal.js";

type Schemas = components["schemas"];

export interface DisbursementRecord {
  disbursementId: string;
  source: Schemas["transfers_Account"];
  target: Schemas["DisbursementTarget"];
  /** Lowercase symbol. */
  asset: string;
  units: string;
  status: Schemas["PaymentActionStatus"];
  reason?: string;
  externalReferenceId?: string;
  metadata?: Record<string, string>;
  customerDisplay?: Schemas["OperationCustomerDisplay"];
  error?: Schemas["PaymentError"];
  onchainTransactions?: Schemas["OnchainTransaction"][];
  createdAt: string;
  updatedAt: string;
  /** When it lands (while pending). */
  landsAtMs?: number;
  /** The amount is held in the source account. */
  held: boolean;
}

export const DISBURSEMENTS = declareCollection<DisbursementRecord>("disbursements", {
  order: "insertion",
  dueAt: (d) => (d.status === "pending" ? d.landsAtMs : undefined),
});

export const disbursements = (store: ProjectTx): Collection<DisbursementRecord> => store.collection(DISBURSEMENTS);

export function findDisbursement(store: ProjectTx, disbursementId: string): DisbursementRecord {
  const record = disbursements(store).get(disbursementId);
  if (!record) throw apiError("not_found", `Disbursement ${disbursementId} was not found.`);
  return record;
}

export function disbursementView(d: DisbursementRecord): Schema<"Disbursement"> {
  return {
    disbursementId: d.disbursementId,
    source: d.source,
    target: d.target,
    amount: fromUnits(BigInt(d.units), custodialAsset(d.asset)!),
    asset: d.asset,
    status: d.status,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    ...(d.externalReferenceId !== undefined ? { externalReferenceId: d.externalReferenceId } : {}),
    ...(d.metadata ? { metadata: d.metadata } : {}),
    ...(d.customerDisplay ? { customerDisplay: d.customerDisplay } : {}),
    ...(d.error ? { error: d.error } : {}),
    ...(d.onchainTransactions ? { onchainTransactions: d.onchainTransactions } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/**
 * Networks a disbursement can pay an address on: those of the target's networks whose transactions the
 * contract can name (its OnchainTransaction networks) and whose ledger the sandbox keeps.
 */
export const PAYOUT_NETWORKS = ["base", "ethereum", "arbitrum", "arbitrum-sepolia", "optimism", "polygon"] as const;

/** The token contract a payout of `asset` uses on `network`, if the sandbox pays it there. */
export function payoutToken(network: string, asset: string): `0x${string}` | undefined {
  if (!(PAYOUT_NETWORKS as readonly string[]).includes(network)) return undefined;
  const token = evmTokenBySymbol(network, asset);
  return token && token.address !== NATIVE_TOKEN_ADDRESS ? token.address : undefined;
}
