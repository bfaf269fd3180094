/**
 * Sending a user operation from an end user's smart account:
 * prepared, signed with the end user's owner key and sent in one call, by the
 * end user (token + Temporary Wallet Secret) or by the developer under a
 * delegation grant covering the smart account or its owner. At most
 * MAX_CONCURRENT_USER_OPERATIONS operations per project may be in flight
 * (sent, not yet included) → 429 rate_limit_exceeded. The Policy Engine has
 * no rule operation for end users' user operations, so none applies.
 */
import { evmAccountOf } from "../../crypto/evm.js";
import { apiError, ApiError } from "../../errors/catalogue.js";
import { inFlightOperations, prepare, send, view, type Call, type UserOperationNetwork } from "../evm-smart-accounts/userOperations.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { assertDelegated } from "./delegation.js";
import { findEndUser, type EndUserRecord } from "./model.js";

const MAX_CONCURRENT_USER_OPERATIONS = 5;

/** The end user's smart account at `address` with its owner account, once the caller may act on it. */
export function authorizeSmartAccount(req: RequestFacts, ctx: HandlerContext, user: EndUserRecord, address: string) {
  const smart = user.evmSmartAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!smart) throw apiError("not_found", `End user ${user.userId} has no smart account ${address}.`);
  const owner = user.evmAccounts.find((a) => smart.ownerAddresses.some((o) => o.toLowerCase() === a.address.toLowerCase()));
  if (!owner) throw apiError("not_found", `The owner of smart account ${address} is not an account of end user ${user.userId}.`);
  if (req.auth.kind === "endUser") {
    // walletSecretId and the X-Wallet-Auth it signed were checked by the wallet-auth stage.
    if (req.auth.endUserId !== user.userId) throw apiError("unauthorized", `The access token belongs to another end user, not ${user.userId}.`);
  } else {
    try {
      assertDelegated(ctx, user.userId, smart.address);
    } catch (error) {
      // A grant for the owner account covers its smart account too.
      if (!(error instanceof ApiError) || error.errorType !== "delegation_not_authorized") throw error;
      assertDelegated(ctx, user.userId, owner.address);
    }
  }
  return { smart, owner };
}

/** Prepares, signs with the owner's key and sends `calls` from the smart account. */
export async function sendFromSmartAccount(ctx: HandlerContext, found: ReturnType<typeof authorizeSmartAccount>, network: UserOperationNetwork, calls: Call[]) {
  if (inFlightOperations(ctx) >= MAX_CONCURRENT_USER_OPERATIONS) {
    throw apiError("rate_limit_exceeded", `The project already has ${MAX_CONCURRENT_USER_OPERATIONS} user operations in flight; wait for one to complete.`);
  }
  const account = { address: found.smart.address, owners: found.smart.ownerAddresses, policies: [] };
  const policy = {}; // no Policy Engine rule names end users' user operations
  const op = prepare(ctx, account, network, calls, policy);
  const signature = await evmAccountOf(found.owner.privateKey).sign({ hash: op.userOpHash });
  return view(ctx, await send(ctx, account, op, signature, policy));
}

export const sendUserOperationWithEndUserAccount: Handler<"sendUserOperationWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const found = authorizeSmartAccount(req, ctx, user, req.pathParams.address);
  return { status: 200, body: await sendFromSmartAccount(ctx, found, req.body.network, req.body.calls) };
};
