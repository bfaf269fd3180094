/**
 * A transaction the platform builds itself (an asset send, a faucet payout): a legacy message paid for by
 * `feePayer`, on the network's latest blockhash at `nowMs`, with `instructions`. The runtime executes it like any
 * client's transaction.
 */
import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from "@solana/kit";
import { latestBlockhash } from "../../chain/solana/index.js";

// Account roles as @solana/kit numbers them: 0 read-only, 1 writable, 2 read-only signer, 3 writable signer.
export const READONLY = 0;
export const WRITABLE = 1;
export const WRITABLE_SIGNER = 3;

export function legacyTransaction(
  network: string,
  nowMs: number,
  feePayer: string,
  instructions: Parameters<typeof appendTransactionMessageInstructions>[0],
): Transaction {
  const latest = latestBlockhash(network, nowMs);
  return compileTransaction(
    pipe(
      createTransactionMessage({ version: "legacy" }),
      (m) => setTransactionMessageFeePayer(address(feePayer), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
}
