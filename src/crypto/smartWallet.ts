/**
 * ERC-1271 signatures of a Coinbase Smart Wallet, checked as the wallet's
 * `isValidSignature(hash, signature)` does: the owner signs a replay-safe
 * EIP-712 wrapper of the hash (domain "Coinbase Smart Wallet", version 1, the
 * chain and the wallet's address), and the signature arrives wrapped as
 * `SignatureWrapper { uint8 ownerIndex; bytes signatureData }`. This is what
 * the official client produces for a smart account's Permit2 signature. A user
 * operation's signature is the same wrapper over the userOpHash itself.
 */
import { decodeAbiParameters, encodeAbiParameters, hashTypedData, type Hex } from "viem";
import { recoverEvmSigner } from "./evm.js";

const SIGNATURE_WRAPPER = [
  {
    type: "tuple",
    components: [
      { name: "ownerIndex", type: "uint8" },
      { name: "signatureData", type: "bytes" },
    ],
  },
] as const;

/** The hash a wallet owner signs for `hash` (CoinbaseSmartWallet.replaySafeHash). */
export function replaySafeHash(hash: Hex, chainId: number, wallet: `0x${string}`): Hex {
  return hashTypedData({
    domain: { name: "Coinbase Smart Wallet", version: "1", chainId, verifyingContract: wallet },
    types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
    primaryType: "CoinbaseSmartWalletMessage",
    message: { hash },
  });
}

/**
 * Whether `signature` is a `SignatureWrapper` whose owner (by index, an address) signed `hash` itself: what
 * the wallet's `validateUserOp` checks against the userOpHash. Passkey owners are not supported.
 *
 * @example isOwnerSignature({ owners, hash: userOpHash, signature })
 */
export function isOwnerSignature(o: { owners: readonly string[]; hash: Hex; signature: Hex }): boolean {
  let ownerIndex: number;
  let signatureData: Hex;
  try {
    [{ ownerIndex, signatureData }] = decodeAbiParameters(SIGNATURE_WRAPPER, o.signature);
  } catch {
    return false;
  }
  const owner = o.owners[ownerIndex];
  const signer = recoverEvmSigner(o.hash, signatureData);
  return owner !== undefined && signer !== undefined && signer.toLowerCase() === owner.toLowerCase();
}

/**
 * Whether `signature` is the wallet's valid ERC-1271 signature of `hash`, given its owners in index order.
 *
 * @example isValidSmartWalletSignature({ owners, chainId: 8453, wallet, hash, signature })
 */
export function isValidSmartWalletSignature(o: { owners: readonly string[]; chainId: number; wallet: `0x${string}`; hash: Hex; signature: Hex }): boolean {
  return isOwnerSignature({ owners: o.owners, hash: replaySafeHash(o.hash, o.chainId, o.wallet), signature: o.signature });
}

/** The wallet's signature from the owner at `ownerIndex`, who signed its replay-safe hash: what isValidSignature takes. */
export function wrapOwnerSignature(ownerIndex: number, signatureData: Hex): Hex {
  return encodeAbiParameters(SIGNATURE_WRAPPER, [{ ownerIndex, signatureData }]);
}
