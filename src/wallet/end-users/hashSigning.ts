/**
 * An end user signs a raw 32-byte hash: secp256k1 without any prefix for EVM (the project's signEndUserEvmHash
 * rules apply, as to the server API's signEvmHash), ed25519 over the 32 bytes for Solana (base58 in and out; the
 * platform has no policy operation for it). The developer sees a wallet.hash.signed event naming the user.
 */
import { evmAccountOf, isHash32 } from "../../crypto/evm.js";
import { fromBase58, signSolanaBytes, toBase58 } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { Handler } from "../types.js";
import { emitWalletSigned } from "../events/walletEvents.js";
import { authorizeAccountUse } from "./delegation.js";
import { findEndUser } from "../records/endUsers.js";

export const signEvmHashWithEndUserAccount: Handler<"signEvmHashWithEndUserAccount"> = async (req, ctx) => {
  const { hash, address } = req.body;
  if (!isHash32(hash)) throw apiError("invalid_request", "hash must be 32 bytes as 0x-prefixed hex (66 characters).");
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const account = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!account) throw apiError("not_found", `End user ${user.userId} has no EVM account ${address}.`);
  const actor = authorizeAccountUse(req, ctx, user.userId, address);
  enforcePolicies(ctx.store, { operation: "signEndUserEvmHash", accountPolicies: [], facts: { kind: "evmHash" } });
  const signature = await evmAccountOf(account.privateKey).sign({ hash });
  emitWalletSigned(ctx, "wallet.hash.signed", account.address, actor);
  return { status: 200, body: { signature } };
};

export const signSolanaHashWithEndUserAccount: Handler<"signSolanaHashWithEndUserAccount"> = (req, ctx) => {
  const { hash, address } = req.body;
  let bytes: Uint8Array;
  try {
    bytes = fromBase58(hash);
  } catch {
    throw apiError("invalid_request", "hash must be base58.");
  }
  if (bytes.length !== 32) throw apiError("invalid_request", `hash must be 32 bytes in base58; it decodes to ${bytes.length}.`);
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const account = user.solanaAccounts.find((a) => a.address === address);
  if (!account) throw apiError("not_found", `End user ${user.userId} has no Solana account ${address}.`);
  const actor = authorizeAccountUse(req, ctx, user.userId, address);
  const signature = toBase58(signSolanaBytes(account, bytes));
  emitWalletSigned(ctx, "wallet.hash.signed", account.address, actor);
  return { status: 200, body: { signature } };
};
