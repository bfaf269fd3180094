/**
 * Sending a user operation from an end user's smart account:
 * prepared, signed with the end user's owner key and sent in one call, by the
 * end user (token + Temporary Wallet Secret) or by the developer under a
 * delegation grant covering the smart account or its owner. At most
 * MAX_CONCURRENT_USER_OPERATIONS operations per project may be in flight
 * (sent, not yet included) → 429 rate_limit_exceeded. The project's policy
 * governs it with sendEndUserOperation rules (sendEndUserEvmAsset for an asset
 * send from a smart account).
 *
 * An EVM account of the user whose EIP-7702 delegation completed on the
 * network acts as a smart account too, its own owner: it pays its gas unless
 * the request asks for a paymaster.
 */
import { evmAccountOf } from "../../crypto/evm.js";
import { apiError, ApiError } from "../../errors/catalogue.js";
import { isDelegated } from "../evm-accounts/eip7702.js";
import { inFlightOperations, prepare, send, sentView, userOperationOf, type Call, type UserOperationNetwork } from "../evm-smart-accounts/userOperations.js";
import { paymasterRequested, sponsoredFor } from "../evm-smart-accounts/paymaster.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { assertDelegated } from "./delegation.js";
import { findEndUser, type EndUserRecord } from "../records/endUsers.js";

const MAX_CONCURRENT_USER_OPERATIONS = 5;

/** The user's EVM account at `address` as a smart account, when its EIP-7702 delegation completed on `network`. */
function delegatedAccount(ctx: HandlerContext, user: EndUserRecord, address: string, network: string | undefined) {
  const eoa = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!eoa || network === undefined || !isDelegated(ctx, eoa.address, network)) return undefined;
  return { address: eoa.address, ownerAddresses: [eoa.address], createdAt: eoa.createdAt, delegated: true };
}

/**
 * The end user's smart account at `address` with its owner account, once the caller may act on it; with a
 * `network`, an EVM account of the user delegated (EIP-7702) there counts as one.
 */
export function authorizeSmartAccount(req: RequestFacts, ctx: HandlerContext, user: EndUserRecord, address: string, network?: string) {
  const smart: { address: `0x${string}`; ownerAddresses: string[]; delegated?: boolean } | undefined =
    user.evmSmartAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase()) ?? delegatedAccount(ctx, user, address, network);
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

/**
 * Prepares, signs with the owner's key and sends `calls` from the smart account, once the project's `operation` rules
 * accept them. With `gasWithoutPaymaster`, the account pays its own gas unless a paymaster was requested.
 */
export async function sendFromSmartAccount(
  ctx: HandlerContext,
  found: ReturnType<typeof authorizeSmartAccount>,
  network: UserOperationNetwork,
  calls: Call[],
  operation: "sendEndUserOperation" | "sendEndUserEvmAsset" | "createEndUserEvmSwap",
  paymasterAsked = true,
  gasWithoutPaymaster = false,
) {
  if (inFlightOperations(ctx) >= MAX_CONCURRENT_USER_OPERATIONS) {
    throw apiError("rate_limit_exceeded", `The project already has ${MAX_CONCURRENT_USER_OPERATIONS} user operations in flight; wait for one to complete.`);
  }
  const account = { address: found.smart.address, owners: found.smart.ownerAddresses, policies: [], delegated: found.smart.delegated };
  // Evaluated once, before anything is prepared: the end user's call is prepare, sign and send in one.
  const policy = { prepare: operation };
  const op = prepare(ctx, account, network, calls, policy, gasWithoutPaymaster ? paymasterAsked : sponsoredFor(account, paymasterAsked));
  const signature = await evmAccountOf(found.owner.privateKey).sign({ hash: op.userOpHash });
  return sentView(ctx, await send(ctx, account, op, signature, policy));
}

export const sendUserOperationWithEndUserAccount: Handler<"sendUserOperationWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const { network } = req.body;
  const requested = paymasterRequested(req.body);
  const found = authorizeSmartAccount(req, ctx, user, req.pathParams.address, network);
  return { status: 200, body: await sendFromSmartAccount(ctx, found, network, req.body.calls, "sendEndUserOperation", requested) };
};

export const getUserOperationWithEndUserAccount: Handler<"getUserOperationWithEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const { address, userOpHash } = req.pathParams;
  const op = userOperationOf(ctx, address, userOpHash);
  // The operation's network says where an EIP-7702 account of the user acts as a smart account.
  authorizeSmartAccount(req, ctx, user, address, op?.network);
  if (!op) throw apiError("not_found", `User operation ${userOpHash} of smart account ${address} was not found.`);
  return { status: 200, body: op.view() };
};
