/**
 * Swaps by an end user, in one call: the server API's firm quote (swaps/quotes.ts), signed and sent at once. From
 * an EVM account, the account signs the quote's Permit2 transfer and sends the settler transaction itself (gas from
 * its own balance); from a smart account, a user operation whose owner signs the Permit2 transfer as the wallet
 * (ERC-1271) and which approves Permit2 first when the allowance is short. Either way the swap is what the project's
 * createEndUserEvmSwap rules govern (network, the calls' data, the net USD change), checked once before sending. What would make the swap revert today (no liquidity, a short balance, an EVM
 * account's missing Permit2 allowance) is refused before anything is sent.
 */
import { concat, encodeFunctionData, erc20Abi, type Hex, maxUint256, numberToHex, size } from "viem";
import { chainIdOf, PERMIT2_ADDRESS } from "../../chain/evm/index.js";
import type { ResponseBody, Schema } from "../../contract/types.js";
import { evmAccountOf } from "../../crypto/evm.js";
import { replaySafeHash, wrapOwnerSignature } from "../../crypto/smartWallet.js";
import { apiError } from "../../errors/catalogue.js";
import { signAndSendEvmTransaction, transactionFacts } from "../../wallet/evm-accounts/signing.js";
import type { Call, UserOperationNetwork } from "../../wallet/evm-smart-accounts/userOperations.js";
import { enforcePolicies } from "../../wallet/policies/evaluate.js";
import { firmQuote, indicativePrice } from "./quotes.js";
import type { Handler, HandlerContext, RequestFacts } from "../../wallet/types.js";
import { authorizeAccountUse } from "../../wallet/end-users/delegation.js";
import { type EndUserRecord, findEndUser } from "../../wallet/records/endUsers.js";
import { authorizeSmartAccount, sendFromSmartAccount } from "../../wallet/end-users/userOperations.js";

type Quote = Extract<ResponseBody<"createEvmSwapQuote", 201>, { liquidityAvailable: true }>;

/** Whether `taker` is the user's EVM account or smart account; 404 otherwise. */
function takerKind(user: EndUserRecord, taker: string): "eoa" | "smart" {
  const lower = taker.toLowerCase();
  if (user.evmAccounts.some((a) => a.address.toLowerCase() === lower)) return "eoa";
  if (user.evmSmartAccounts.some((a) => a.address.toLowerCase() === lower)) return "smart";
  throw apiError("not_found", `End user ${user.userId} has no EVM account or smart account ${taker}.`);
}

function ownUser(req: RequestFacts, ctx: HandlerContext, userId: string) {
  if (req.auth.kind === "endUser" && req.auth.endUserId !== userId)
    throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
  return findEndUser(ctx.store, userId);
}

/** The settler call with the Permit2 signature appended as the settler reads it (its length in 32 bytes, then it). */
const withPermitSignature = (data: Hex, signature: Hex) => concat([data, numberToHex(size(signature), { size: 32 }), signature]);

export const getEndUserEvmSwapPrice: Handler<"getEndUserEvmSwapPrice"> = (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  takerKind(user, String(req.query.taker));
  const price = indicativePrice(ctx, req.query);
  if (!price.liquidityAvailable) return { status: 200, body: price };
  // The embedded-wallet client also reads the network and the total network fee: the gas fee, as the swap itself reports it.
  // The contract checked the query's network against EvmSwapsNetwork before the handler runs.
  const network = String(req.query.network) as Schema<"EvmSwapsNetwork">;
  return { status: 200, body: { ...price, network, totalNetworkFee: price.fees.gasFee?.amount ?? null } };
};

async function sendFromEoa(ctx: HandlerContext, user: EndUserRecord, req: RequestFacts, taker: string, network: string, quote: Quote) {
  const eoa = user.evmAccounts.find((a) => a.address.toLowerCase() === taker.toLowerCase())!;
  if (quote.issues.allowance) {
    throw apiError(
      "invalid_request",
      `${eoa.address} allows Permit2 (${PERMIT2_ADDRESS}) ${quote.issues.allowance.currentAllowance} of ${quote.fromToken}; approve it for at least ${quote.fromAmount} first (an ERC-20 approve sent with sendEvmTransaction).`,
    );
  }
  const actor = authorizeAccountUse(req, ctx, user.userId, eoa.address);
  const signer = evmAccountOf(eoa.privateKey);
  const data = quote.permit2
    ? withPermitSignature(quote.transaction.data as Hex, await signer.sign({ hash: quote.permit2.hash as Hex }))
    : quote.transaction.data;
  // Nonce, chain and fees are filled as for any transaction the account sends; the gas limit is the quote's.
  const tx = {
    type: "eip1559" as const,
    chainId: chainIdOf(network)!,
    to: quote.transaction.to as `0x${string}`,
    data: data as Hex,
    value: BigInt(quote.transaction.value),
    gas: BigInt(quote.transaction.gas),
  };
  enforcePolicies(ctx.store, { operation: "createEndUserEvmSwap", accountPolicies: [], facts: transactionFacts(tx, network) });
  return signAndSendEvmTransaction(ctx, eoa, network, tx, actor);
}

async function sendFromSmart(ctx: HandlerContext, user: EndUserRecord, req: RequestFacts, taker: string, network: string, quote: Quote, paymaster: boolean) {
  const found = authorizeSmartAccount(req, ctx, user, taker, network);
  const calls: Call[] = [];
  if (quote.issues.allowance) {
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
    calls.push({ to: quote.fromToken as `0x${string}`, value: "0", data: approve });
  }
  let data = quote.transaction.data as Hex;
  if (quote.permit2) {
    const ownerIndex = found.smart.ownerAddresses.findIndex((o) => o.toLowerCase() === found.owner.address.toLowerCase());
    const wallet = found.smart.address;
    const ownerSignature = await evmAccountOf(found.owner.privateKey).sign({ hash: replaySafeHash(quote.permit2.hash as Hex, chainIdOf(network)!, wallet) });
    data = withPermitSignature(data, wrapOwnerSignature(ownerIndex, ownerSignature));
  }
  calls.push({ to: quote.transaction.to, value: quote.transaction.value, data });
  return sendFromSmartAccount(ctx, found, network as UserOperationNetwork, calls, "createEndUserEvmSwap", paymaster);
}

export const createEndUserEvmSwap: Handler<"createEndUserEvmSwap"> = async (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  const { taker, network } = req.body;
  const kind = takerKind(user, taker);
  const quote = firmQuote(ctx, req.body);
  if (!quote.liquidityAvailable)
    throw apiError("invalid_request", `No liquidity to swap ${req.body.fromAmount} of ${req.body.fromToken} for ${req.body.toToken} on ${network}.`);
  if (quote.issues.balance) {
    const b = quote.issues.balance;
    throw apiError("insufficient_balance", `${taker} holds ${b.currentBalance} of ${b.token} on ${network}; the swap needs ${b.requiredBalance}.`);
  }
  const paymaster = req.body.useCdpPaymaster === true || req.body.paymasterUrl !== undefined;
  const sent =
    kind === "eoa" ? await sendFromEoa(ctx, user, req, taker, network, quote) : await sendFromSmart(ctx, user, req, taker, network, quote, paymaster);
  return {
    status: 200,
    body: {
      transactionHash: kind === "eoa" ? (sent as Hex) : null,
      userOpHash: kind === "smart" ? (sent as { userOpHash: string }).userOpHash : null,
      network,
      fromToken: quote.fromToken,
      fromAmount: quote.fromAmount,
      toToken: quote.toToken,
      toAmount: quote.toAmount,
      minToAmount: quote.minToAmount,
      totalNetworkFee: quote.fees.gasFee?.amount ?? null,
      fees: quote.fees,
    },
  };
};
