/**
 * An end user's new accounts, made one way whoever asks: the developer's server (end-users/management.ts) or the
 * signed-in end user's client (accounts.ts). Keys come from the sandbox's seeded randomness; a smart account's
 * address follows its owners (with spend permissions, the SpendPermissionManager is the second owner).
 */
import { evmAccountOf, generateEvmPrivateKey } from "../../crypto/evm.js";
import { generateSolanaKey } from "../../crypto/solana.js";
import { counterfactualAddress } from "../evm-smart-accounts/accounts.js";
import type { HandlerContext } from "../types.js";

export function newEvmAccount(ctx: HandlerContext) {
  const privateKey = generateEvmPrivateKey(ctx.random);
  return { address: evmAccountOf(privateKey).address, privateKey, createdAt: ctx.clock.iso() };
}

/** `taken` is how many smart accounts the end user has already: the factory's nonce of the new one. */
export function newSmartAccount(ctx: HandlerContext, ownerAddresses: string[], taken: number) {
  return { address: counterfactualAddress(ownerAddresses, taken), ownerAddresses, createdAt: ctx.clock.iso() };
}

export function newSolanaAccount(ctx: HandlerContext) {
  const key = generateSolanaKey(ctx.random);
  return { address: key.address, seedHex: key.seedHex, createdAt: ctx.clock.iso() };
}
