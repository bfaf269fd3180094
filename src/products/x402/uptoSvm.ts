/**
 * The `upto` scheme on Solana: the payer signs an `open` of a payment channel
 * that escrows the maximum; the resource server settles twice. The deposit
 * (`type: "deposit"`, amount = the maximum) signs the open as fee payer and
 * moves the maximum from the payer into the channel; the claim (`type:
 * "claim"`, amount = the charge) seals the channel with a voucher for the
 * charge, pays it to payTo and refunds the rest to the payer. The voucher is
 * signed by the requirements' receiver authorizer: the resource server's own
 * key (it sends `voucherSignature`), or this facilitator's when the
 * requirements name it (`extra.receiverAuthorizer` of GET /v2/x402/supported).
 * Verify checks the open authorization only.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import type { Transaction } from "@solana/kit";
import { balanceOf, blockNumberAt, credit, headBlock, setBalance, settlementBlock } from "../../chain/index.js";
import { blockhashAt, solanaTokenByMint, solanaTxs } from "../../chain/solana/index.js";
import {
  decodeSolanaTransaction,
  fromBase58,
  signSolanaBytes,
  signSolanaTransaction,
  solanaKeyFromSeed,
  toBase58,
  type SolanaKey,
} from "../../crypto/solana.js";
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../../crypto/solanaInstructions.js";
import type { HandlerContext } from "../../wallet/types.js";
import { type PaymentChannel, paymentChannels } from "./model.js";
import { FACILITATOR_FEE_PAYER } from "./networks.js";
import type { Payment, Rejection } from "./payment.js";
import { checkOpenTransaction, isOpenTransactionError, voucherMessage } from "./paymentChannel.js";

/** The longest a channel may stay claimable, as facilitators cap it. */
const MAX_CHANNEL_LIFETIME_SECONDS = 3600;
/** How far a payer's clock may run ahead when it sets expiresAt. */
const EXPIRES_AT_SKEW_SECONDS = 60;
/** A blockhash is usable for 150 slots (about a minute at 400 ms). */
const BLOCKHASH_VALID_SLOTS = 150;

// A fixed, public key like the fee payer's, derived on first use.
let authorizer: SolanaKey | undefined;
const receiverAuthorizer = () =>
  (authorizer ??= solanaKeyFromSeed(createHash("sha256").update("cdp-sandbox:x402-facilitator:solana-receiver-authorizer").digest()));

/** The key that signs vouchers for channels that name this facilitator as receiver authorizer (`extra.receiverAuthorizer`). */
export const facilitatorReceiverAuthorizer = (): string => receiverAuthorizer().address;

interface UptoSvmPayload {
  from: string;
  maxAmount: bigint;
  expiresAt: number;
  validAfter: number;
  nonce: string;
  openSlot: string;
  channelId: string;
  deposit: bigint;
  authorizedSigner: string;
  openTransaction: string;
  voucherSignature?: string;
  type?: "deposit" | "claim";
}

export type UptoSvmPlan =
  | { step: "verify"; payer: string }
  | { step: "deposit"; payer: string; tx: Transaction; channel: Omit<PaymentChannel, "openedBy" | "openedAtMs"> }
  | { step: "claim"; payer: string; channel: PaymentChannel; charge: bigint; voucherSignature: string };

type Obj = Record<string, unknown>;
const u64 = (v: string): bigint | undefined => (/^[0-9]{1,20}$/.test(v) && BigInt(v) < 1n << 64n ? BigInt(v) : undefined);
const isAddress = (v: unknown): v is string => typeof v === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(v) && fromBase58(v).length === 32;

/** The payload in the shape the scheme defines, or undefined. */
function readPayload(raw: Obj): UptoSvmPayload | undefined {
  const strings = ["from", "maxAmount", "deposit", "channelId", "authorizedSigner", "openTransaction", "openSlot", "nonce"] as const;
  if (strings.some((k) => typeof raw[k] !== "string") || !Number.isSafeInteger(raw.expiresAt) || !Number.isSafeInteger(raw.validAfter)) return undefined;
  if (raw.voucherSignature !== undefined && typeof raw.voucherSignature !== "string") return undefined;
  if (raw.type !== undefined && raw.type !== "deposit" && raw.type !== "claim") return undefined;
  const [maxAmount, deposit] = [u64(String(raw.maxAmount)), u64(String(raw.deposit))];
  if (maxAmount === undefined || deposit === undefined) return undefined;
  return { ...(raw as unknown as UptoSvmPayload), maxAmount, deposit };
}

/** The channel settings the requirements carry, or why they cannot. */
function channelConfig(p: Payment): { feePayer: string; receiverAuthorizer: string; withdrawDelay: number; tokenProgram: string } | string {
  const { feePayer, receiverAuthorizer: authorizerAddress, withdrawDelay, tokenProgram } = p.extra;
  if (!isAddress(feePayer)) return "extra.feePayer must be the facilitator's fee payer (see GET /v2/x402/supported)";
  if (!isAddress(authorizerAddress)) return "extra.receiverAuthorizer must be the address that signs vouchers";
  if (typeof withdrawDelay !== "number" || !Number.isInteger(withdrawDelay) || withdrawDelay <= 0)
    return "extra.withdrawDelay must be a whole number of seconds above zero";
  if (!isAddress(p.asset) || !solanaTokenByMint(p.network.ledger, p.asset) || p.asset === "So11111111111111111111111111111111111111112") {
    return `asset ${p.asset} is not an SPL token on ${p.network.ledger} in the sandbox's token table`;
  }
  const program = tokenProgram ?? TOKEN_PROGRAM;
  if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) return `extra.tokenProgram ${String(program)} is neither SPL Token nor Token-2022`;
  return { feePayer, receiverAuthorizer: authorizerAddress, withdrawDelay, tokenProgram: program };
}

function isRecentBlockhash(ctx: HandlerContext, network: string, blockhash: string): boolean {
  const slot = blockNumberAt(network, ctx.clock.now());
  const wanted = Buffer.from(fromBase58(blockhash));
  for (let s = slot; s >= Math.max(0, slot - BLOCKHASH_VALID_SLOTS); s--) if (blockhashAt(network, s).equals(wanted)) return true;
  return false;
}

/**
 * Checks an upto Solana payment. Verify checks the open authorization (the requirements' amount is the maximum);
 * settle opens the channel (deposit) or charges it (claim), in the order facilitators check them.
 */
export async function verifyUptoSvm(ctx: HandlerContext, p: Payment, phase: "verify" | "settle"): Promise<{ plan: UptoSvmPlan } | { rejection: Rejection }> {
  const no = (reason: Rejection["reason"], message: string, payer?: string) => ({ rejection: { reason, message, payer } });
  const u = readPayload(p.payload);
  if (!u) {
    return no(
      "unsupported_payload_type",
      `An upto payment on ${p.networkName} is a payment-channel open {from, maxAmount, deposit, channelId, authorizedSigner, openTransaction, openSlot, nonce, expiresAt, validAfter}; this payload is not.`,
    );
  }
  if (phase === "verify") return checkOpen(ctx, p, u, "verify");
  if (p.amount > u.maxAmount) {
    return no(
      "invalid_upto_svm_payload_settlement_exceeds_amount",
      `The settlement charges ${p.amount} but the payer authorized at most ${u.maxAmount}.`,
      u.from,
    );
  }
  if (u.type === "deposit") return checkOpen(ctx, p, u, "deposit");
  if (u.type === "claim") return checkClaim(ctx, p, u);
  if (p.extra.receiverAuthorizer === facilitatorReceiverAuthorizer()) {
    return no("invalid_upto_svm_payload_type", "A channel whose vouchers this facilitator signs is settled with payload.type deposit, then claim.", u.from);
  }
  if (u.voucherSignature !== undefined) return checkClaim(ctx, p, u);
  if (p.amount === u.maxAmount) return checkOpen(ctx, p, u, "deposit");
  return no("invalid_upto_svm_payload_missing_voucher", `A claim of ${p.amount} needs a voucherSignature (or payload.type claim).`, u.from);
}

/** The open authorization, shared by verify and the deposit. */
async function checkOpen(
  ctx: HandlerContext,
  p: Payment,
  u: UptoSvmPayload,
  step: "verify" | "deposit",
): Promise<{ plan: UptoSvmPlan } | { rejection: Rejection }> {
  const no = (reason: Rejection["reason"], message: string) => ({ rejection: { reason, message, payer: u.from } });
  if (u.voucherSignature !== undefined)
    return no("invalid_upto_svm_payload_unexpected_voucher", "A voucherSignature belongs to the claim; the payer's authorization carries none.");
  if (step === "verify" && u.type !== undefined)
    return no("invalid_upto_svm_payload_type", "payload.type is stamped by the resource server on settle; verify takes the payer's authorization as signed.");
  const config = channelConfig(p);
  if (typeof config === "string") return no("invalid_upto_svm_payment_requirements", `${config}.`);
  if (config.feePayer !== FACILITATOR_FEE_PAYER.address)
    return no("facilitator_mismatch", `${config.feePayer} is not this facilitator's fee payer; use ${FACILITATOR_FEE_PAYER.address}.`);
  if (u.authorizedSigner !== config.receiverAuthorizer) {
    return no(
      "invalid_upto_svm_payload_receiver_authorizer",
      `The channel's authorized signer is ${u.authorizedSigner}, not the requirements' receiverAuthorizer ${config.receiverAuthorizer}.`,
    );
  }
  if (u.maxAmount !== p.amount)
    return no("invalid_upto_svm_payload_amount_mismatch", `The payer authorized ${u.maxAmount} but the requirements' maximum is ${p.amount}.`);
  if (u.deposit !== u.maxAmount)
    return no("invalid_upto_svm_payload_deposit_not_ceiling", `The deposit ${u.deposit} must be the authorized maximum ${u.maxAmount}.`);
  // The node's current slot (getSlot): the chain head, which automine may have moved past the clock's slot.
  const slot = BigInt(headBlock(ctx.store, p.network.ledger, ctx.clock.now()));
  const recent = p.extra.recentSlot === undefined || p.extra.recentSlot === null ? slot : u64(String(p.extra.recentSlot));
  const [openSlot, salt] = [u64(u.openSlot), u64(u.nonce)];
  if (openSlot === undefined || salt === undefined || recent === undefined) {
    return no("invalid_upto_svm_payload_channel_seed", "payload.openSlot, payload.nonce and extra.recentSlot must be u64 integers.");
  }
  const now = Math.floor(ctx.clock.now() / 1000);
  if (now < u.validAfter) return no("invalid_upto_svm_payload_not_yet_active", `validAfter ${u.validAfter} is after the sandbox's now (${now}).`);
  if (u.expiresAt === 0 || now >= u.expiresAt)
    return no("invalid_upto_svm_payload_expired", `expiresAt ${u.expiresAt} is not after the sandbox's now (${now}): the authorization has expired.`);
  if (p.maxTimeoutSeconds > MAX_CHANNEL_LIFETIME_SECONDS || u.expiresAt > now + MAX_CHANNEL_LIFETIME_SECONDS + EXPIRES_AT_SKEW_SECONDS) {
    return no(
      "invalid_upto_svm_payload_channel_lifetime_exceeded",
      `A channel stays claimable for at most ${MAX_CHANNEL_LIFETIME_SECONDS} s (maxTimeoutSeconds ${p.maxTimeoutSeconds}, expiresAt ${u.expiresAt}).`,
    );
  }
  if (u.expiresAt > now + p.maxTimeoutSeconds + EXPIRES_AT_SKEW_SECONDS) {
    return no("invalid_upto_svm_payload_expires_at_mismatch", `expiresAt ${u.expiresAt} is later than now + maxTimeoutSeconds (${now + p.maxTimeoutSeconds}).`);
  }
  if (!isAddress(u.from)) return no("invalid_upto_svm_payload_payer_mismatch", `payload.from ${u.from} is not a Solana address.`);
  let tx: Transaction;
  let opened: Awaited<ReturnType<typeof checkOpenTransaction>>;
  try {
    tx = decodeSolanaTransaction(u.openTransaction);
    opened = await checkOpenTransaction(tx, {
      from: u.from,
      feePayer: config.feePayer,
      mint: p.asset,
      authorizedSigner: config.receiverAuthorizer,
      tokenProgram: config.tokenProgram,
      deposit: u.maxAmount,
      withdrawDelay: config.withdrawDelay,
      openSlot,
      recentSlot: recent,
      payTo: p.payTo,
      memo: typeof p.extra.memo === "string" && p.extra.memo !== "" ? p.extra.memo : undefined,
    });
  } catch (error) {
    const detail = isOpenTransactionError(error) ? error.message : "it is not a base64 Solana transaction";
    return no("invalid_upto_svm_payload_open_transaction", `The open transaction is refused: ${detail}.`);
  }
  if (opened.channelId !== u.channelId)
    return no("invalid_upto_svm_payload_channel_id", `The open transaction opens ${opened.channelId}, not payload.channelId ${u.channelId}.`);
  if (opened.salt !== salt) return no("invalid_upto_svm_payload_nonce", `The open transaction's salt is ${opened.salt}, not payload.nonce ${u.nonce}.`);
  const existing = paymentChannels(ctx.store).get(`${p.network.ledger}|${u.channelId}`);
  if (existing) return no("invalid_upto_svm_channel_already_open", `Channel ${u.channelId} was already opened by ${existing.openedBy} (${existing.status}).`);
  const held = balanceOf(ctx.store, p.network.ledger, p.asset, u.from);
  if (step === "verify") {
    if (held < u.deposit) return no("insufficient_funds", `${u.from} holds ${held} of mint ${p.asset} (smallest unit); the channel escrows ${u.deposit}.`);
    return { plan: { step: "verify", payer: u.from } };
  }
  // What simulating the open would fail on.
  if (!isRecentBlockhash(ctx, p.network.ledger, opened.blockhash)) {
    return no(
      "invalid_upto_svm_settlement_simulation",
      `Simulation failed: blockhash ${opened.blockhash} is not one of the last ${BLOCKHASH_VALID_SLOTS} slots of ${p.network.ledger}.`,
    );
  }
  if (held < u.deposit)
    return no("invalid_upto_svm_settlement_simulation", `Simulation failed: ${u.from} holds ${held} of mint ${p.asset}; the channel escrows ${u.deposit}.`);
  const channel = {
    id: `${p.network.ledger}|${u.channelId}`,
    channelId: u.channelId,
    network: p.network.ledger,
    payer: u.from,
    payTo: p.payTo,
    mint: p.asset,
    deposit: u.deposit.toString(),
    authorizedSigner: u.authorizedSigner,
    expiresAt: u.expiresAt,
    status: "open" as const,
  };
  return { plan: { step: "deposit", payer: u.from, tx, channel } };
}

/** The claim: a voucher for the charge against the open channel. */
async function checkClaim(ctx: HandlerContext, p: Payment, u: UptoSvmPayload): Promise<{ plan: UptoSvmPlan } | { rejection: Rejection }> {
  const no = (reason: Rejection["reason"], message: string) => ({ rejection: { reason, message, payer: u.from } });
  const delegated = u.voucherSignature === undefined || u.voucherSignature === "";
  const ours = facilitatorReceiverAuthorizer();
  if (delegated && (p.extra.receiverAuthorizer !== ours || u.authorizedSigner !== ours)) {
    return no(
      "invalid_upto_svm_authorizer_address_mismatch",
      `Without a voucherSignature the facilitator signs the voucher, so the receiver authorizer must be its own (${ours}).`,
    );
  }
  const config = channelConfig(p);
  if (typeof config === "string") return no("invalid_upto_svm_payment_requirements", `${config}.`);
  if (u.authorizedSigner !== config.receiverAuthorizer) {
    return no(
      "invalid_upto_svm_payload_receiver_authorizer",
      `The channel's authorized signer is ${u.authorizedSigner}, not the requirements' receiverAuthorizer ${config.receiverAuthorizer}.`,
    );
  }
  if (config.feePayer !== FACILITATOR_FEE_PAYER.address)
    return no("facilitator_mismatch", `${config.feePayer} is not this facilitator's fee payer; use ${FACILITATOR_FEE_PAYER.address}.`);
  const now = Math.floor(ctx.clock.now() / 1000);
  if (now < u.validAfter) return no("invalid_upto_svm_payload_not_yet_active", `validAfter ${u.validAfter} is after the sandbox's now (${now}).`);
  if (u.expiresAt === 0 || now >= u.expiresAt)
    return no("invalid_upto_svm_payload_expired", `expiresAt ${u.expiresAt} is not after the sandbox's now (${now}): the channel can no longer be claimed.`);
  if (!isAddress(u.channelId)) return no("invalid_upto_svm_channel_state", `payload.channelId ${u.channelId} is not a Solana address.`);
  const message = voucherMessage(u.channelId, p.amount, BigInt(u.expiresAt));
  if (!delegated) {
    let valid = false;
    try {
      valid = ed25519.verify(fromBase58(u.voucherSignature!), message, fromBase58(u.authorizedSigner));
    } catch {
      valid = false;
    }
    if (!valid)
      return no(
        "invalid_upto_svm_payload_voucher_signature",
        `voucherSignature is not ${u.authorizedSigner}'s signature over the voucher for ${p.amount} on channel ${u.channelId}.`,
      );
  }
  const channel = paymentChannels(ctx.store).get(`${p.network.ledger}|${u.channelId}`);
  const mismatch = !channel
    ? "is not open on this project's ledger (settle the deposit first)"
    : channel.status !== "open"
      ? `was already claimed by ${channel.claimedBy}`
      : channel.payer !== u.from || channel.mint !== p.asset || channel.deposit !== u.maxAmount.toString() || channel.authorizedSigner !== u.authorizedSigner
        ? "was opened for another payer, mint, deposit or authorized signer"
        : channel.payTo !== p.payTo
          ? `distributes to ${channel.payTo}, not to payTo ${p.payTo}`
          : undefined;
  if (mismatch || !channel) return no("invalid_upto_svm_channel_state", `Channel ${u.channelId} ${mismatch}.`);
  const voucherSignature = delegated ? toBase58(signSolanaBytes(receiverAuthorizer(), message)) : u.voucherSignature!;
  return { plan: { step: "claim", payer: u.from, channel, charge: p.amount, voucherSignature } };
}

/**
 * Executes a deposit or a claim on the ledger; the platform answers once confirmed, so it lands in the current
 * slot. Returns the transaction signature and the amount the answer reports (the deposit, or the charge).
 */
export function settleUptoSvm(ctx: HandlerContext, p: Payment, plan: Exclude<UptoSvmPlan, { step: "verify" }>): { transaction: string; amount: bigint } {
  const ledger = p.network.ledger;
  const now = ctx.clock.now();
  // The platform answers once confirmed, so the slot is already mined.
  const record = (signature: string) =>
    solanaTxs(ctx.store).put(signature, {
      signature,
      network: ledger,
      slot: settlementBlock(ctx.store, ctx.clock, ledger),
      feePayer: FACILITATOR_FEE_PAYER.address,
      status: "success",
      submittedAtMs: now,
    });
  if (plan.step === "deposit") {
    const signed = signSolanaTransaction(plan.tx, FACILITATOR_FEE_PAYER);
    const signature = toBase58(new Uint8Array(signed.signatures[FACILITATOR_FEE_PAYER.address as keyof typeof signed.signatures]!));
    const { channel } = plan;
    setBalance(ctx.store, ledger, channel.mint, channel.payer, balanceOf(ctx.store, ledger, channel.mint, channel.payer) - BigInt(channel.deposit));
    credit(ctx.store, ledger, channel.mint, channel.channelId, BigInt(channel.deposit));
    paymentChannels(ctx.store).put(channel.id, { ...channel, openedBy: signature, openedAtMs: now });
    record(signature);
    return { transaction: signature, amount: BigInt(channel.deposit) };
  }
  const { channel, charge } = plan;
  // The facilitator's settle_and_seal + distribute transaction, signed by its fee payer over the voucher it carries.
  const settleMessage = new Uint8Array([...voucherMessage(channel.channelId, charge, BigInt(channel.expiresAt)), ...fromBase58(plan.voucherSignature)]);
  const signature = toBase58(signSolanaBytes(FACILITATOR_FEE_PAYER, settleMessage));
  const deposit = BigInt(channel.deposit);
  setBalance(ctx.store, ledger, channel.mint, channel.channelId, balanceOf(ctx.store, ledger, channel.mint, channel.channelId) - deposit);
  credit(ctx.store, ledger, channel.mint, channel.payTo, charge);
  credit(ctx.store, ledger, channel.mint, channel.payer, deposit - charge);
  paymentChannels(ctx.store).put(channel.id, { ...channel, status: "claimed", claimedBy: signature, charged: charge.toString() });
  record(signature);
  return { transaction: signature, amount: charge };
}
