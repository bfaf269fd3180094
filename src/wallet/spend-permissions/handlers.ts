/**
 * Spend permissions of the project's smart accounts: create and revoke send a
 * user operation from the smart account (signed by its owner, an account of
 * the project) that calls the SpendPermissionManager's approve or revoke; the
 * list shows what the manager holds for the account, revoked ones included.
 * The spender then uses a permission by calling the manager's `spend` itself
 * (the official client's useSpendPermission).
 */
import { findSmartAccount } from "../evm-smart-accounts/accounts.js";
import { prepareAndSendAsOwner, sentView } from "../evm-smart-accounts/userOperations.js";
import type { Handler, Handlers } from "../types.js";
import { approveCall, revokeCall, spendPermissionsPage } from "./permissions.js";

const createSpendPermission: Handler<"createSpendPermission"> = async (req, ctx) => {
  const account = findSmartAccount(ctx.store, req.pathParams.address);
  const op = await prepareAndSendAsOwner(ctx, account, req.body.network, [approveCall(ctx, account.address, req.body)]);
  return { status: 200, body: sentView(ctx, op) };
};

const listSpendPermissions: Handler<"listSpendPermissions"> = (req, ctx) => {
  const account = findSmartAccount(ctx.store, req.pathParams.address);
  return { status: 200, body: spendPermissionsPage(ctx, account.address, req.query) };
};

const revokeSpendPermission: Handler<"revokeSpendPermission"> = async (req, ctx) => {
  const account = findSmartAccount(ctx.store, req.pathParams.address);
  const { network, permissionHash } = req.body;
  const op = await prepareAndSendAsOwner(ctx, account, network, [revokeCall(ctx, account.address, network, permissionHash)]);
  return { status: 200, body: sentView(ctx, op) };
};

export const handlers: Handlers = { createSpendPermission, listSpendPermissions, revokeSpendPermission };
