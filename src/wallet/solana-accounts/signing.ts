/**
 * Solana signing: messages (their UTF-8 bytes, or the bytes of a base64 text with `encoding: base64`;
 * base-58 signature), transactions (base64 wire format; the account fills its own signature slot; the
 * accounts of a v0 message's lookup tables resolved on the named network), and sends, which the platform
 * signs (a sponsor paying the fee with useCdpSponsor, a fresh blockhash when needed: platformSend.ts) and the
 * chain executes.
 */
import {
  decodeSolanaTransaction,
  encodeSolanaTransaction,
  feePayerOf,
  signSolanaBytes,
  signSolanaTransaction as signWithKey,
  toBase58,
} from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { readSolanaTransactionOn } from "../../chain/solana/index.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { Handler } from "../types.js";
import { API_KEY_WALLET, emitWalletSend, emitWalletSigned } from "../events/walletEvents.js";
import { findSolanaAccount, solanaAccounts } from "../records/solanaAccounts.js";
import { platformSendSolana } from "./platformSend.js";

export const signSolanaMessage: Handler<"signSolanaMessage"> = (req, ctx) => {
  const record = findSolanaAccount(ctx.store, req.pathParams.address);
  const { message, encoding } = req.body;
  const bytes = messageBytes(message, encoding);
  enforcePolicies(ctx.store, { operation: "signSolMessage", accountPolicies: record.policies, facts: { kind: "message", message } });
  const signature = signSolanaBytes(record, bytes);
  emitWalletSigned(ctx, "wallet.message.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signature: toBase58(signature) } };
};

export const signSolanaTransaction: Handler<"signSolanaTransaction"> = (req, ctx) => {
  const record = findSolanaAccount(ctx.store, req.pathParams.address);
  const tx = decodeSolanaTransaction(req.body.transaction);
  enforcePolicies(ctx.store, {
    operation: "signSolTransaction",
    accountPolicies: record.policies,
    facts: { kind: "solanaTransaction", tx: readSolanaTransactionOn(ctx.store, tx, req.body.network) },
  });
  const signed = signWithKey(tx, record);
  emitWalletSigned(ctx, "wallet.transaction.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signedTransaction: encodeSolanaTransaction(signed) } };
};

export const sendSolanaTransaction: Handler<"sendSolanaTransaction"> = (req, ctx) => {
  const { network } = req.body;
  const tx = decodeSolanaTransaction(req.body.transaction);
  const payer = feePayerOf(tx);
  if (!payer) throw apiError("malformed_transaction", "The transaction has no signer, so it has no fee payer.");
  const payerRecord = solanaAccounts(ctx.store).get(payer);
  const facts = readSolanaTransactionOn(ctx.store, tx, network);
  enforcePolicies(ctx.store, {
    operation: "sendSolTransaction",
    accountPolicies: payerRecord?.policies ?? [],
    facts: { kind: "solanaTransaction", tx: facts, network },
  });
  const signature = platformSendSolana({
    store: ctx.store,
    clock: ctx.clock,
    network,
    tx,
    keyOf: (signer) => solanaAccounts(ctx.store).get(signer),
    useCdpSponsor: req.body.useCdpSponsor === true,
  });
  // The fee payer's wallet sends it (a payer outside the project is no wallet of the platform's: no events).
  if (payerRecord) emitWalletSend(ctx, { chain: "solana", hash: signature, network, address: payer, actor: API_KEY_WALLET });
  return { status: 200, body: { transactionSignature: signature } };
};

/** RFC 4648 standard base64: the `+` and `/` alphabet, `=` padding where the length needs it. */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes a message stands for: its UTF-8 bytes (the default), or what its base64 text decodes to. */
function messageBytes(message: string, encoding: "utf8" | "base64" | undefined): Uint8Array {
  if (encoding !== "base64") return new TextEncoder().encode(message);
  if (!STANDARD_BASE64.test(message)) {
    throw apiError("invalid_request", "message is not standard base64 (the + and / alphabet, = padding where needed) as encoding base64 requires.");
  }
  return new Uint8Array(Buffer.from(message, "base64"));
}
