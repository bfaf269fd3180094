/**
 * Solana signing: messages (UTF-8 bytes, base-58 signature), transactions
 * (base64 wire format; the account fills its own signature slot), and sends,
 * which sign with the fee payer's key and record the transaction.
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
import { readSolanaTransaction } from "../../crypto/solanaInstructions.js";
import { applySolanaTransaction } from "../../chain/solanaLedger.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { Handler } from "../types.js";
import { API_KEY_WALLET, emitWalletSend, emitWalletSigned } from "../webhooks/walletEvents.js";
import { findSolanaAccount, solanaAccounts } from "./model.js";

export const signSolanaMessage: Handler<"signSolanaMessage"> = (req, ctx) => {
  const record = findSolanaAccount(ctx.store, req.pathParams.address);
  const message = req.body.message;
  enforcePolicies(ctx.store, { operation: "signSolMessage", accountPolicies: record.policies, facts: { kind: "message", message } });
  const signature = signSolanaBytes(record, new TextEncoder().encode(message));
  emitWalletSigned(ctx, "wallet.message.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signature: toBase58(signature) } };
};

export const signSolanaTransaction: Handler<"signSolanaTransaction"> = (req, ctx) => {
  const record = findSolanaAccount(ctx.store, req.pathParams.address);
  const tx = decodeSolanaTransaction(req.body.transaction);
  enforcePolicies(ctx.store, {
    operation: "signSolTransaction",
    accountPolicies: record.policies,
    facts: { kind: "solanaTransaction", tx: readSolanaTransaction(tx) },
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
  enforcePolicies(ctx.store, {
    operation: "sendSolTransaction",
    accountPolicies: payerRecord?.policies ?? [],
    facts: { kind: "solanaTransaction", tx: readSolanaTransaction(tx), network },
  });
  // Every signer the project holds signs; a signature slot for an outside key must already be filled.
  let signed = tx;
  for (const signer of Object.keys(tx.signatures)) {
    const record = solanaAccounts(ctx.store).get(signer);
    if (record) signed = signWithKey(signed, record);
    else if (!tx.signatures[signer as keyof typeof tx.signatures] || tx.signatures[signer as keyof typeof tx.signatures]!.every((b) => b === 0)) {
      throw apiError("invalid_request", `Signer ${signer} is not an account of this project and its signature is missing.`);
    }
  }
  const first = signed.signatures[payer as keyof typeof signed.signatures]!;
  const signature = toBase58(new Uint8Array(first));
  applySolanaTransaction(ctx.store, ctx.clock, network, signature, payer, Object.keys(signed.signatures).length, readSolanaTransaction(tx));
  // The fee payer's wallet sends it (a payer outside the project is no wallet of the platform's: no events).
  if (payerRecord) emitWalletSend(ctx, { chain: "solana", hash: signature, network, address: payer, actor: API_KEY_WALLET });
  return { status: 200, body: { transactionSignature: signature } };
};
