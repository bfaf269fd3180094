/**
 * EVM keys and signatures, all through viem (the same library users verify
 * with): EIP-55 addresses, raw hash signing, EIP-191 messages, EIP-712 typed
 * data and serialized transactions of every type viem parses.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, getAddress, hexToBytes, isAddress, isHex, type Hex } from "viem";
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from "viem/accounts";
import type { Random } from "../random.js";

/** A fresh private key from the injected randomness (valid secp256k1 scalar). */
export function generateEvmPrivateKey(random: Random): Hex {
  let key = random.bytes(32);
  while (!secp256k1.utils.isValidSecretKey(key)) key = random.bytes(32);
  return bytesToHex(key);
}

/**
 * Accounts by private key. Deriving an account computes its public key (a
 * secp256k1 multiplication in JS, ~0.9 ms), as much as the signature itself,
 * so each key's account is derived once. Bounded: the oldest are dropped.
 */
const accounts = new Map<Hex, PrivateKeyAccount>();
const MAX_CACHED_ACCOUNTS = 4096;

export function evmAccountOf(privateKey: Hex): PrivateKeyAccount {
  const key = privateKey.toLowerCase() as Hex;
  let account = accounts.get(key);
  if (!account) {
    account = privateKeyToAccount(key);
    if (accounts.size >= MAX_CACHED_ACCOUNTS) accounts.delete(accounts.keys().next().value!);
    accounts.set(key, account);
  }
  return account;
}

/** EIP-55 form of an address given in any casing, or undefined when it is not an address. */
export function checksumAddress(address: string): `0x${string}` | undefined {
  return isAddress(address, { strict: false }) ? getAddress(address) : undefined;
}

export function isValidEvmPrivateKey(raw: Uint8Array): boolean {
  return raw.length === 32 && secp256k1.utils.isValidSecretKey(raw);
}

export function isHash32(value: string): value is Hex {
  return isHex(value, { strict: true }) && value.length === 66;
}

/**
 * The signer of a 65-byte (r, s, v) signature over a 32-byte hash, or undefined
 * when the signature cannot be recovered. Synchronous (noble, which viem wraps)
 * so that the ledger can check signatures while it applies a transaction.
 *
 * @example recoverEvmSigner(hashTypedData(typedData), signature) // → "0xAbc…"
 */
export function recoverEvmSigner(hash: Hex, signature: Hex): `0x${string}` | undefined {
  if (!isHash32(hash) || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined;
  const bytes = hexToBytes(signature);
  const v = bytes[64]!;
  const bit = v >= 27 ? v - 27 : v;
  if (bit !== 0 && bit !== 1) return undefined;
  try {
    const point = secp256k1.Signature.fromBytes(bytes.slice(0, 64), "compact").addRecoveryBit(bit).recoverPublicKey(hexToBytes(hash));
    return publicKeyToAddress(bytesToHex(point.toBytes(false)));
  } catch {
    return undefined;
  }
}
