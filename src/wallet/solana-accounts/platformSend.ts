/**
 * How the platform sends a Solana transaction for its accounts: with `useCdpSponsor` the sandbox's sponsor
 * becomes the fee payer (and pays the rent of the associated token accounts the transaction creates); every
 * signer the project holds signs; and when the platform holds every signer it manages the recent blockhash:
 * a stale one, or one that would make the transaction a repeat of one already processed, is replaced by a
 * recent one before signing, so the same unsigned transaction can be sent twice.
 */
import { createHash } from "node:crypto";
import {
  address,
  compileTransaction,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  setTransactionMessageFeePayer,
  type Instruction,
  type Transaction,
} from "@solana/kit";
import {
  ASSOCIATED_TOKEN_PROGRAM,
  BLOCKHASH_VALID_SLOTS,
  blockhashOf,
  lamportsOf,
  readSolanaTransactionOn,
  recentBlockhash,
  recentBlockhashSlot,
  refusalAsApiError,
  setLamports,
  SolanaTransactionRefused,
  solanaTxs,
  submitSolanaTransaction,
} from "../../chain/solana/index.js";
import { fromBase58, type SolanaKey, signSolanaTransaction, solanaKeyFromSeed, toBase58 } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import type { Clock } from "../../clock.js";

/** The sandbox's fee sponsor: one fixed key (the platform's own wallet), topped up whenever it runs low. */
const SOLANA_SPONSOR: SolanaKey = solanaKeyFromSeed(createHash("sha256").update("cdp-sandbox:solana-fee-sponsor").digest());
const SPONSOR_FLOAT = 1_000_000_000_000n; // 1,000 SOL

/** Makes the sponsor the fee payer, and the payer of any associated token account the original payer would fund. */
function sponsored(tx: Transaction): Transaction {
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if ("addressTableLookups" in compiled && (compiled.addressTableLookups?.length ?? 0) > 0) {
    throw apiError("invalid_request", "useCdpSponsor does not take transactions that load accounts from address lookup tables.");
  }
  let message: ReturnType<typeof decompileTransactionMessage>;
  try {
    message = decompileTransactionMessage(compiled);
  } catch (error) {
    throw apiError("malformed_transaction", `The transaction's message cannot be read to sponsor it: ${(error as Error).message.split("\n")[0]}`);
  }
  const original = message.feePayer.address;
  const sponsor = address(SOLANA_SPONSOR.address);
  const instructions = (message.instructions as readonly Instruction[]).map((ix) =>
    ix.programAddress === ASSOCIATED_TOKEN_PROGRAM && ix.accounts?.[0]?.address === original
      ? { ...ix, accounts: [{ ...ix.accounts[0], address: sponsor }, ...ix.accounts.slice(1)] }
      : ix,
  );
  return compileTransaction(setTransactionMessageFeePayer(sponsor, { ...message, instructions } as typeof message));
}

/** Where the recent blockhash sits in the message: after the version byte, the header and the static accounts. */
function blockhashOffset(messageBytes: Uint8Array): number {
  let at = messageBytes[0]! & 0x80 ? 1 : 0;
  at += 3;
  let count = 0;
  let shift = 0;
  for (;;) {
    const byte = messageBytes[at++]!;
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  return at + 32 * count;
}

function withBlockhash(tx: Transaction, blockhash: string): Transaction {
  const bytes = new Uint8Array(tx.messageBytes);
  bytes.set(fromBase58(blockhash), blockhashOffset(bytes));
  const signatures = Object.fromEntries(Object.keys(tx.signatures).map((k) => [k, null]));
  return { messageBytes: bytes as never, signatures: signatures as never };
}

function signAll(tx: Transaction, keyOf: (signer: string) => SolanaKey | undefined): Transaction {
  let signed = tx;
  for (const signer of Object.keys(tx.signatures)) {
    const key = keyOf(signer);
    if (key) signed = signSolanaTransaction(signed, key);
    else if (!tx.signatures[signer as keyof typeof tx.signatures]?.some((b) => b !== 0)) {
      throw apiError("invalid_request", `Signer ${signer} is not an account of this project and its signature is missing.`);
    }
  }
  return signed;
}

export interface PlatformSendInput {
  store: ProjectTx;
  clock: Clock;
  network: string;
  tx: Transaction;
  /** The key of a signer the project holds (its accounts, or the end user's). */
  keyOf: (signer: string) => SolanaKey | undefined;
  useCdpSponsor?: boolean;
}

/** Signs and sends; answers the signature, or throws the catalogue error a refused transaction deserves. */
export function platformSendSolana(input: PlatformSendInput): string {
  const { store, clock, network } = input;
  let tx = input.tx;
  let keyOf = input.keyOf;
  if (input.useCdpSponsor) {
    tx = sponsored(tx);
    keyOf = (signer) => (signer === SOLANA_SPONSOR.address ? SOLANA_SPONSOR : input.keyOf(signer));
    if (lamportsOf(store, network, SOLANA_SPONSOR.address) < SPONSOR_FLOAT / 2n) setLamports(store, network, SOLANA_SPONSOR.address, SPONSOR_FLOAT);
  }
  const holdsAll = Object.keys(tx.signatures).every((s) => keyOf(s) !== undefined);
  let signed = signAll(tx, keyOf);
  if (holdsAll) {
    const processed = (t: Transaction) => solanaTxs(store).get(toBase58(new Uint8Array(Object.values(t.signatures)[0] ?? new Uint8Array(64)))) !== undefined;
    const fresh = recentBlockhashSlot(network, clock.now(), blockhashOf(signed)) !== undefined;
    // A recent blockhash not used yet for this message: the newest first, then older ones while the clock stands still.
    for (let age = 0; (!fresh || processed(signed)) && age < BLOCKHASH_VALID_SLOTS; age++) {
      signed = signAll(withBlockhash(tx, recentBlockhash(network, clock.now(), age)), keyOf);
      if (!processed(signed)) break;
    }
  }
  try {
    return submitSolanaTransaction(store, clock, network, signed, readSolanaTransactionOn(store, signed, network)).signature;
  } catch (error) {
    if (error instanceof SolanaTransactionRefused) throw refusalAsApiError(error);
    throw error;
  }
}
