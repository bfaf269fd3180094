/**
 * Where an end user's EIP-7702 delegation stands: the same operation the server API shows, visible to the end user
 * only when it delegates one of their own EVM accounts (another user's operation is not found, not forbidden, so
 * ids cannot be probed).
 */
import { apiError } from "../../errors/catalogue.js";
import { findDelegationOperation } from "../evm-accounts/eip7702.js";
import type { Handler } from "../types.js";
import { findEndUser } from "../records/endUsers.js";

export const getEvmEip7702DelegationOperationByIdWithEndUserAccount: Handler<"getEvmEip7702DelegationOperationByIdWithEndUserAccount"> = (req, ctx) => {
  const { userId, delegationOperationId } = req.pathParams;
  if (req.auth.kind === "endUser" && req.auth.endUserId !== userId)
    throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
  const user = findEndUser(ctx.store, userId);
  const found = findDelegationOperation(ctx, delegationOperationId);
  if (!user.evmAccounts.some((a) => a.address.toLowerCase() === found.address.toLowerCase())) {
    throw apiError("not_found", `Delegation operation ${delegationOperationId} was not found for end user ${userId}.`);
  }
  return { status: 200, body: found.view };
};
