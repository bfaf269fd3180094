import { getCompiledTransactionMessageDecoder, getTransactionDecoder, getTransactionEncoder } from "@solana/kit";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  AddressLookupTableAccount,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { createRandom } from "../random.js";
import { decodeSolanaTransaction, solanaWireBytes } from "./solana.js";
import { readWireTransaction } from "./solanaWire.js";

const random = createRandom("solana-wire");
const keypair = () => Keypair.fromSeed(random.bytes(32));
const address = () => keypair().publicKey;
const blockhash = () => address().toBase58();
const USDC = new PublicKey("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");

/** What kit's two decoders make of the bytes, or the message they throw. */
function kitRead(wire: Uint8Array): { tx: unknown; message: unknown } | { error: string } {
  try {
    const tx = getTransactionDecoder().decode(wire);
    return { tx, message: getCompiledTransactionMessageDecoder().decode(tx.messageBytes) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Members in order, byte arrays as their type and bytes, so that two reads compare member for member. */
const shape = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? { [v.constructor.name]: Array.from(v) } : v));

function expectSameAsKit(wire: Uint8Array): void {
  const read = readWireTransaction(wire);
  const kit = kitRead(wire);
  expect(read).toBeDefined();
  expect("error" in kit).toBe(false);
  expect(shape(read!.tx)).toBe(shape((kit as { tx: unknown }).tx));
  expect(shape(read!.message)).toBe(shape((kit as { message: unknown }).message));
  expect(Object.isFrozen(read!.tx.signatures)).toBe(true);
}

function legacyTransfers(): Uint8Array[] {
  const from = keypair();
  const to = address();
  const signed = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash() }).add(
    createTransferCheckedInstruction(getAssociatedTokenAddressSync(USDC, from.publicKey), USDC, getAssociatedTokenAddressSync(USDC, to), from.publicKey, 7n, 6),
  );
  signed.sign(from);
  const twoSigners = new Transaction({ feePayer: address(), recentBlockhash: blockhash() }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 5 }),
    // An instruction with no accounts and one with no data: kit leaves those members out.
    new TransactionInstruction({ programId: address(), keys: [], data: Buffer.from("memo") }),
    new TransactionInstruction({ programId: address(), keys: [{ pubkey: to, isSigner: false, isWritable: true }], data: Buffer.alloc(0) }),
  );
  twoSigners.partialSign(from); // the fee payer's slot stays zeros: null in the signatures
  return [signed.serialize(), twoSigners.serialize({ requireAllSignatures: false })].map((b) => new Uint8Array(b));
}

function versionedTransfers(): Uint8Array[] {
  const payer = keypair();
  const table = new AddressLookupTableAccount({
    key: address(),
    state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [address(), address(), address()] },
  });
  const [a, b, c] = table.state.addresses as [PublicKey, PublicKey, PublicKey];
  const withTable = new VersionedTransaction(
    MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash(),
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: a, lamports: 1 }),
        new TransactionInstruction({
          programId: address(),
          keys: [
            { pubkey: b, isSigner: false, isWritable: false },
            { pubkey: c, isSigner: false, isWritable: true },
          ],
          data: Buffer.from([1, 2, 3]),
        }),
      ],
      addressLookupTableAccounts: [table],
    }),
  );
  withTable.sign([payer]);
  const noTable = new VersionedTransaction(
    MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash(),
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: a, lamports: 2 })],
    }),
  );
  return [withTable.serialize(), noTable.serialize()];
}

describe("the one-pass reader of Solana wire transactions", () => {
  it("reads legacy transactions as kit's decoders do, unsigned slots as null", () => {
    for (const wire of legacyTransfers()) expectSameAsKit(wire);
  });

  it("reads v0 transactions as kit's decoders do, with and without address lookup tables", () => {
    for (const wire of versionedTransfers()) expectSameAsKit(wire);
  });

  it("reads nothing kit would refuse and nothing it would read otherwise: changed, cut and extended bytes", () => {
    let mine = 0;
    let kits = 0;
    for (const wire of [...legacyTransfers(), ...versionedTransfers()]) {
      const variants: Uint8Array[] = [];
      for (let at = 0; at < wire.length; at++) {
        for (const value of [0x00, 0x01, 0x7f, 0x80, 0x81, 0xff, wire[at]! ^ 0x04]) {
          const changed = wire.slice();
          changed[at] = value;
          variants.push(changed);
        }
        variants.push(wire.slice(0, at));
      }
      variants.push(new Uint8Array([...wire, 0]), new Uint8Array([...wire, 1, 2, 3]));
      for (const variant of variants) {
        const read = readWireTransaction(variant);
        const kit = kitRead(variant);
        if (read === undefined) {
          kits++;
          continue;
        }
        mine++;
        expect("error" in kit, `kit refuses what the reader read: ${Buffer.from(variant).toString("hex")}`).toBe(false);
        expect(shape(read.tx)).toBe(shape((kit as { tx: unknown }).tx));
        expect(shape(read.message)).toBe(shape((kit as { message: unknown }).message));
      }
    }
    // Most single-byte changes inside keys and data keep the common form: the comparison above ran on them.
    expect(mine).toBeGreaterThan(kits);
  });

  it("leaves kit to refuse a malformed transaction, with kit's words", () => {
    const [wire] = versionedTransfers();
    const unsupported = wire!.slice();
    unsupported[65] = 0x81; // version 1: not one this reader or kit reads
    expect(readWireTransaction(unsupported)).toBeUndefined();
    expect(() => decodeSolanaTransaction(Buffer.from(unsupported).toString("base64"))).toThrow(/could not be decoded: .*version/i);
  });

  it("writes a transaction's wire bytes as kit's encoder does, empty slots as zeros, and leaves kit to refuse none signed", () => {
    for (const wire of [...legacyTransfers(), ...versionedTransfers()]) {
      const tx = getTransactionDecoder().decode(wire);
      expect(Buffer.from(solanaWireBytes(tx)).toString("hex")).toBe(Buffer.from(getTransactionEncoder().encode(tx)).toString("hex"));
      expect(Buffer.from(solanaWireBytes(tx)).toString("hex")).toBe(Buffer.from(wire).toString("hex"));
    }
    const [wire] = legacyTransfers();
    const unsigned = { ...getTransactionDecoder().decode(wire!), signatures: {} } as never;
    expect(() => solanaWireBytes(unsigned)).toThrow(/no expected signers/);
  });
});
