/**
 * What creating, revoking and listing spend permissions do, whoever's smart account it is (the project's or an end
 * user's): the SpendPermissionManager call that approves or revokes a permission, checked first, and the page of
 * permissions the manager holds for an account.
 */
import { isAddress, type Hex } from "viem";
import { SPEND_PERMISSION_MANAGER_ADDRESS } from "../evm-smart-accounts/accounts.js";
import { managerCalldata, spendPermissionHash } from "./manager.js";
import type { RequestBody, ResponseBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Call } from "../evm-smart-accounts/userOperations.js";
import { paginate, type PageQuery } from "../shared/pagination.js";
import { chainIdOf } from "../../chain/evm/index.js";
import type { HandlerContext } from "../types.js";
import { spendPermissionKey, spendPermissions, spendPermissionView, type SpendPermissionTerms } from "./model.js";

type SpendPermissionRequest = RequestBody<"createSpendPermission">;

const UINT48_MAX = 2n ** 48n - 1n;
const UINT160_MAX = 2n ** 160n - 1n;

/** A decimal field of the request within [min, max], or 400 naming it. */
function uint(value: unknown, field: string, min: bigint, max: bigint): string {
  if (typeof value !== "string" || !/^[0-9]+$/.test(value))
    throw apiError("invalid_request", `${field} must be a non-negative integer in decimal, as a string.`);
  const n = BigInt(value);
  if (n < min || n > max) throw apiError("invalid_request", `${field} must be between ${min} and ${max}; got ${value}.`);
  return n.toString();
}

function termsOf(account: `0x${string}`, b: SpendPermissionRequest): SpendPermissionTerms {
  const terms: SpendPermissionTerms = {
    account,
    spender: b.spender as `0x${string}`,
    token: b.token as `0x${string}`,
    allowance: uint(b.allowance, "allowance", 1n, UINT160_MAX),
    period: uint(b.period, "period (seconds)", 1n, UINT48_MAX),
    start: uint(b.start, "start (unix seconds)", 0n, UINT48_MAX),
    end: uint(b.end, "end (unix seconds)", 0n, UINT48_MAX),
    salt: b.salt === undefined ? "0" : uint(b.salt, "salt", 0n, 2n ** 256n - 1n),
    extraData: (b.extraData ?? "0x") as Hex,
  };
  if (!/^0x([0-9a-fA-F]{2})*$/.test(terms.extraData)) throw apiError("invalid_request", 'extraData must be 0x-prefixed hex bytes ("0x" for none).');
  if (BigInt(terms.start) >= BigInt(terms.end)) throw apiError("invalid_request", `start (${terms.start}) must be before end (${terms.end}).`);
  if (!isAddress(terms.spender, { strict: false }) || !isAddress(terms.token, { strict: false }))
    throw apiError("invalid_request", "spender and token must be EVM addresses.");
  return terms;
}

/** The call that approves the permission the request describes for `account`, once it is one that can be approved. */
export function approveCall(ctx: HandlerContext, account: `0x${string}`, body: SpendPermissionRequest): Call {
  const terms = termsOf(account, body);
  const hash = spendPermissionHash(chainIdOf(body.network)!, terms);
  if (spendPermissions(ctx.store).get(spendPermissionKey(body.network, hash))?.revokedAt) {
    throw apiError("invalid_request", `Spend permission ${hash} was revoked on ${body.network} and cannot be approved again; use another salt.`);
  }
  return { to: SPEND_PERMISSION_MANAGER_ADDRESS, value: "0", data: managerCalldata("approve", terms) };
}

/** The call that revokes `account`'s approved permission `permissionHash` on `network`, or 404 / 400 saying why not. */
export function revokeCall(ctx: HandlerContext, account: `0x${string}`, network: string, permissionHash: string): Call {
  if (!/^0x[0-9a-fA-F]{64}$/.test(permissionHash))
    throw apiError("invalid_request", "permissionHash must be a 32-byte 0x-prefixed hex hash, as listSpendPermissions returns it.");
  const record = spendPermissions(ctx.store).get(spendPermissionKey(network, permissionHash));
  if (!record || record.approvedAt === undefined || record.permission.account.toLowerCase() !== account.toLowerCase()) {
    throw apiError("not_found", `Smart account ${account} has no spend permission ${permissionHash} on ${network}.`);
  }
  if (record.revokedAt) throw apiError("invalid_request", `Spend permission ${permissionHash} was already revoked at ${record.revokedAt}.`);
  return { to: SPEND_PERMISSION_MANAGER_ADDRESS, value: "0", data: managerCalldata("revoke", record.permission) };
}

/** One page of what the manager holds for `account`, revoked permissions included, oldest approval first. */
export function spendPermissionsPage(ctx: HandlerContext, account: `0x${string}`, query: PageQuery): ResponseBody<"listSpendPermissions", 200> {
  const all = spendPermissions(ctx.store)
    .filter((r) => r.permission.account.toLowerCase() === account.toLowerCase() && r.approvedAt !== undefined)
    .sort((a, b) => a.approvedAt!.localeCompare(b.approvedAt!) || a.permissionHash.localeCompare(b.permissionHash));
  const page = paginate(all, query, `spend-permissions:${account.toLowerCase()}`);
  return {
    spendPermissions: page.items.map((r) => spendPermissionView(r as typeof r & { approvedAt: string })),
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
  };
}
