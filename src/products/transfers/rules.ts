/**
 * Rules about transfer targets beyond the contract: what an address looks
 * like on each network (refused at once: target_onchain_address_invalid; a
 * malformed email is the contract's to refuse, see src/errors/validationCases.ts),
 * which well-formed recipients cannot be paid (the transfer fails while
 * processing), and the travel-rule details large onchain transfers need.
 *
 * Inputs that make a transfer fail while processing (docs/custodial.md, "Transfers"):
 * - the zero address, a token's own contract or mint, Solana's System Program
 *   → "The recipient address is invalid for the selected network."
 * - an address on the blocked list (BLOCKED_ADDRESSES, plus the project
 *   setting `blockedAddresses`) → "The recipient address failed security validation checks."
 * - an email at a `.invalid` domain (RFC 2606) → "Unable to send to this recipient."
 */
import { isAddress } from "viem";
import { EVM_TOKENS } from "../../chain/evm/index.js";
import { SOLANA_TOKENS } from "../../chain/solana/index.js";
import { isSolanaAddress } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { addressFamilyOf } from "../shared/custodialAssets.js";
import { FAILURE, type TransferRecord, type TravelRuleInfo } from "./model.js";

/** Sanctioned addresses (OFAC SDN list, Tornado Cash): payouts to them fail the security check. */
const BLOCKED_ADDRESSES = [
  "0x8589427373D6D84E98730D7795D8f6f8731FDA16",
  "0x722122dF12D4e14e13Ac3b6895a86e84145b6967",
  "0xd90e2f925DA726b50C4Ed8D0Fb90Ad053324F31b",
];

const ZERO_EVM = "0x0000000000000000000000000000000000000000";
const SOLANA_SYSTEM_PROGRAM = "11111111111111111111111111111111";

export function checkOnchainAddress(network: string, address: string, field = "target.address"): void {
  const family = addressFamilyOf(network);
  const ok =
    family === "evm"
      ? /^0x[0-9a-fA-F]{40}$/.test(address) && isAddress(address)
      : family === "sui"
        ? /^0x[0-9a-fA-F]{64}$/.test(address)
        : isSolanaAddress(address);
  if (ok) return;
  const shape =
    family === "evm"
      ? "a 0x-prefixed 20-byte hex address (EIP-55 checksum when mixed case)"
      : family === "sui"
        ? "a 0x-prefixed 32-byte hex address"
        : "a base-58 encoded 32-byte public key";
  throw apiError("target_onchain_address_invalid", `${field} ${address} is not an address on ${network}; ${network} addresses are ${shape}.`);
}

const tokenContracts = (network: string) => [
  ...(EVM_TOKENS[network] ?? []).map((t) => t.address.toLowerCase()),
  ...(SOLANA_TOKENS[network] ?? []).map((t) => t.mint),
];

/** Why a well-formed recipient cannot be paid, decided while the transfer processes; undefined when it can. */
export function recipientProblem(store: ProjectTx, target: TransferRecord["target"]): string | undefined {
  if ("email" in target) return /\.invalid$/i.test(target.email) ? FAILURE.unableToSend : undefined;
  if (!("address" in target) || target.network === undefined) return undefined;
  const key = (a: string) => (a.startsWith("0x") ? a.toLowerCase() : a);
  const extra = store.settings().blockedAddresses;
  const blocked = [...BLOCKED_ADDRESSES, ...(Array.isArray(extra) ? extra.filter((a): a is string => typeof a === "string") : [])].map(key);
  if (blocked.includes(key(target.address))) return FAILURE.securityCheck;
  const unpayable = [ZERO_EVM, SOLANA_SYSTEM_PROGRAM, `0x${"0".repeat(64)}`, ...tokenContracts(target.network)].map(key);
  return unpayable.includes(key(target.address)) ? FAILURE.invalidRecipient : undefined;
}

/** Onchain transfers worth this much (USD) or more carry travel-rule details (the US threshold). */
export const TRAVEL_RULE_THRESHOLD_USD = 3000;

const get = (info: TravelRuleInfo | undefined, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), info);
const present = (info: TravelRuleInfo | undefined, path: string) => {
  const v = get(info, path);
  return typeof v === "string" ? v.trim() !== "" : v !== undefined && v !== null;
};

/** The travel-rule fields still missing for an outgoing transfer, by path under `travelRule`. */
export function missingOutgoingTravelRule(info: TravelRuleInfo | undefined): string[] {
  const wanted = ["originator.name", "originator.address.line1", "originator.address.city", "originator.address.countryCode"];
  if (get(info, "isSelf") !== true) wanted.push("beneficiary.name", "beneficiary.walletType");
  if (get(info, "isIntermediary") === true) wanted.push("originator.virtualAssetServiceProvider.identifier", "originator.virtualAssetServiceProvider.name");
  return wanted.filter((path) => !present(info, path));
}

/** attestVerifiedWalletOwnership is only for intermediaries (the platform answers 400 otherwise). */
export function checkTravelRuleShape(info: TravelRuleInfo | undefined, field: string): void {
  if (get(info, "attestVerifiedWalletOwnership") === true && get(info, "isIntermediary") !== true) {
    throw apiError("invalid_request", `${field}.attestVerifiedWalletOwnership may be true only when ${field}.isIntermediary is true.`);
  }
}

/** The travel-rule fields a deposit still lacks, by path in the submission. */
export function missingDepositTravelRule(info: TravelRuleInfo | undefined): string[] {
  const wanted = ["originator.walletType"];
  if (get(info, "isSelf") !== true) wanted.push("originator.name", "originator.address.countryCode");
  if (get(info, "originator.walletType") === "custodial") wanted.push("originator.virtualAssetServiceProvider.name");
  return wanted.filter((path) => !present(info, path));
}
