/**
 * Spend permissions of smart accounts, as the SpendPermissionManager contract
 * of the simulated chain stores them (one record per network and permission
 * hash, per project):
 *
 *   (none) ──approve, by a user operation of the account──▶ approved
 *   approved ──revoke, by a user operation of the account──▶ revoked (final: approving again changes nothing)
 *
 * While approved, between `start` and `end`, the spender may `spend` up to
 * `allowance` per `period` (periods are counted from `start`; what was spent
 * resets when a new period begins). The API creates and revokes through user
 * operations and lists what the contract holds.
 */
import type { Hex } from "viem";
import type { ResponseBody } from "../../contract/types.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

/** The contract's SpendPermission struct; numbers as decimal strings. */
export interface SpendPermissionTerms {
  account: `0x${string}`;
  spender: `0x${string}`;
  token: `0x${string}`;
  allowance: string;
  period: string;
  start: string;
  end: string;
  salt: string;
  extraData: Hex;
}

export interface SpendPermissionRecord {
  network: string;
  permissionHash: Hex;
  permission: SpendPermissionTerms;
  /** Absent when the account revoked the permission before ever approving it. */
  approvedAt?: string;
  revokedAt?: string;
  /** The period the spender last spent in (unix seconds) and how much. */
  lastPeriod?: { start: number; end: number; spend: string };
}

const SPEND_PERMISSIONS = declareCollection<SpendPermissionRecord>("spendPermissions");

export const spendPermissions = (store: ProjectTx): Collection<SpendPermissionRecord> => store.collection(SPEND_PERMISSIONS);

export const spendPermissionKey = (network: string, hash: string) => `${network}|${hash.toLowerCase()}`;

type SpendPermissionView = ResponseBody<"listSpendPermissions", 200>["spendPermissions"][number];

export function spendPermissionView(r: SpendPermissionRecord & { approvedAt: string }): SpendPermissionView {
  return {
    permission: r.permission,
    permissionHash: r.permissionHash,
    revoked: r.revokedAt !== undefined,
    ...(r.revokedAt ? { revokedAt: r.revokedAt } : {}),
    createdAt: r.approvedAt,
    network: r.network as SpendPermissionView["network"],
  };
}
