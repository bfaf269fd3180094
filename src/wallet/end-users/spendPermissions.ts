/**
 * Spend permissions of an end user's smart account, by the end user: the same SpendPermissionManager approve and
 * revoke as the server API's, sent as a user operation of the smart account signed by the user's owner key (under
 * the project's sendEndUserOperation rules), and the same list. The account must have been created with spend
 * permissions enabled for a spender to use them (the manager is then one of its owners).
 */
import type { UserOperationNetwork } from "../evm-smart-accounts/userOperations.js";
import { approveCall, revokeCall, spendPermissionsPage } from "../spend-permissions/permissions.js";
import type { Handler } from "../types.js";
import { findEndUser } from "../records/endUsers.js";
import { authorizeSmartAccount, sendFromSmartAccount } from "./userOperations.js";

export const createSpendPermissionWithEndUserAccount: Handler<"createSpendPermissionWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const found = authorizeSmartAccount(req, ctx, user, req.pathParams.address, req.body.network);
  const calls = [approveCall(ctx, found.smart.address, req.body)];
  const paymaster = req.body.useCdpPaymaster === true || req.body.paymasterUrl !== undefined;
  const op = await sendFromSmartAccount(ctx, found, req.body.network as UserOperationNetwork, calls, "sendEndUserOperation", paymaster);
  return { status: 200, body: op };
};

export const listSpendPermissionsWithEndUserAccount: Handler<"listSpendPermissionsWithEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const found = authorizeSmartAccount(req, ctx, user, req.pathParams.address);
  return { status: 200, body: spendPermissionsPage(ctx, found.smart.address, req.query) };
};

export const revokeSpendPermissionWithEndUserAccount: Handler<"revokeSpendPermissionWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const { network, permissionHash } = req.body;
  const found = authorizeSmartAccount(req, ctx, user, req.pathParams.address, network);
  const calls = [revokeCall(ctx, found.smart.address, network, permissionHash)];
  const paymaster = req.body.useCdpPaymaster === true || req.body.paymasterUrl !== undefined;
  const op = await sendFromSmartAccount(ctx, found, network as UserOperationNetwork, calls, "sendEndUserOperation", paymaster);
  return { status: 200, body: op };
};
