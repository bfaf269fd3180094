/**
 * EVM keys and signatures: EIP-55 addresses, raw hash signing, EIP-191
 * messages, EIP-712 typed data and serialized transactions of every type viem
 * parses. viem hashes and serializes (the same library users verify with);
 * the secp256k1 signature itself comes from libsecp256k1 (the `secp256k1`
 * package's native binding: ~0.09 ms a signature against ~1.5 ms for the
 * JavaScript implementation on these machines; same RFC 6979 deterministic,
 * low-s signatures, so the bytes are identical). Where the binding cannot
 * load, the package falls back to a JavaScript implementation by itself.
 */
import { createRequire } from "node:module";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  bytesToHex,
  getTypesForEIP712Domain,
  hashTypedData,
  hexToBytes,
  isHex,
  keccak256,
  pad,
  type parseTransaction,
  serializeTransaction,
  type Hex,
  type Signature,
  type SignableMessage,
} from "viem";
import { publicKeyToAddress, toAccount, type PrivateKeyAccount } from "viem/accounts";
import { hashAuthorization } from "viem/utils";
import { nextTurn } from "../byTurns.js";
import type { Random } from "../random.js";

interface NativeSecp256k1 {
  privateKeyVerify(privateKey: Uint8Array): boolean;
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed?: boolean): Uint8Array;
  publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
}
// Loaded by file at run time (a native addon cannot be bundled).
const native = createRequire(import.meta.url)("secp256k1") as NativeSecp256k1;

/** A signature of a 32-byte hash, as viem's `sign` returns it. */
function signHash(hash: Hex, key: Uint8Array): Signature {
  const { signature, recid } = native.ecdsaSign(hexToBytes(hash), key);
  return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), v: recid ? 28n : 27n, yParity: recid };
}

/**
 * The 65-byte r‖s‖v signature (v 27 or 28) as hex, as viem's serializeSignature
 * writes it, straight from the binding's bytes (serializeSignature goes
 * through bigints; this is on the path of every signing request).
 */
function signHashSerialized(hash: Uint8Array, key: Uint8Array): Hex {
  const { signature, recid } = native.ecdsaSign(hash, key);
  return `0x${Buffer.from(signature.buffer, signature.byteOffset, 64).toString("hex")}${recid ? "1c" : "1b"}`;
}

/** Keccak-256 over pieces, as noble's `keccak_256.create()` and the `keccak` package's native hash both offer it. */
interface KeccakPieces {
  update(bytes: Uint8Array): unknown;
  digest(): Uint8Array;
}

let nativeKeccak: (() => KeccakPieces) | null | undefined;
/**
 * The `keccak` package's native Keccak-256 (a 4 MB message in ~30 ms here against ~400 ms for noble's), loaded on the
 * first long message; null where its addon does not load (its `bindings` entry throws rather than fall back).
 */
function nativeKeccakHash(): (() => KeccakPieces) | null {
  if (nativeKeccak === undefined) {
    try {
      const create = createRequire(import.meta.url)("keccak/bindings") as (algorithm: string) => KeccakPieces;
      nativeKeccak = () => create("keccak256");
    } catch {
      nativeKeccak = null;
    }
  }
  return nativeKeccak;
}

/**
 * Bytes of a message hashed between two turns of the event loop: a 4 MB message (the body bound allows one) held the
 * loop 0.6–1.1 s under load in one piece of noble's JavaScript Keccak, whose 64 KiB take a few milliseconds; the
 * native hash takes about one for four times that.
 */
const HASH_PIECE_BYTES = 65_536;
const NATIVE_HASH_PIECE_BYTES = 262_144;

/**
 * EIP-191 personal-message hash, as viem's hashMessage computes it, over bytes rather than hex, a piece per turn. A
 * message longer than a piece goes through the native hash where it loads (fewer turns, ~13× less work).
 */
async function personalMessageHash(message: SignableMessage): Promise<Uint8Array> {
  const raw = typeof message === "string" ? Buffer.from(message, "utf8") : typeof message.raw === "string" ? hexToBytes(message.raw) : message.raw;
  // A Buffer view of the same memory: the native hash takes Buffers only.
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const native = bytes.length > HASH_PIECE_BYTES ? nativeKeccakHash() : null;
  const hash = native ? native() : keccak_256.create();
  const piece = native ? NATIVE_HASH_PIECE_BYTES : HASH_PIECE_BYTES;
  hash.update(Buffer.from(`\x19Ethereum Signed Message:\n${bytes.length}`, "utf8"));
  for (let at = 0; at < bytes.length; at += piece) {
    if (at > 0) await nextTurn();
    hash.update(bytes.subarray(at, at + piece));
  }
  return hash.digest();
}

/** viem's private-key account, signing through libsecp256k1. */
function accountOf(privateKey: Hex): PrivateKeyAccount {
  const key = hexToBytes(privateKey);
  const publicKey = bytesToHex(native.publicKeyCreate(key, false));
  const account = toAccount({
    address: publicKeyToAddress(publicKey),
    async sign({ hash }) {
      return signHashSerialized(hexToBytes(hash), key);
    },
    async signAuthorization(authorization) {
      const address = authorization.contractAddress ?? authorization.address;
      const { chainId, nonce } = authorization;
      return { address, chainId, nonce, ...signHash(hashAuthorization({ address, chainId, nonce }), key) };
    },
    async signMessage({ message }) {
      return signHashSerialized(await personalMessageHash(message), key);
    },
    async signTransaction(transaction, { serializer = serializeTransaction } = {}) {
      // EIP-4844: the payload body is signed without the sidecars (the network wrapper), as viem does.
      const signable = transaction.type === "eip4844" ? { ...transaction, sidecars: false as const } : transaction;
      return serializer(transaction, signHash(keccak256(await serializer(signable)), key));
    },
    async signTypedData(typedData) {
      return signHashSerialized(hexToBytes(hashTypedData(typedData)), key);
    },
  });
  return { ...account, publicKey, source: "privateKey" } as PrivateKeyAccount;
}

/** A fresh private key from the injected randomness (valid secp256k1 scalar). */
export function generateEvmPrivateKey(random: Random): Hex {
  let key = random.bytes(32);
  while (!native.privateKeyVerify(key)) key = random.bytes(32); // 0 < key < n, as noble's isValidSecretKey
  return bytesToHex(key);
}

/** Accounts by private key, each derived once (its public key is a multiplication). Bounded: the oldest are dropped. */
const accounts = new Map<Hex, PrivateKeyAccount>();
const MAX_CACHED_ACCOUNTS = 4096;

export function evmAccountOf(privateKey: Hex): PrivateKeyAccount {
  const key = privateKey.toLowerCase() as Hex;
  let account = accounts.get(key);
  if (!account) {
    account = accountOf(key);
    if (accounts.size >= MAX_CACHED_ACCOUNTS) accounts.delete(accounts.keys().next().value!);
    accounts.set(key, account);
  }
  return account;
}

/**
 * The EIP-55 address of a private key, and nothing else: one public-key multiplication and two Keccak hashes,
 * without the viem account `evmAccountOf` builds around them (three times the cost: an init file of 50,000
 * accounts makes 50,000 addresses and signs with none of them yet).
 *
 * @example evmAddressOf("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318") // → "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
 */
export function evmAddressOf(privateKey: Hex): `0x${string}` {
  const publicKey = native.publicKeyCreate(hexToBytes(privateKey), false);
  const hex = Buffer.from(keccak_256(publicKey.subarray(1)).subarray(12)).toString("hex");
  const checksum = keccak_256(Buffer.from(hex, "ascii"));
  let address = "0x";
  for (let i = 0; i < 40; i++) {
    // A letter is upper case when its nibble of the hash of the lowercase address is 8 or more.
    const nibble = (checksum[i >> 1]! >> (i & 1 ? 0 : 4)) & 0xf;
    address += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return address as `0x${string}`;
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

/**
 * The sender of a signed transaction (as viem's `parseTransaction` read it), recovered as viem's
 * `recoverTransactionAddress` does: the payload without its signature serialized again and hashed, the public key
 * recovered from r, s and the parity (EIP-155's `v` on a legacy transaction). Through libsecp256k1: ~0.05 ms,
 * where the pure-JavaScript recovery took 1-2 ms of every `eth_sendRawTransaction`. Throws when the transaction
 * carries no signature or one that recovers no key.
 *
 * @example transactionSender(parseTransaction(raw)) // "0xAbc…", the checksummed address
 */
export function transactionSender(tx: ReturnType<typeof parseTransaction>): `0x${string}` {
  const { r, s, v, yParity } = tx as { r?: Hex; s?: Hex; v?: bigint; yParity?: number };
  if (r === undefined || s === undefined) throw new Error("the transaction is not signed");
  // EIP-155: v = chainId * 2 + 35 + parity (a bigint: it may pass 2^53); else v is 27/28, or the parity itself.
  const bit = yParity === undefined && v !== undefined && v >= 35n ? (v % 2n === 0n ? 1 : 0) : Number(yParity ?? v);
  const recid = bit === 27 ? 0 : bit === 28 ? 1 : bit;
  if (recid !== 0 && recid !== 1) throw new Error(`invalid signature parity ${bit}`);
  const unsigned = serializeTransaction({ ...tx, r: undefined, s: undefined, v: undefined, yParity: undefined, sidecars: undefined } as never);
  const signature = new Uint8Array(64);
  signature.set(hexToBytes(pad(r, { size: 32 })), 0);
  signature.set(hexToBytes(pad(s, { size: 32 })), 32);
  const publicKey = native.ecdsaRecover(signature, recid, hexToBytes(keccak256(unsigned)), false);
  return publicKeyToAddress(bytesToHex(publicKey));
}

/** EIP-712 typed data as a request carries it: struct definitions by name, values as JSON gave them. */
export interface TypedDataInput {
  domain: Record<string, unknown>;
  types: Record<string, unknown>;
  primaryType: string;
  message: Record<string, unknown>;
}

const ANY_CASE_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ARRAY_TYPE = /^(.+)\[[0-9]*\]$/;

function fieldTypesOf(fields: unknown): Map<string, string> {
  const byName = new Map<string, string>();
  if (!Array.isArray(fields)) return byName;
  for (const f of fields as Array<{ name?: unknown; type?: unknown }>) {
    if (f && typeof f.name === "string" && typeof f.type === "string") byName.set(f.name, f.type);
  }
  return byName;
}

function lowercaseStruct(value: Record<string, unknown>, fields: unknown, types: Record<string, unknown>): Record<string, unknown> {
  const fieldTypes = fieldTypesOf(fields);
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return Object.fromEntries(
    Object.entries(value).map(([name, v]) => {
      const type = fieldTypes.get(name);
      return [name, type === undefined ? v : lowercaseValue(v, type, types)];
    }),
  );
}

function lowercaseValue(value: unknown, type: string, types: Record<string, unknown>): unknown {
  const array = ARRAY_TYPE.exec(type);
  if (array) return Array.isArray(value) ? value.map((item) => lowercaseValue(item, array[1]!, types)) : value;
  if (type === "address") return typeof value === "string" && ANY_CASE_ADDRESS.test(value) ? value.toLowerCase() : value;
  const fields = Object.hasOwn(types, type) ? types[type] : undefined;
  if (Array.isArray(fields) && value !== null && typeof value === "object" && !Array.isArray(value)) {
    return lowercaseStruct(value as Record<string, unknown>, fields, types);
  }
  return value;
}

/**
 * A copy of `typed` with every `address`-typed value in lowercase: in the domain (by
 * `types.EIP712Domain`, or the fields the domain has) and in the message, through nested
 * structs and arrays, following `types`. EIP-712 encodes an address as its 20 bytes, so the
 * hash and the signature are the same whatever the letter case; viem, though, refuses a
 * mixed-case address whose EIP-55 checksum is wrong, which the platform signs.
 *
 * @example lowercaseTypedDataAddresses({ domain: { verifyingContract: "0xFfFf…" }, … }).domain.verifyingContract // → "0xffff…"
 */
export function lowercaseTypedDataAddresses(typed: TypedDataInput): TypedDataInput {
  const { domain, types, primaryType, message } = typed;
  const domainFields = Object.hasOwn(types, "EIP712Domain") ? types.EIP712Domain : getTypesForEIP712Domain({ domain: domain as never });
  return {
    domain: lowercaseStruct(domain, domainFields, types),
    types,
    primaryType,
    message: Object.hasOwn(types, primaryType) ? lowercaseStruct(message, types[primaryType], types) : message,
  };
}
