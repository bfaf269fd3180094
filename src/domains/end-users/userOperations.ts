/**
 * Sending a user operation from an end user's smart account (seed 4.1):
 * prepared, signed with the end user's owner key and sent in one call, by the
 * end user (token; walletSecretId required) or by the developer under a
 * delegation grant covering the smart account or its owner. At most
 * MAX_CONCURRENT_USER_OPERATIONS operations per project may be in flight
 * (sent, not yet included) → 429 rate_limit_exceeded.
 */
import type { Hex } from "viem";
import { evmAccountOf } from "../../crypto/evm.js";
import { apiError, ApiError } from "../../errors/catalogue.js";
import { inFlightOperations, prepare, send, view, type Call } from "../evm-smart-accounts/userOperations.js";
import type { Handler, HandlerMap } from "../types.js";
import { assertDelegated } from "./delegation.js";
import { findEndUser } from "./model.js";

export const MAX_CONCURRENT_USER_OPERATIONS = 5;

const sendUserOperationWithEndUserAccount: Handler = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId!);
  const address = req.pathParams.address!;
  const smart = user.evmSmartAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!smart) throw apiError("not_found", `End user ${user.userId} has no smart account ${address}.`);
  const owner = user.evmAccounts.find((a) => smart.ownerAddresses.some((o) => o.toLowerCase() === a.address.toLowerCase()));
  if (!owner) throw apiError("not_found", `The owner of smart account ${address} is not an account of end user ${user.userId}.`);
  if (req.auth.kind === "endUser") {
    if (req.auth.endUserId !== user.userId) throw apiError("unauthorized", `The access token belongs to another end user, not ${user.userId}.`);
    if (!req.body.walletSecretId) throw apiError("invalid_request", "walletSecretId is required when the end user signs (no delegated signing).");
  } else {
    try {
      assertDelegated(ctx, user.userId, smart.address);
    } catch (error) {
      // A grant for the owner account covers its smart account too.
      if (!(error instanceof ApiError) || error.errorType !== "delegation_not_authorized") throw error;
      assertDelegated(ctx, user.userId, owner.address);
    }
  }
  if (inFlightOperations(ctx) >= MAX_CONCURRENT_USER_OPERATIONS) {
    throw apiError("rate_limit_exceeded", `The project already has ${MAX_CONCURRENT_USER_OPERATIONS} user operations in flight; wait for one to complete.`);
  }
  const account = { address: smart.address, owners: smart.ownerAddresses, policies: [] };
  const policy = { send: "sendEndUserOperation" };
  const op = prepare(ctx, account, String(req.body.network), req.body.calls as Call[], policy);
  const signature = (await evmAccountOf(owner.privateKey).sign({ hash: op.userOpHash })) as Hex;
  return { status: 200, body: view(ctx, await send(ctx, account, op, signature, policy)) };
};

export const endUserOperationHandlers: HandlerMap = { sendUserOperationWithEndUserAccount };
