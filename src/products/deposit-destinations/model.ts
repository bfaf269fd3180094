/**
 * Deposit destinations: where an account receives funds. A crypto
 * destination is an address on one network, `active` from creation; a fiat
 * destination is a US bank account at the sandbox's partner bank, `pending`
 * for its first minute of sandbox time (the partner's provisioning) and
 * `active` after. Whatever arrives is credited to `target` (by default the
 * account itself, in usdc or usd), or forwarded to an onchain target.
 */
import { getAddress, keccak256, toHex } from "viem";
import type { components } from "../../contract/generated/types.js";
import type { ResponseBody } from "../../contract/types.js";
import { toBase58 } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import type { Random } from "../../random.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { addressFamilyOf } from "../shared/custodialAssets.js";
import { declareCollection } from "../../store/collections.js";

type Schemas = components["schemas"];
const FIAT_PROVISIONING_MS = 60_000;

export interface DepositDestinationRecord {
  depositDestinationId: string;
  accountId: string;
  type: Schemas["DepositDestination"]["type"];
  crypto?: Schemas["DepositDestinationCrypto"];
  fiat?: Schemas["BankAccountUS"];
  /** Where deposits go: an account (always named here, the destination's own by default) or an onchain address. */
  target: Required<Schemas["DepositDestinationTargetAccount"]> | Schemas["DepositDestinationTargetOnchainAddress"];
  metadata?: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  createdAtMs: number;
}

const DEPOSIT_DESTINATIONS = declareCollection<DepositDestinationRecord>("depositDestinations", { order: "insertion" });

export const depositDestinations = (store: ProjectTx): Collection<DepositDestinationRecord> => store.collection(DEPOSIT_DESTINATIONS);

export function findDepositDestination(store: ProjectTx, id: string): DepositDestinationRecord {
  const record = depositDestinations(store).get(id);
  if (!record) throw apiError("not_found", `Deposit destination ${id} was not found in this project.`);
  return record;
}

export const statusOf = (d: DepositDestinationRecord, nowMs: number) =>
  d.type === "fiat" && nowMs < d.createdAtMs + FIAT_PROVISIONING_MS ? ("pending" as const) : ("active" as const);

export function depositDestinationView(d: DepositDestinationRecord, nowMs: number): ResponseBody<"getDepositDestinationById", 200> {
  const common = {
    depositDestinationId: d.depositDestinationId,
    accountId: d.accountId,
    target: d.target,
    status: statusOf(d, nowMs),
    ...(d.metadata ? { metadata: d.metadata } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
  return d.type === "crypto" ? { ...common, type: "crypto", crypto: d.crypto! } : { ...common, type: "fiat", fiat: d.fiat! };
}

/** A fresh address in the network's notation: EIP-55 hex, base-58 or Sui's 32-byte hex. */
export function newDepositAddress(network: string, random: Random): string {
  const family = addressFamilyOf(network);
  if (family === "solana") return toBase58(random.bytes(32));
  if (family === "sui") return `0x${random.hex(32)}`;
  return getAddress(`0x${keccak256(random.bytes(32)).slice(-40)}`);
}

/** A US bank account at the sandbox's partner bank; 123456780 is a routing number with a valid ABA checksum. */
export function newBankAccount(random: Random, beneficiaryName: string, rail?: "ach" | "fedwire"): Schemas["BankAccountUS"] {
  const digits = Array.from(random.bytes(12), (b) => String(b % 10)).join("");
  return {
    accountType: "us_bank",
    currency: "usd",
    bankName: "Sandbox Partner Bank, N.A.",
    beneficiaryName,
    routingNumber: "123456780",
    accountNumber: `8${digits.slice(1)}`,
    bankAddress: "1 Sandbox Plaza, New York, NY 10001",
    referenceCode: `CDP${toHex(random.bytes(4)).slice(2).toUpperCase()}`,
    supportedRails: rail ? [rail] : ["ach", "fedwire"],
  };
}
