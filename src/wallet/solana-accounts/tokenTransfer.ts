/**
 * The SPL transfer the platform builds when asked to send an asset (not a transaction): the recipient's
 * associated token account created if missing (idempotently), then `transferChecked` from the sender's, on a
 * recent blockhash. The runtime executes it like any client's transaction.
 */
import { address, type Transaction } from "@solana/kit";
import { ASSOCIATED_TOKEN_PROGRAM, associatedTokenAddress, SYSTEM_PROGRAM, TOKEN_PROGRAM } from "../../chain/solana/index.js";
import { legacyTransaction, READONLY, WRITABLE, WRITABLE_SIGNER } from "./legacyTransaction.js";

export interface TokenTransferInput {
  network: string;
  nowMs: number;
  owner: string;
  to: string;
  mint: string;
  decimals: number;
  amount: bigint;
  /** Create the recipient's associated token account when it does not exist (the payer, `owner`, pays its rent). */
  createRecipientAta: boolean;
}

export function buildTokenTransfer(input: TokenTransferInput): Transaction {
  const from = associatedTokenAddress(input.owner, input.mint);
  const toAta = associatedTokenAddress(input.to, input.mint);
  const data = new Uint8Array(10);
  data[0] = 12; // TransferChecked
  new DataView(data.buffer).setBigUint64(1, input.amount, true);
  data[9] = input.decimals;
  const transfer = {
    programAddress: address(TOKEN_PROGRAM),
    accounts: [
      { address: address(from), role: WRITABLE },
      { address: address(input.mint), role: READONLY },
      { address: address(toAta), role: WRITABLE },
      { address: address(input.owner), role: WRITABLE_SIGNER },
    ],
    data,
  } as const;
  const createAta = {
    programAddress: address(ASSOCIATED_TOKEN_PROGRAM),
    accounts: [
      { address: address(input.owner), role: WRITABLE_SIGNER },
      { address: address(toAta), role: WRITABLE },
      { address: address(input.to), role: READONLY },
      { address: address(input.mint), role: READONLY },
      { address: address(SYSTEM_PROGRAM), role: READONLY },
      { address: address(TOKEN_PROGRAM), role: READONLY },
    ],
    data: new Uint8Array([1]), // CreateIdempotent
  } as const;
  return legacyTransaction(input.network, input.nowMs, input.owner, input.createRecipientAta ? [createAta, transfer] : [transfer]);
}
