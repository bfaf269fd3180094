/**
 * End users moving assets without building transactions: USDC from an EVM
 * account (an ERC-20 transfer the sandbox builds, signs and executes on the
 * ledger) or from a Solana account (a transferChecked the runtime executes), and
 * EIP-7702 delegation of an end user's EVM account. Same authorization as
 * the other end-user operations: the user's token or a delegation grant. The
 * project's policy governs asset sends with sendEndUserEvmAsset and
 * sendEndUserSolAsset rules.
 */
import { encodeFunctionData, erc20Abi, parseUnits, type TransactionSerializable } from "viem";
import { chainIdOf, evmTokenBySymbol } from "../../chain/evm/index.js";
import { balanceOf } from "../../chain/index.js";
import { solanaTokenBySymbol } from "../../chain/solana/index.js";
import { apiError } from "../../errors/catalogue.js";
import { startEip7702Delegation } from "../evm-accounts/eip7702.js";
import { platformSendSolana } from "../solana-accounts/platformSend.js";
import { buildTokenTransfer } from "../solana-accounts/tokenTransfer.js";
import { signAndSendEvmTransaction, transactionFacts } from "../evm-accounts/signing.js";
import { enforcePolicies } from "../policies/evaluate.js";
import { paymasterRequested } from "../evm-smart-accounts/paymaster.js";
import type { UserOperationNetwork } from "../evm-smart-accounts/userOperations.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { emitWalletSend } from "../events/walletEvents.js";
import { authorizeAccountUse } from "./delegation.js";
import { findEndUser, type EndUserRecord } from "../records/endUsers.js";
import { authorizeSmartAccount, sendFromSmartAccount } from "./userOperations.js";

const authorize = (req: RequestFacts, ctx: HandlerContext, user: EndUserRecord, address: string) => authorizeAccountUse(req, ctx, user.userId, address);

function parseAmount(amount: string, decimals: number): bigint {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(amount)) throw apiError("invalid_request", `amount must be a positive decimal number such as "1.5", got "${amount}".`);
  const value = parseUnits(amount, decimals);
  if (value <= 0n) throw apiError("invalid_request", "amount must be greater than zero.");
  return value;
}

export const sendEvmAssetWithEndUserAccount: Handler<"sendEvmAssetWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const address = req.pathParams.address;
  const network = req.body.network;
  paymasterRequested(req.body); // a smart account's send is sponsored either way; a contradictory choice is still a 400
  const isSmart = user.evmSmartAccounts.some((a) => a.address.toLowerCase() === address.toLowerCase());
  const smart = isSmart ? authorizeSmartAccount(req, ctx, user, address) : undefined;
  const account = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!smart && !account) throw apiError("not_found", `End user ${user.userId} has no EVM account ${address}.`);
  const actor = smart ? undefined : authorize(req, ctx, user, address);
  const token = evmTokenBySymbol(network, req.pathParams.asset);
  if (!token) throw apiError("invalid_request", `${req.pathParams.asset.toUpperCase()} is not in the sandbox's token table for ${network}.`);
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: "transfer",
    // The contract takes any chain's address here (BlockchainAddress); viem refuses one that is not an EVM address.
    args: [req.body.to as `0x${string}`, parseAmount(req.body.amount, token.decimals)],
  });
  if (smart) {
    // From a smart account the transfer is a user operation, its gas paid by the paymaster. The networks with the
    // asset in the token table (checked above) all run user operations; World Chain and Arbitrum Sepolia have none.
    const op = await sendFromSmartAccount(ctx, smart, network as UserOperationNetwork, [{ to: token.address, value: "0", data }], "sendEndUserEvmAsset");
    return { status: 200, body: { transactionHash: null, userOpHash: op.userOpHash } };
  }
  const tx: TransactionSerializable = { type: "eip1559", chainId: chainIdOf(network)!, to: token.address, value: 0n, data };
  enforcePolicies(ctx.store, { operation: "sendEndUserEvmAsset", accountPolicies: [], facts: transactionFacts(tx, network) });
  const transactionHash = await signAndSendEvmTransaction(ctx, account!, network, tx, actor);
  return { status: 200, body: { transactionHash, userOpHash: null } };
};

export const sendSolanaAssetWithEndUserAccount: Handler<"sendSolanaAssetWithEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const address = req.pathParams.address;
  const account = user.solanaAccounts.find((a) => a.address === address);
  if (!account) throw apiError("not_found", `End user ${user.userId} has no Solana account ${address}.`);
  const actor = authorize(req, ctx, user, address);
  const network = req.body.network;
  const token = solanaTokenBySymbol(network, req.pathParams.asset);
  if (!token) throw apiError("invalid_request", `${req.pathParams.asset.toUpperCase()} is not in the sandbox's token table for ${network}.`);
  const to = req.body.to;
  const amount = parseAmount(req.body.amount, token.decimals);
  const transfer = { kind: "spl" as const, from: address, to, toOwner: to, mint: token.mint, authority: address, amount };
  const facts = { accountKeys: [address, to], instructions: [], transfers: [transfer] };
  enforcePolicies(ctx.store, { operation: "sendEndUserSolAsset", accountPolicies: [], facts: { kind: "solanaTransaction", tx: facts, network } });
  const held = balanceOf(ctx.store, network, token.mint, address);
  if (held < amount)
    throw apiError("insufficient_balance", `${address} holds ${held} of ${token.symbol} (smallest units) on ${network}; the transfer needs ${amount}.`);
  // A real transferChecked (and the recipient's token account, unless told not to), run by the runtime.
  const tx = buildTokenTransfer({
    network,
    nowMs: ctx.clock.now(),
    owner: address,
    to,
    mint: token.mint,
    decimals: token.decimals,
    amount,
    createRecipientAta: req.body.createRecipientAta !== false,
  });
  const signature = platformSendSolana({
    store: ctx.store,
    clock: ctx.clock,
    network,
    tx,
    keyOf: (signer) => (signer === address ? account : undefined),
    useCdpSponsor: req.body.useCdpSponsor === true,
  });
  emitWalletSend(ctx, { chain: "solana", hash: signature, network, address, actor });
  return { status: 200, body: { transactionSignature: signature } };
};

export const createEvmEip7702DelegationWithEndUserAccount: Handler<"createEvmEip7702DelegationWithEndUserAccount"> = async (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const address = req.body.address;
  const account = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!account) throw apiError("not_found", `End user ${user.userId} has no EVM account ${address}.`);
  authorize(req, ctx, user, address);
  const id = await startEip7702Delegation(ctx, account, req.body.network, req.body.enableSpendPermissions === true);
  return { status: 201, body: { delegationOperationId: id } };
};
