/**
 * A Solana faucet payout as a real transaction: the sandbox's faucet wallet (one fixed key, topped up as it runs
 * low) sends SOL with a System transfer, or USDC with the recipient's associated token account created
 * idempotently and `transferChecked`, signed and sent through the project's chain like any transaction. So the
 * runtime executes it and clients look it up with getTransaction, as they do a devnet faucet's.
 */
import { createHash } from "node:crypto";
import { address, type Transaction } from "@solana/kit";
import { lamportsOf, setLamports, setTokenBalance, SOL, type SolanaToken, SYSTEM_PROGRAM, tokenBalanceOf } from "../../chain/solana/index.js";
import { type SolanaKey, solanaKeyFromSeed } from "../../crypto/solana.js";
import { platformSendSolana } from "../../wallet/solana-accounts/platformSend.js";
import { legacyTransaction, WRITABLE, WRITABLE_SIGNER } from "../../wallet/solana-accounts/legacyTransaction.js";
import { buildTokenTransfer } from "../../wallet/solana-accounts/tokenTransfer.js";
import type { HandlerContext } from "../../wallet/types.js";

/** The faucet's wallet: a fixed, public sandbox key. */
const SOLANA_FAUCET: SolanaKey = solanaKeyFromSeed(createHash("sha256").update("cdp-sandbox:solana-faucet").digest());
/** What the wallet is topped up to when it falls under half: 1,000 SOL, and 1,000 payouts of a token. */
const SOL_FLOAT = 1_000_000_000_000n;
const PAYOUTS_FLOAT = 1000n;

function solTransfer(network: string, nowMs: number, to: string, lamports: bigint): Transaction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // SystemInstruction::Transfer
  view.setBigUint64(4, lamports, true);
  const transfer = {
    programAddress: address(SYSTEM_PROGRAM),
    accounts: [
      { address: address(SOLANA_FAUCET.address), role: WRITABLE_SIGNER },
      { address: address(to), role: WRITABLE },
    ],
    data,
  } as const;
  return legacyTransaction(network, nowMs, SOLANA_FAUCET.address, [transfer]);
}

/**
 * Pays `amount` of `asset` (SOL in lamports, or a token's smallest unit) to `to` on `network`; answers the
 * transaction's signature, or throws the catalogue error of a transaction the runtime refuses (nothing changes).
 */
export function payOutOnSolana(ctx: HandlerContext, network: string, asset: SolanaToken, to: string, amount: bigint): string {
  const { store, clock } = ctx;
  const from = SOLANA_FAUCET.address;
  if (lamportsOf(store, network, from) < SOL_FLOAT / 2n) setLamports(store, network, from, SOL_FLOAT);
  let tx: Transaction;
  if (asset === SOL) {
    tx = solTransfer(network, clock.now(), to, amount);
  } else {
    const float = amount * PAYOUTS_FLOAT;
    if (tokenBalanceOf(store, network, from, asset.mint) < float / 2n) setTokenBalance(store, network, from, asset.mint, float);
    tx = buildTokenTransfer({ network, nowMs: clock.now(), owner: from, to, mint: asset.mint, decimals: asset.decimals, amount, createRecipientAta: true });
  }
  // The platform holds the faucet's key, so it picks a blockhash that makes a repeated payout a new transaction.
  return platformSendSolana({ store, clock, network, tx, keyOf: (signer) => (signer === from ? SOLANA_FAUCET : undefined) });
}
