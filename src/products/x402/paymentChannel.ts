/**
 * The Solana payment-channel program the `upto` scheme escrows through: the
 * layout of the payer's `open` transaction (compute budget, `open`, then only
 * Memo or Lighthouse), the channel's program-derived address, and the voucher
 * a claim is signed over. Wire formats come from @solana/kit, signatures are
 * checked with @noble/curves; nothing here touches the ledger.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address,
  getAddressDecoder,
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getProgramDerivedAddress,
  getU64Encoder,
  getUtf8Encoder,
  type Transaction,
} from "@solana/kit";
import { fromBase58 } from "../../crypto/solana.js";
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM } from "../../crypto/solanaInstructions.js";
import { associatedTokenAddress, COMPUTE_BUDGET_PROGRAM, LIGHTHOUSE_PROGRAM, MEMO_PROGRAM } from "./svmAccounts.js";

const PAYMENT_CHANNELS_PROGRAM = "CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX";
const RENT_SYSVAR = "SysvarRent111111111111111111111111111111111";
const OPEN_DISCRIMINATOR = 1;
const MAX_COMPUTE_UNIT_LIMIT = 400_000;
const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
const MAX_OPTIONAL_AFTER_OPEN = 4;
const MAX_LIGHTHOUSE_AFTER_OPEN = 3;
/** How far the open slot may trail the current slot. */
const OPEN_SLOT_WINDOW = 1500n;
/** A split's share is in basis points: 10,000 is the whole charge. */
const WHOLE_SHARE_BPS = 10_000;

/** What the open transaction must say, from the payload and the requirements. */
export interface ExpectedOpen {
  from: string;
  feePayer: string;
  mint: string;
  authorizedSigner: string;
  tokenProgram: string;
  deposit: bigint;
  withdrawDelay: number;
  openSlot: bigint;
  recentSlot: bigint;
  payTo: string;
  memo?: string;
}

export interface OpenedChannel {
  channelId: string;
  payer: string;
  salt: bigint;
  deposit: bigint;
  /** The blockhash the payer signed against (base58). */
  blockhash: string;
}

/** Thrown with what is wrong with an open transaction (the message of `invalid_upto_svm_payload_open_transaction`). */
class OpenTransactionError extends Error {}
const fail = (message: string): never => {
  throw new OpenTransactionError(message);
};

/** The channel PDA: seeds "channel", payer, payee, mint, authorized signer, salt and open slot (u64 little-endian). */
async function channelAddress(payer: string, payee: string, mint: string, authorizedSigner: string, salt: bigint, openSlot: bigint): Promise<string> {
  const a = getAddressEncoder();
  const u64 = getU64Encoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: address(PAYMENT_CHANNELS_PROGRAM),
    seeds: [
      getUtf8Encoder().encode("channel"),
      a.encode(address(payer)),
      a.encode(address(payee)),
      a.encode(address(mint)),
      a.encode(address(authorizedSigner)),
      u64.encode(salt),
      u64.encode(openSlot),
    ],
  });
  return String(pda);
}

async function eventAuthority(): Promise<string> {
  const [pda] = await getProgramDerivedAddress({ programAddress: address(PAYMENT_CHANNELS_PROGRAM), seeds: [getUtf8Encoder().encode("event_authority")] });
  return String(pda);
}

/** The open instruction's arguments: salt, deposit, grace period, open slot, then the distribution splits. */
function readOpenArgs(data: Uint8Array) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 33) fail("the open instruction's data is too short");
  const count = view.getUint32(29, true);
  if (data.length !== 33 + count * 34) fail("the open instruction's splits do not match its length");
  const recipients = Array.from({ length: count }, (_, i) => ({
    recipient: getAddressDecoder().decode(data.subarray(33 + i * 34, 65 + i * 34)),
    bps: view.getUint16(65 + i * 34, true),
  }));
  return {
    salt: view.getBigUint64(1, true),
    deposit: view.getBigUint64(9, true),
    gracePeriod: view.getUint32(17, true),
    openSlot: view.getBigUint64(21, true),
    recipients,
  };
}

/**
 * Checks the payer's open transaction the way facilitators do before signing it as fee payer: its layout,
 * signers and the payer's signature, every account of `open`, its arguments, and the channel address.
 *
 * @throws OpenTransactionError naming the first problem.
 */
export async function checkOpenTransaction(tx: Transaction, e: ExpectedOpen): Promise<OpenedChannel> {
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if ("addressTableLookups" in message && (message.addressTableLookups?.length ?? 0) > 0)
    fail("address lookup tables are not permitted in an open transaction");
  const accounts = message.staticAccounts.map(String);
  const ixs = message.instructions.map((ix) => ({
    program: accounts[ix.programAddressIndex] ?? "",
    accounts: (ix.accountIndices ?? []).map((i) => accounts[i] ?? ""),
    indices: ix.accountIndices ?? [],
    data: new Uint8Array(ix.data ?? []),
  }));
  let i = 0;
  let limitSeen = false;
  let priceSeen = false;
  const noFeePayer = (ix: (typeof ixs)[number], label: string) => {
    if (ix.program === e.feePayer || ix.accounts.includes(e.feePayer)) fail(`the fee payer must not appear in a ${label} instruction`);
  };
  for (; i < ixs.length && ixs[i]!.program === COMPUTE_BUDGET_PROGRAM; i++) {
    const ix = ixs[i]!;
    noFeePayer(ix, "ComputeBudget");
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length === 5 && !limitSeen && !priceSeen) {
      if (view.getUint32(1, true) > MAX_COMPUTE_UNIT_LIMIT) fail(`SetComputeUnitLimit exceeds ${MAX_COMPUTE_UNIT_LIMIT}`);
      limitSeen = true;
    } else if (ix.data[0] === 3 && ix.data.length === 9 && !priceSeen) {
      if (view.getBigUint64(1, true) > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS)
        fail(`SetComputeUnitPrice exceeds ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS} micro-lamports`);
      priceSeen = true;
    } else fail("the compute budget prefix is at most one SetComputeUnitLimit then one SetComputeUnitPrice");
  }
  const open = ixs[i];
  if (!open || open.program !== PAYMENT_CHANNELS_PROGRAM || open.data[0] !== OPEN_DISCRIMINATOR) {
    fail(`after the compute budget instructions comes the payment-channel program's open (${PAYMENT_CHANNELS_PROGRAM})`);
  }
  const memos: string[] = [];
  let lighthouse = 0;
  const suffix = ixs.slice(i + 1);
  if (suffix.length > MAX_OPTIONAL_AFTER_OPEN) fail(`at most ${MAX_OPTIONAL_AFTER_OPEN} instructions may follow open`);
  for (const ix of suffix) {
    if (ix.program === MEMO_PROGRAM) memos.push(Buffer.from(ix.data).toString("utf8"));
    else if (ix.program === LIGHTHOUSE_PROGRAM) lighthouse++;
    else fail(`instruction of ${ix.program} after open: only Memo and Lighthouse may follow it`);
    noFeePayer(ix, ix.program === MEMO_PROGRAM ? "Memo" : "Lighthouse");
  }
  if (lighthouse > MAX_LIGHTHOUSE_AFTER_OPEN) fail(`at most ${MAX_LIGHTHOUSE_AFTER_OPEN} Lighthouse instructions may follow open`);
  if (e.memo !== undefined && (memos.length !== 1 || memos[0] !== e.memo)) fail(`the requirements ask for exactly one memo "${e.memo}"`);

  const signers = accounts.slice(0, message.header.numSignerAccounts);
  const wanted = new Set([e.feePayer, e.from]);
  if (signers.length !== wanted.size || signers.some((s) => !wanted.has(s))) fail(`the signers must be the fee payer and the payer, not ${signers.join(", ")}`);
  if (accounts[0] !== e.feePayer) fail(`the fee payer is ${accounts[0]}, not ${e.feePayer}`);
  const signature = tx.signatures[e.from as keyof typeof tx.signatures];
  if (!signature || !ed25519.verify(new Uint8Array(signature), new Uint8Array(tx.messageBytes), fromBase58(e.from))) {
    fail(`the transaction lacks a valid signature of the payer ${e.from}`);
  }

  const o = open!;
  if (o.accounts.length !== 14) fail(`open names ${o.accounts.length} accounts, not 14`);
  const [payer, rentPayer, payee, mint, authorizedSigner, channel, payerAta, channelAta, tokenProgram, system, rent, ataProgram, events, self] = o.accounts;
  // Roles from the message header: signers first (writable, then read-only), then writable non-signers.
  const h = message.header;
  const writableSigners = h.numSignerAccounts - h.numReadonlySignerAccounts;
  const writableEnd = accounts.length - h.numReadonlyNonSignerAccounts;
  const isWritable = (index: number) => index < writableSigners || (index >= h.numSignerAccounts && index < writableEnd);
  for (const slot of [0, 1, 5, 6, 7]) if (!isWritable(o.indices[slot]!)) fail(`account ${o.accounts[slot]} of open must be writable`);
  const writable = new Set([payer, rentPayer, channel, payerAta, channelAta]);
  for (const [index, a] of accounts.entries()) if (isWritable(index) && !writable.has(a)) fail(`account ${a} is writable but open does not write it`);
  const expectations: Array<[string, string | undefined, string]> = [
    ["payer", payer, e.from],
    ["rent payer", rentPayer, e.feePayer],
    ["payee", payee, e.feePayer],
    ["mint", mint, e.mint],
    ["authorized signer", authorizedSigner, e.authorizedSigner],
    ["token program", tokenProgram, e.tokenProgram],
    ["payer token account", payerAta, await associatedTokenAddress(e.from, e.mint, e.tokenProgram)],
    ["channel token account", channelAta, await associatedTokenAddress(channel!, e.mint, e.tokenProgram)],
    ["system program", system, SYSTEM_PROGRAM],
    ["rent sysvar", rent, RENT_SYSVAR],
    ["associated token program", ataProgram, ASSOCIATED_TOKEN_PROGRAM],
    ["event authority", events, await eventAuthority()],
    ["program", self, PAYMENT_CHANNELS_PROGRAM],
  ];
  for (const [label, actual, wantedAccount] of expectations) if (actual !== wantedAccount) fail(`open's ${label} is ${actual}, not ${wantedAccount}`);

  const args = readOpenArgs(o.data);
  if (args.deposit === 0n) fail("the deposit must be more than zero");
  if (args.deposit !== e.deposit) fail(`the deposit is ${args.deposit}; it must be the authorized maximum ${e.deposit}`);
  if (args.gracePeriod !== e.withdrawDelay) fail(`the grace period is ${args.gracePeriod} s, not the requirements' withdrawDelay ${e.withdrawDelay}`);
  if (args.openSlot !== e.openSlot) fail(`the open slot is ${args.openSlot}, not the payload's ${e.openSlot}`);
  if (args.openSlot > e.recentSlot || e.recentSlot - args.openSlot > OPEN_SLOT_WINDOW) {
    fail(`the open slot ${args.openSlot} is not within the ${OPEN_SLOT_WINDOW} slots before slot ${e.recentSlot}`);
  }
  const [split] = args.recipients;
  if (args.recipients.length !== 1 || split!.recipient !== e.payTo || split!.bps !== WHOLE_SHARE_BPS) {
    fail(`the channel must distribute the whole charge (${WHOLE_SHARE_BPS} bps) to payTo ${e.payTo}`);
  }
  const derived = await channelAddress(payer!, payee!, mint!, authorizedSigner!, args.salt, args.openSlot);
  if (derived !== channel) fail(`the channel account ${channel} is not the program address ${derived} its seeds derive`);
  return { channelId: channel, payer: payer!, salt: args.salt, deposit: args.deposit, blockhash: String(message.lifetimeToken) };
}

export const isOpenTransactionError = (error: unknown): error is Error => error instanceof OpenTransactionError;

/** The 50 bytes a voucher signs: magic 0x56 0x01, the channel (32 bytes), the cumulative amount (u64 LE), the expiry (i64 LE). */
export function voucherMessage(channelId: string, cumulativeAmount: bigint, expiresAt: bigint): Uint8Array {
  const out = new Uint8Array(50);
  const view = new DataView(out.buffer);
  out.set([86, 1], 0);
  out.set(fromBase58(channelId), 2);
  view.setBigUint64(34, cumulativeAmount, true);
  view.setBigInt64(42, expiresAt, true);
  return out;
}
