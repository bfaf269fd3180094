/**
 * The transaction methods of the Solana node: sendTransaction (every signature checked, then the chain's
 * preflight: a refusal is error -32002 with the runtime's error, logs and units, as the real node reports it),
 * simulateTransaction, and the history: getSignatureStatuses, getTransaction (with logs and meta),
 * getSignaturesForAddress.
 */
import { getBase58Encoder, type Transaction } from "@solana/kit";
import { blockTimestampOf } from "../../chain/blocks.js";
import { solanaTxs, type SolanaLedgerTx } from "../../chain/solana/ledger.js";
import { readSolanaTransactionOn } from "../../chain/solana/lookupTables.js";
import { signaturesFor } from "../../chain/solana/signatures.js";
import { simulateSolanaTransaction, SolanaTransactionRefused, submitSolanaTransaction } from "../../chain/solana/submit.js";
import { compiledMessageOf, decodeSolanaTransaction, fromBase58, MAX_TRANSACTION_BYTES, toBase58, verifySolanaSignature } from "../../crypto/solana.js";
import { ApiError } from "../../errors/catalogue.js";
import { RpcError } from "../jsonRpc.js";
import { checkAddress, uiTokenAmount } from "./accounts.js";
import { contextOf, slotOf, type SolanaNodeContext } from "./context.js";
import { latestBlockhash } from "../../chain/solana/blockhashes.js";

type SendOptions =
  | { encoding?: string; skipPreflight?: boolean; sigVerify?: boolean; replaceRecentBlockhash?: boolean; innerInstructions?: boolean }
  | undefined;

/** The base58 length of the largest transaction, as the Solana RPC bounds it. */
const MAX_BASE58_TRANSACTION = 1_683;

function readWire(params: unknown[]): [Transaction, SendOptions] {
  const [wire, options] = params as [unknown, SendOptions];
  if (typeof wire !== "string") throw new RpcError(-32602, "Invalid params: expected a serialized transaction string.");
  let base64 = wire;
  try {
    if (options?.encoding === "base58") {
      // Base58 decodes in quadratic time: a string longer than the largest transaction's is refused unread, as the
      // Solana RPC refuses it (its bound: 1,683 characters for 1,232 bytes).
      if (wire.length > MAX_BASE58_TRANSACTION) {
        throw new Error(`base58 encoded transaction too large: ${wire.length} characters (max: ${MAX_BASE58_TRANSACTION} for ${MAX_TRANSACTION_BYTES} bytes)`);
      }
      base64 = Buffer.from(getBase58Encoder().encode(wire)).toString("base64");
    }
    return [decodeSolanaTransaction(base64), options];
  } catch (error) {
    throw new RpcError(-32602, `failed to deserialize transaction: ${(error as Error).message}`);
  }
}

function factsOf(ctx: SolanaNodeContext, tx: Transaction) {
  try {
    return readSolanaTransactionOn(ctx.store, tx, ctx.network);
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32602, `invalid transaction: ${error.message}`, undefined, { fromState: true });
    throw error;
  }
}

const refusedData = (refused: SolanaTransactionRefused) => ({
  err: refused.err,
  logs: refused.logs,
  accounts: null,
  unitsConsumed: refused.unitsConsumed,
  returnData: null,
});

export function sendTransaction(params: unknown[], ctx: SolanaNodeContext) {
  const [tx, options] = readWire(params);
  for (const [signer, signature] of Object.entries(tx.signatures)) {
    const ok = signature && verifySolanaSignature(new Uint8Array(signature), new Uint8Array(tx.messageBytes), fromBase58(signer));
    if (!ok) throw new RpcError(-32003, `Transaction signature verification failure`);
  }
  try {
    return submitSolanaTransaction(ctx.store, ctx.clock, ctx.network, tx, factsOf(ctx, tx), { skipPreflight: options?.skipPreflight === true }).signature;
  } catch (error) {
    if (error instanceof SolanaTransactionRefused) throw new RpcError(-32002, `Transaction simulation failed: ${error.message}`, refusedData(error));
    if (error instanceof ApiError) throw new RpcError(-32002, `Transaction simulation failed: ${error.message}`);
    throw error;
  }
}

export function simulateTransaction(params: unknown[], ctx: SolanaNodeContext) {
  const [tx, options] = readWire(params);
  const run = simulateSolanaTransaction(ctx.store, ctx.clock, ctx.network, tx, factsOf(ctx, tx));
  if (!run) throw new RpcError(-32601, "simulateTransaction needs the Solana runtime, which is not available on this platform.");
  const replacement = options?.replaceRecentBlockhash === true ? latestBlockhash(ctx.network, ctx.clock.now()) : undefined;
  return {
    context: contextOf(ctx),
    value: {
      err: run.err,
      logs: run.logs,
      accounts: null,
      unitsConsumed: run.unitsConsumed,
      returnData: null,
      // The node lists them only when asked, with the index of the instruction that made them.
      innerInstructions: options?.innerInstructions === true ? run.innerInstructions : null,
      ...(replacement ? { replacementBlockhash: { blockhash: replacement.blockhash, lastValidBlockHeight: replacement.lastValidBlockHeight } } : {}),
    },
  };
}

const statusOf = (tx: SolanaLedgerTx) => tx.execution?.err ?? (tx.status === "failed" ? "TransactionFailed" : null);

export function getSignatureStatuses(params: unknown[], ctx: SolanaNodeContext) {
  const slot = slotOf(ctx);
  const signatures = Array.isArray(params[0]) ? (params[0] as unknown[]) : [];
  if (signatures.length > 256) throw new RpcError(-32602, "Invalid params: too many signatures (at most 256).");
  return {
    context: { slot },
    value: signatures.map((sig) => {
      const tx = typeof sig === "string" ? solanaTxs(ctx.store).get(sig) : undefined;
      if (!tx || tx.network !== ctx.network) return null;
      const done = tx.slot <= slot;
      const err = statusOf(tx);
      return {
        slot: tx.slot,
        confirmations: done ? null : 0,
        err,
        confirmationStatus: done ? "finalized" : "processed",
        status: err === null ? { Ok: null } : { Err: err },
      };
    }),
  };
}

/** A compiled message in the RPC's `json` encoding. */
function messageJson(tx: Transaction) {
  const m = compiledMessageOf(tx);
  return {
    accountKeys: m.staticAccounts.map(String),
    header: {
      numRequiredSignatures: m.header.numSignerAccounts,
      numReadonlySignedAccounts: m.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts,
    },
    recentBlockhash: String(m.lifetimeToken),
    instructions: (m.instructions ?? []).map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: [...(ix.accountIndices ?? [])],
      data: toBase58(new Uint8Array(ix.data ?? new Uint8Array())),
      stackHeight: null,
    })),
    ...("addressTableLookups" in m && m.addressTableLookups
      ? {
          addressTableLookups: m.addressTableLookups.map((l) => ({
            accountKey: String(l.lookupTableAddress),
            writableIndexes: l.writableIndexes,
            readonlyIndexes: l.readonlyIndexes,
          })),
        }
      : {}),
  };
}

export function getTransaction(params: unknown[], ctx: SolanaNodeContext) {
  const signature = params[0];
  if (typeof signature !== "string") throw new RpcError(-32602, "Invalid params: expected a transaction signature.");
  const options = (typeof params[1] === "string" ? { encoding: params[1] } : (params[1] ?? {})) as {
    encoding?: string;
    maxSupportedTransactionVersion?: number;
  };
  const record = solanaTxs(ctx.store).get(signature);
  if (!record || record.network !== ctx.network || record.slot > slotOf(ctx)) return null;
  const exec = record.execution;
  if (!exec) return null; // a payout the platform recorded: no transaction of its own to show
  const tx = decodeSolanaTransaction(exec.wire);
  const version = tx.messageBytes[0]! & 0x80 ? tx.messageBytes[0]! & 0x7f : "legacy";
  if (version !== "legacy" && options.maxSupportedTransactionVersion === undefined) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const encoding = options.encoding ?? "json";
  const signatures = Object.values(tx.signatures).map((s) => toBase58(new Uint8Array(s ?? new Uint8Array(64))));
  const tokenRow = (b: NonNullable<typeof exec>["preTokenBalances"][number]) => ({
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: b.programId,
    uiTokenAmount: uiTokenAmount(BigInt(b.amount), b.decimals),
  });
  return {
    slot: record.slot,
    blockTime: Math.floor(blockTimestampOf(ctx.network, record.slot) / 1000),
    version,
    transaction: encoding === "base64" ? [exec.wire, "base64"] : { signatures, message: messageJson(tx) },
    meta: {
      err: exec.err,
      status: exec.err === null ? { Ok: null } : { Err: exec.err },
      fee: Number(exec.fee),
      preBalances: exec.preBalances.map(BigInt),
      postBalances: exec.postBalances.map(BigInt),
      innerInstructions: exec.innerInstructions ?? [],
      logMessages: exec.logs,
      preTokenBalances: exec.preTokenBalances.map(tokenRow),
      postTokenBalances: exec.postTokenBalances.map(tokenRow),
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: exec.unitsConsumed,
    },
  };
}

export function getSignaturesForAddress(params: unknown[], ctx: SolanaNodeContext) {
  const address = checkAddress(params[0]);
  const options = (params[1] ?? {}) as { limit?: unknown; before?: unknown; until?: unknown };
  const limit = options.limit === undefined ? 1000 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, "Invalid params: limit must be between 1 and 1000.");
  const list: string[] = [];
  let started = typeof options.before !== "string";
  for (const signature of signaturesFor(ctx.store, ctx.network, address)) {
    if (!started) {
      started = signature === options.before;
      continue;
    }
    if (signature === options.until || list.length === limit) break;
    list.push(signature);
  }
  const head = slotOf(ctx);
  return list.flatMap((signature) => {
    const tx = solanaTxs(ctx.store).get(signature);
    if (!tx) return [];
    return [
      {
        signature,
        slot: tx.slot,
        err: statusOf(tx),
        memo: null,
        blockTime: Math.floor(blockTimestampOf(ctx.network, tx.slot) / 1000),
        confirmationStatus: tx.slot <= head ? "finalized" : "processed",
      },
    ];
  });
}
