/**
 * signSolanaX402PaymentWithEndUserAccount: the platform builds the exact
 * scheme's Solana payment for one of the accepted options (compute budget,
 * SPL transferChecked to the payTo's associated token account, a memo) on a
 * fresh blockhash of the sandbox's node, and the end user's Solana key signs
 * it; the facilitator's fee payer signs at settlement. The end user acts with
 * their token, or the developer under a delegation grant.
 */
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { solanaTokenByMint, solanaTokenBySymbol } from "../../chain/solana/index.js";
import type { Schema } from "../../contract/types.js";
import { encodeSolanaTransaction, signSolanaTransaction } from "../../crypto/solana.js";
import { TOKEN_PROGRAM } from "../../crypto/solanaInstructions.js";
import { apiError } from "../../errors/catalogue.js";
import type { Handler } from "../../wallet/types.js";
import { x402Network, type X402Network } from "./networks.js";
import { latestBlockhash } from "./svm.js";
import { associatedTokenAddress, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM } from "./svmAccounts.js";
import { authorizeAccountUse } from "../../wallet/end-users/delegation.js";
import { findEndUser } from "../../wallet/records/endUsers.js";

/** Compute budget the payment asks for: enough for one transferChecked and a memo, at the minimum price. */
const COMPUTE_UNIT_LIMIT = 20_000;
const COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1n;

function u32(value: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}
function u64(value: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return b;
}

/** A payment option read as the protocol version of the paymentRequired it comes from. */
type SelectedOption = { version: 1; option: Schema<"x402V1PaymentRequirements"> } | { version: 2; option: Schema<"x402V2PaymentRequirements"> };

/** The option the end user pays and its network, or the 422 the platform answers for an index it cannot sign. */
function selectedOption(required: Schema<"x402PaymentRequired">, index: number): SelectedOption & { network: X402Network } {
  const option = required.accepts[index];
  if (!option)
    throw apiError("unprocessable_request", `acceptsIndex ${index} is out of range for paymentRequired.accepts (${required.accepts.length} entries).`);
  const network = x402Network(option.network);
  if (network?.family !== "svm")
    throw apiError("unprocessable_request", `The payment option at acceptsIndex ${index} is on ${option.network}; it must be a Solana network accept.`);
  if (option.scheme !== "exact")
    throw apiError(
      "unprocessable_request",
      `The payment option at acceptsIndex ${index} uses the ${option.scheme} scheme; Solana payments are signed for the exact scheme.`,
    );
  // The contract lets options of either version stand in accepts: x402Version alone says how to read them.
  const selected = (required.x402Version === 1 ? { version: 1, option } : { version: 2, option }) as SelectedOption;
  return { ...selected, network };
}

export const signSolanaX402PaymentWithEndUserAccount: Handler<"signSolanaX402PaymentWithEndUserAccount"> = async (req, ctx) => {
  const required = req.body.paymentRequired;
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const selected = selectedOption(required, req.body.acceptsIndex);
  const { option, network } = selected;
  const owner = req.body.address;
  const account = user.solanaAccounts.find((a) => a.address === owner);
  if (!account) throw apiError("not_found", `End user ${user.userId} has no Solana account ${owner}.`);
  authorizeAccountUse(req, ctx, user.userId, owner);
  const mint = option.asset;
  const token = solanaTokenByMint(network.ledger, mint);
  if (!token || token.symbol === "SOL")
    throw apiError(
      "invalid_request",
      `asset ${mint} is not an SPL token of the sandbox's ${network.ledger} ledger (USDC is ${solanaTokenBySymbol(network.ledger, "USDC")?.mint}).`,
    );
  const extra = option.extra ?? {};
  const feePayer = extra.feePayer;
  if (typeof feePayer !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(feePayer)) {
    throw apiError(
      "invalid_request",
      "The payment option names no extra.feePayer: the facilitator's fee payer (GET /v2/x402/supported) must be in the requirements.",
    );
  }
  const payTo = option.payTo;
  const amount = selected.version === 1 ? selected.option.maxAmountRequired : selected.option.amount;
  if (!/^[0-9]+$/.test(amount)) throw apiError("invalid_request", `The payment option's amount must be a whole number of the smallest unit, got "${amount}".`);
  const [source, destination] = [await associatedTokenAddress(owner, mint, TOKEN_PROGRAM), await associatedTokenAddress(payTo, mint, TOKEN_PROGRAM)];
  if (!destination) throw apiError("invalid_request", `payTo ${payTo} is not a Solana address.`);
  // The seller's memo when it asks for one, else a random one so that two payments never share a message.
  const sellerMemo = extra.memo;
  const memo = typeof sellerMemo === "string" && sellerMemo !== "" ? sellerMemo : ctx.random.hex(16);
  const { blockhash, lastValidBlockHeight } = latestBlockhash(ctx, network.ledger);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          { programAddress: address(COMPUTE_BUDGET_PROGRAM), data: new Uint8Array([2, ...u32(COMPUTE_UNIT_LIMIT)]) },
          { programAddress: address(COMPUTE_BUDGET_PROGRAM), data: new Uint8Array([3, ...u64(COMPUTE_UNIT_PRICE_MICROLAMPORTS)]) },
          {
            programAddress: address(TOKEN_PROGRAM),
            accounts: [
              { address: address(source), role: AccountRole.WRITABLE },
              { address: address(mint), role: AccountRole.READONLY },
              { address: address(destination), role: AccountRole.WRITABLE },
              { address: address(owner), role: AccountRole.READONLY_SIGNER },
            ],
            data: new Uint8Array([12, ...u64(BigInt(amount)), token.decimals]),
          },
          { programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(memo) },
        ],
        m,
      ),
  );
  const transaction = encodeSolanaTransaction(signSolanaTransaction(compileTransaction(message), account));
  const paymentPayload: Schema<"x402PaymentPayload"> =
    selected.version === 1
      ? { x402Version: 1, scheme: "exact", network: selected.option.network, payload: { transaction } }
      : {
          x402Version: 2,
          accepted: selected.option,
          payload: { transaction },
          ...(required.resource ? { resource: required.resource } : {}),
          ...(required.extensions ? { extensions: required.extensions } : {}),
        };
  return { status: 200, body: { paymentPayload } };
};
