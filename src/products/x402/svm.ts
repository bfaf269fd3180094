/**
 * The `exact` scheme on Solana: a transaction the payer has partially signed
 * (the facilitator's fee payer signs last), laid out as the protocol fixes
 * it — compute unit limit, compute unit price, one SPL `transferChecked` to
 * the payTo's associated token account, then optional Memo or Lighthouse
 * instructions. Verified against the ledger (balance, recent blockhash,
 * duplicates); settled by adding the fee payer's signature and sending the
 * transaction to the chain, whose runtime executes it.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getCompiledTransactionMessageDecoder, type Transaction } from "@solana/kit";
import { balanceOf, blockNumberAt } from "../../chain/index.js";
import {
  blockhashAt,
  decodeMint,
  openAssociatedTokenAccount,
  readSolanaTransactionOn,
  refusalAsApiError,
  SolanaTransactionRefused,
  submitSolanaTransaction,
  viewSolanaAccount,
} from "../../chain/solana/index.js";
import { decodeSolanaTransaction, fromBase58, signSolanaTransaction, toBase58 } from "../../crypto/solana.js";
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../../crypto/solanaInstructions.js";
import type { HandlerContext } from "../../wallet/types.js";
import { settlements } from "./model.js";
import { FACILITATOR_FEE_PAYER } from "./networks.js";
import type { Payment, Rejection } from "./payment.js";
import { associatedTokenAddress, COMPUTE_BUDGET_PROGRAM, fundFacilitatorFeePayer, LIGHTHOUSE_PROGRAM, MEMO_PROGRAM } from "./svmAccounts.js";

/** Highest compute unit price a payment may set (micro-lamports), as facilitators cap it. */
const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
/** A blockhash is usable for 150 slots (about a minute at 400 ms). */
const BLOCKHASH_VALID_SLOTS = 150;

export interface SvmPlan {
  payer: string;
  mint: string;
  amount: bigint;
  tx: Transaction;
  messageHash: string;
}

const UNKNOWN_INSTRUCTION: Rejection["reason"][] = [
  "invalid_exact_solana_payload_unknown_fourth_instruction",
  "invalid_exact_solana_payload_unknown_fifth_instruction",
  "invalid_exact_solana_payload_unknown_sixth_instruction",
];

const messageHashOf = (tx: Transaction) => createHash("sha256").update(new Uint8Array(tx.messageBytes)).digest("hex");

/** Whether `blockhash` is one the sandbox's node handed out in the last slots. */
function isRecentBlockhash(ctx: HandlerContext, network: string, blockhash: string): boolean {
  const slot = blockNumberAt(network, ctx.clock.now());
  const wanted = Buffer.from(fromBase58(blockhash));
  for (let s = slot; s >= Math.max(0, slot - BLOCKHASH_VALID_SLOTS); s--) if (blockhashAt(network, s).equals(wanted)) return true;
  return false;
}

/** Checks an exact Solana payment against its requirements and the ledger. */
export async function verifyExactSvm(ctx: HandlerContext, p: Payment): Promise<{ plan: SvmPlan } | { rejection: Rejection }> {
  const no = (reason: Rejection["reason"], message: string, payer?: string) => ({ rejection: { reason, message, payer } });
  const feePayer = p.extra.feePayer;
  if (typeof feePayer !== "string" || feePayer === "") {
    return no(
      "invalid_exact_solana_payload_missing_fee_payer",
      "requirements.extra.feePayer must name the facilitator's fee payer (see GET /v2/x402/supported).",
    );
  }
  if (feePayer !== FACILITATOR_FEE_PAYER.address) {
    return no(
      "invalid_exact_solana_fee_payer_not_managed_by_facilitator",
      `${feePayer} is not this facilitator's fee payer; use ${FACILITATOR_FEE_PAYER.address}.`,
    );
  }
  if (typeof p.payload.transaction !== "string")
    return no("invalid_payload", `An exact payment on ${p.networkName} carries {transaction}; this payload does not.`);
  let tx: Transaction;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
  try {
    tx = decodeSolanaTransaction(p.payload.transaction);
    message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  } catch {
    return no("invalid_exact_solana_payload_transaction_could_not_be_decoded", "payload.transaction is not a base64 Solana transaction (legacy or v0).");
  }
  const accounts = message.staticAccounts.map(String);
  if (accounts[0] !== feePayer) return no("invalid_exact_solana_fee_payer_mismatch", `The transaction's fee payer is ${accounts[0]}, not ${feePayer}.`);
  if ("addressTableLookups" in message && (message.addressTableLookups?.length ?? 0) > 0) {
    return no("invalid_exact_solana_payload_transaction", "Address lookup tables cannot be resolved offline; list every account in the message.");
  }
  for (const signer of accounts.slice(1, message.header.numSignerAccounts)) {
    const signature = tx.signatures[signer as keyof typeof tx.signatures];
    if (!signature || !ed25519.verify(new Uint8Array(signature), new Uint8Array(tx.messageBytes), fromBase58(signer))) {
      return no(
        "invalid_exact_solana_payload_transaction",
        `The transaction lacks a valid signature of ${signer}; every signer but the fee payer signs before payment.`,
      );
    }
  }
  const ixs = message.instructions.map((ix) => ({
    program: accounts[ix.programAddressIndex] ?? "",
    accounts: (ix.accountIndices ?? []).map((i) => accounts[i] ?? ""),
    data: new Uint8Array(ix.data ?? []),
  }));
  if (ixs.length < 3 || ixs.length > 6) {
    return no(
      "invalid_exact_solana_payload_transaction_instructions_length",
      `The transaction has ${ixs.length} instructions; the exact scheme needs 3 to 6 (compute limit, compute price, transferChecked, then optional memo).`,
    );
  }
  const [limit, price, transfer] = [ixs[0]!, ixs[1]!, ixs[2]!];
  if (limit.program !== COMPUTE_BUDGET_PROGRAM || limit.data[0] !== 2 || limit.data.length !== 5) {
    return no(
      "invalid_exact_solana_payload_transaction_instructions_compute_limit_instruction",
      "The first instruction must be ComputeBudget setComputeUnitLimit.",
    );
  }
  if (price.program !== COMPUTE_BUDGET_PROGRAM || price.data[0] !== 3 || price.data.length !== 9) {
    return no(
      "invalid_exact_solana_payload_transaction_instructions_compute_price_instruction",
      "The second instruction must be ComputeBudget setComputeUnitPrice.",
    );
  }
  const microLamports = Buffer.from(price.data).readBigUInt64LE(1);
  if (microLamports > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return no(
      "invalid_exact_solana_payload_transaction_instructions_compute_price_instruction_too_high",
      `The compute unit price is ${microLamports} micro-lamports; at most ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS}.`,
    );
  }
  const isToken = transfer.program === TOKEN_PROGRAM || transfer.program === TOKEN_2022_PROGRAM;
  if (!isToken || transfer.data[0] !== 12 || transfer.data.length < 10 || transfer.accounts.length < 4) {
    return no("invalid_exact_solana_payload_no_transfer_instruction", "The third instruction must be an SPL Token (or Token-2022) transferChecked.");
  }
  const [source, mint, destination, payer] = transfer.accounts as [string, string, string, string];
  if (payer === FACILITATOR_FEE_PAYER.address) {
    return no(
      "invalid_exact_solana_payload_transaction_fee_payer_transferring_funds",
      "The fee payer may not be the transfer's authority: the facilitator never pays.",
      payer,
    );
  }
  if (mint !== p.asset)
    return no("invalid_exact_solana_payload_mint_mismatch", `The transfer moves mint ${mint} but the requirements ask for ${p.asset}.`, payer);
  if (destination !== (await associatedTokenAddress(p.payTo, mint, transfer.program))) {
    return no(
      "invalid_exact_solana_payload_recipient_mismatch",
      `The transfer goes to ${destination}, not to the associated token account of payTo ${p.payTo}.`,
      payer,
    );
  }
  const amount = Buffer.from(transfer.data).readBigUInt64LE(1);
  if (amount < p.amount)
    return no("invalid_exact_solana_payload_amount_insufficient", `The transfer moves ${amount} but the requirements ask for exactly ${p.amount}.`, payer);
  if (amount > p.amount)
    return no("invalid_exact_svm_payload_transaction_amount_mismatch", `The transfer moves ${amount} but the exact scheme needs exactly ${p.amount}.`, payer);
  const extras = ixs.slice(3);
  const unknown = extras.findIndex((ix) => ix.program !== MEMO_PROGRAM && ix.program !== LIGHTHOUSE_PROGRAM);
  if (unknown >= 0)
    return no(
      UNKNOWN_INSTRUCTION[unknown]!,
      `Instruction ${unknown + 4} calls ${extras[unknown]!.program}; only Memo and Lighthouse may follow the transfer.`,
      payer,
    );
  if (typeof p.extra.memo === "string" && p.extra.memo !== "") {
    const memos = extras.filter((ix) => ix.program === MEMO_PROGRAM);
    if (memos.length !== 1)
      return no(
        "invalid_exact_solana_payload_memo_count",
        `The requirements ask for memo "${p.extra.memo}": the transaction needs exactly one memo, it has ${memos.length}.`,
        payer,
      );
    const memo = Buffer.from(memos[0]!.data).toString("utf8");
    if (memo !== p.extra.memo)
      return no("invalid_exact_solana_payload_memo_mismatch", `The memo is "${memo}" but the requirements ask for "${p.extra.memo}".`, payer);
  }
  const messageHash = messageHashOf(tx);
  const earlier = settlements(ctx.store).find((s) => s.messageHash === messageHash);
  if (earlier) return no("duplicate_settlement", `This transaction was already settled as ${earlier.id}.`, payer);
  if (source !== (await associatedTokenAddress(payer, mint, transfer.program))) {
    return no(
      "invalid_exact_solana_transaction_simulation_failed",
      `Simulation failed: the source ${source} is not the associated token account of the authority ${payer}.`,
      payer,
    );
  }
  if (!isRecentBlockhash(ctx, p.network.ledger, String(message.lifetimeToken))) {
    return no(
      "invalid_exact_solana_transaction_simulation_failed",
      `Simulation failed: blockhash ${String(message.lifetimeToken)} is not one of the last ${BLOCKHASH_VALID_SLOTS} slots of ${p.network.ledger} (get a fresh one from the node).`,
      payer,
    );
  }
  // What executing the transfer would fail on besides the balance (settle runs it in the runtime).
  const mintAccount = viewSolanaAccount(ctx.store, p.network.ledger, mint);
  if (!mintAccount || mintAccount.owner !== transfer.program) {
    return no(
      "invalid_exact_solana_transaction_simulation_failed",
      `Simulation failed: ${mint} is not a mint of ${transfer.program} on ${p.network.ledger} (IncorrectProgramId).`,
      payer,
    );
  }
  const decimals = decodeMint(Buffer.from(mintAccount.data, "base64")).decimals;
  if (transfer.data[9] !== decimals) {
    return no(
      "invalid_exact_solana_transaction_simulation_failed",
      `Simulation failed: transferChecked names ${transfer.data[9]} decimals but mint ${mint} has ${decimals} (MintDecimalsMismatch).`,
      payer,
    );
  }
  const held = balanceOf(ctx.store, p.network.ledger, mint, payer);
  if (held < amount)
    return no("insufficient_funds", `${payer} holds ${held} of mint ${mint} (smallest unit) on ${p.network.ledger}; the payment needs ${amount}.`, payer);
  return { plan: { payer, mint, amount, tx, messageHash } };
}

/**
 * Co-signs the payer's transaction as fee payer and sends it to the project's chain, where the runtime executes
 * its transferChecked for real (getTransaction then answers it with meta and logs). The payTo's associated token
 * account is opened first when missing. The platform answers once confirmed, so its slot is already mined. A
 * transaction the runtime refuses throws the catalogue error, and the request changes nothing.
 */
export function settleExactSvm(ctx: HandlerContext, p: Payment, plan: SvmPlan): string {
  const signed = signSolanaTransaction(plan.tx, FACILITATOR_FEE_PAYER);
  const ledger = p.network.ledger;
  fundFacilitatorFeePayer(ctx.store, ledger);
  openAssociatedTokenAccount(ctx.store, ledger, p.payTo, plan.mint);
  try {
    const facts = readSolanaTransactionOn(ctx.store, signed, ledger);
    return submitSolanaTransaction(ctx.store, ctx.clock, ledger, signed, facts, { confirmed: true }).signature;
  } catch (error) {
    if (error instanceof SolanaTransactionRefused) throw refusalAsApiError(error);
    throw error;
  }
}

/** The node's current blockhash for `network`, as a client would fetch it. */
export function latestBlockhash(ctx: HandlerContext, network: string): { blockhash: string; lastValidBlockHeight: bigint } {
  const slot = blockNumberAt(network, ctx.clock.now());
  return { blockhash: toBase58(blockhashAt(network, slot)), lastValidBlockHeight: BigInt(slot + 150) };
}
