/**
 * Solana keys and signatures. Wire formats (the transaction layout, legacy and v0 messages) come from
 * @solana/kit, the common form read in one pass by ./solanaWire.ts; base-58 from ./base58.ts for 32 bytes and
 * `bs58` otherwise (both several times faster than kit's codec, which goes through a bigint, and a transaction
 * names a dozen keys several times on its way); public keys from ./ed25519.ts;
 * ed25519 signatures from node:crypto (OpenSSL: ~0.1 ms a check, against ~1-4 ms for a pure-JavaScript one on
 * these machines; the same RFC 8032 signatures, deterministic, so the bytes are identical).
 */
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { getCompiledTransactionMessageDecoder, getTransactionDecoder, getTransactionEncoder, type Transaction } from "@solana/kit";
import bs58 from "bs58";
import { apiError } from "../errors/catalogue.js";
import type { Random } from "../random.js";
import { base58Of32Bytes } from "./base58.js";
import { ed25519PublicKey } from "./ed25519.js";
import { readWireTransaction } from "./solanaWire.js";

export interface SolanaKey {
  address: string;
  /** 32-byte seed, hex. */
  seedHex: string;
}

// An ed25519 key in DER is a fixed header and the 32 raw bytes (PKCS #8 for a seed, SPKI for a public key).
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");
const privateKeyOf = (seed: Uint8Array) => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });

export function solanaKeyFromSeed(seed: Uint8Array): SolanaKey {
  const publicKey = ed25519PublicKey(seed);
  return { address: toBase58(publicKey), seedHex: Buffer.from(seed).toString("hex") };
}

export function generateSolanaKey(random: Random): SolanaKey {
  return solanaKeyFromSeed(random.bytes(32));
}

export function signSolanaBytes(key: SolanaKey, bytes: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, bytes, privateKeyOf(Buffer.from(key.seedHex, "hex"))));
}

/** Whether `signature` is `publicKey`'s ed25519 signature of `message` (false for a key or signature of the wrong size). */
export function verifySolanaSignature(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: "der", type: "spki" }), signature);
  } catch {
    return false; // bytes that are no point of the curve
  }
}

// A key or a signature's hash is 32 bytes: base58.ts writes those in about half bs58's time, the same text.
export const toBase58 = (bytes: Uint8Array): string => (bytes.length === 32 ? base58Of32Bytes(bytes) : bs58.encode(bytes));
/** The bytes of a base-58 text; throws on a character outside the alphabet. */
export const fromBase58 = (text: string): Uint8Array => bs58.decode(text);

/** A base-58 public key of 32 bytes: the pattern alone lets through texts of 32 to 44 characters that decode to more or fewer. */
export function isSolanaAddress(address: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return false;
  try {
    return fromBase58(address).length === 32;
  } catch {
    return false;
  }
}

/** Reads Solana's compact-u16 length prefix: [value, bytes used]. */
function readCompactU16(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) return [-1, 0];
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  return [value, 3];
}

function compactU16(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** The most bytes a Solana transaction may have on the wire (the network's packet data size), and in base64. */
export const MAX_TRANSACTION_BYTES = 1_232;
const MAX_TRANSACTION_BASE64 = Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4;

/**
 * Decodes a base64 wire transaction (legacy or v0). Some clients send only a
 * message with an empty signature section; the signature slots the message
 * header asks for are inserted, empty, before decoding.
 */
export function decodeSolanaTransaction(base64: string): Transaction {
  const tooLong = (size: string) =>
    apiError(
      "malformed_transaction",
      `The Solana transaction could not be decoded: a transaction is at most ${MAX_TRANSACTION_BYTES} bytes (${MAX_TRANSACTION_BASE64} base64 characters), this one has ${size}.`,
    );
  // Refused by its length before it is decoded: a 4 MB string took 100 ms of decoding and re-encoding to refuse.
  if (base64.length > MAX_TRANSACTION_BASE64 && base64.replace(/\s/g, "").length > MAX_TRANSACTION_BASE64) throw tooLong(`${base64.length} characters`);
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  if (bytes.length > MAX_TRANSACTION_BYTES) throw tooLong(`${bytes.length} bytes`);
  if (bytes.length === 0 || Buffer.from(bytes).toString("base64") !== base64.replace(/\s/g, "")) {
    throw apiError("malformed_transaction", "transaction must be a base64-encoded Solana transaction.");
  }
  let wire = bytes;
  const [count, used] = readCompactU16(bytes, 0);
  if (count === 0) {
    // The message header's first byte (after an optional version prefix) is the number of required signatures.
    const header = bytes[used]! & 0x80 ? bytes[used + 1] : bytes[used];
    if (header !== undefined && header > 0) {
      wire = new Uint8Array([...compactU16(header), ...new Uint8Array(64 * header), ...bytes.subarray(used)]);
    }
  }
  // The common form is read in one pass (solanaWire.ts); kit decodes, or refuses, everything else.
  const read = readWireTransaction(wire);
  if (read) {
    compiledMessages.set(read.tx.messageBytes, read.message);
    return read.tx;
  }
  try {
    const tx = getTransactionDecoder().decode(wire);
    // The transaction decoder only splits signatures from message bytes; a message that does not parse would
    // otherwise throw later, in whatever reads it (policies, lookup tables), outside this 400.
    compiledMessageOf(tx);
    return tx;
  } catch (error) {
    throw apiError("malformed_transaction", `The Solana transaction could not be decoded: ${(error as Error).message.split("\n")[0]}`);
  }
}

type CompiledMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
/** Decoded messages by their bytes: a send reads its message four times (checks, facts, blockhash, keys), each decode writing every key in base-58. */
const compiledMessages = new WeakMap<Transaction["messageBytes"], CompiledMessage>();

/**
 * The transaction's compiled message (its keys, blockhash, instructions), decoded once per message bytes. The
 * object is shared: read it, never change it.
 */
export function compiledMessageOf(tx: Transaction): CompiledMessage {
  let message = compiledMessages.get(tx.messageBytes);
  if (!message) {
    message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    compiledMessages.set(tx.messageBytes, message);
  }
  return message;
}

/** Adds `key`'s signature over the message; 400 when the key is not one of the transaction's signers. */
export function signSolanaTransaction(tx: Transaction, key: SolanaKey): Transaction {
  const signers = Object.keys(tx.signatures);
  if (!signers.includes(key.address)) {
    throw apiError("invalid_request", `${key.address} is not a signer of this transaction (its signers: ${signers.join(", ") || "none"}).`);
  }
  const signature = signSolanaBytes(key, new Uint8Array(tx.messageBytes));
  return { ...tx, signatures: { ...tx.signatures, [key.address]: signature as never } };
}

export function encodeSolanaTransaction(tx: Transaction): string {
  return Buffer.from(solanaWireBytes(tx)).toString("base64");
}

/**
 * The transaction's wire bytes: its signatures (zeros for an empty slot) after their count, then the message, as
 * kit's encoder writes them, put together directly when every signature has its 64 bytes (kit's encoder builds a
 * codec per field on each call, ~0.1 ms). Kit writes, or refuses, any other (no signature at all, a wrong size).
 */
export function solanaWireBytes(tx: Transaction): Uint8Array {
  const signatures = Object.values(tx.signatures) as (Uint8Array | null)[];
  if (signatures.length === 0 || signatures.some((s) => s !== null && s.length !== 64)) return new Uint8Array(getTransactionEncoder().encode(tx));
  const count = compactU16(signatures.length);
  const wire = new Uint8Array(count.length + 64 * signatures.length + tx.messageBytes.length);
  wire.set(count, 0);
  signatures.forEach((signature, i) => {
    if (signature) wire.set(signature, count.length + 64 * i);
  });
  wire.set(tx.messageBytes, count.length + 64 * signatures.length);
  return wire;
}

/** The fee payer: the first signer of the message. */
export function feePayerOf(tx: Transaction): string | undefined {
  return Object.keys(tx.signatures)[0];
}
