/**
 * Sending a signed Solana transaction to the project's chain: refused when already processed or when its
 * blockhash is not recent (as a cluster refuses them), then executed by the runtime against the project's
 * accounts. A transaction whose instructions fail is refused with the runtime's error (the node's preflight),
 * or, with `skipPreflight`, lands failed and pays its fee, as on a cluster.
 */
import type { Transaction } from "@solana/kit";
import type { Clock } from "../../clock.js";
import { compiledMessageOf, solanaWireBytes, toBase58 } from "../../crypto/solana.js";
import type { SolanaTransactionFacts } from "../../crypto/solanaInstructions.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { inclusionBlock, settlementBlock } from "../mining.js";
import { decodeMint, ensureMint, readSolanaAccount, type SolanaAccountState, tokenAccountOwner, writeSolanaAccount } from "./accounts.js";
import { recentBlockhashSlot } from "./blockhashes.js";
import { applySolanaTransaction, LAMPORTS_PER_SIGNATURE, type SolanaLedgerTx, type SolanaTokenBalance, solanaTxs } from "./ledger.js";
import { indexSignature } from "./signatures.js";
import { type SolanaExecution, solanaRuntime } from "./runtime.js";
import { solanaTxErrorMessage, type SolanaTxError } from "./runtimeErrors.js";
import { SOL, solanaTokenByMint } from "./tokens.js";

const ADDRESS_LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111";

/** A transaction the chain refused: nothing changed. `err` is the RPC's JSON form of the reason. */
export class SolanaTransactionRefused extends Error {
  constructor(
    readonly err: SolanaTxError,
    readonly logs: string[] = [],
    readonly unitsConsumed = 0,
  ) {
    super(solanaTxErrorMessage(err));
  }
}

/** The platform API's answer for a refused transaction: a lack of funds is insufficient_balance, the rest a 400 naming the runtime's error. */
export function refusalAsApiError(refused: SolanaTransactionRefused): Error {
  const err = refused.err;
  const custom = typeof err === "object" && "InstructionError" in err ? (err.InstructionError as [number, unknown])[1] : undefined;
  const noFunds =
    err === "InsufficientFundsForFee" ||
    err === "AccountNotFound" ||
    (typeof err === "object" && "InsufficientFundsForRent" in err) ||
    custom === "InsufficientFunds" ||
    (typeof custom === "object" && (custom as { Custom?: number }).Custom === 1);
  const detail = `${refused.message} (${JSON.stringify(err)})${refused.logs.length ? `; logs: ${refused.logs.slice(-3).join(" | ")}` : ""}`;
  return noFunds
    ? apiError("insufficient_balance", `The transaction cannot be paid for: ${detail}`)
    : apiError("invalid_request", `The transaction failed: ${detail}`);
}

/** The recent blockhash a transaction's message names. */
export function blockhashOf(tx: Transaction): string {
  return String(compiledMessageOf(tx).lifetimeToken);
}

/**
 * The token balances of the token accounts among `states` (a transaction's accounts, by index, as read before or
 * after it): only the fields the history lists are decoded, and each mint's decimals read once.
 */
function tokenBalances(store: ProjectTx, network: string, states: readonly (SolanaAccountState | undefined)[]): SolanaTokenBalance[] {
  const rows: SolanaTokenBalance[] = [];
  const decimalsOf = new Map<string, number>();
  states.forEach((state, accountIndex) => {
    const owner = state && tokenAccountOwner(state);
    if (!state || !owner) return;
    const data = Buffer.from(state.data, "base64");
    const mint = toBase58(data.subarray(0, 32));
    let decimals = decimalsOf.get(mint);
    if (decimals === undefined) {
      const mintState = states.find((s) => s?.address === mint) ?? readSolanaAccount(store, network, mint);
      decimals = mintState ? decodeMint(Buffer.from(mintState.data, "base64")).decimals : 0;
      decimalsOf.set(mint, decimals);
    }
    rows.push({ accountIndex, mint, owner, programId: state.owner, amount: data.readBigUInt64LE(64).toString(), decimals });
  });
  return rows;
}

export interface SubmitOptions {
  /** Land a failing transaction (fee paid, nothing else changes) instead of refusing it. */
  skipPreflight?: boolean;
  /** The sender answers only once the transaction is confirmed (an x402 settlement): it lands in a slot already mined. */
  confirmed?: boolean;
}

/**
 * Sends a fully signed transaction. `facts` is what solanaLookupTables.readSolanaTransactionOn read from it. Throws
 * SolanaTransactionRefused (the runtime's reasons) or, on the model's path, a catalogue error.
 */
export function submitSolanaTransaction(
  store: ProjectTx,
  clock: Clock,
  network: string,
  tx: Transaction,
  facts: SolanaTransactionFacts,
  options: SubmitOptions = {},
): SolanaLedgerTx {
  const signers = Object.keys(tx.signatures);
  const payer = signers[0];
  if (!payer) throw new SolanaTransactionRefused("MissingSignatureForFee");
  const signature = toBase58(new Uint8Array(tx.signatures[payer as keyof typeof tx.signatures] ?? new Uint8Array(64)));
  if (solanaTxs(store).get(signature)) throw new SolanaTransactionRefused("AlreadyProcessed");
  if (recentBlockhashSlot(network, clock.now(), blockhashOf(tx)) === undefined) throw new SolanaTransactionRefused("BlockhashNotFound");
  const runtime = solanaRuntime();
  // Lookup tables are the model's (chain/solana/lookupTables.ts): a transaction that manages or reads them is applied there.
  const usesTables = facts.instructions.some((ix) => ix.programId === ADDRESS_LOOKUP_TABLE_PROGRAM);
  const loadsFromTables = (tx.messageBytes[0]! & 0x80) !== 0 && facts.accountKeys.length > staticKeyCount(tx);
  if (!runtime || usesTables || loadsFromTables) {
    const record = applySolanaTransaction(store, clock, network, signature, payer, signers.length, facts);
    for (const key of new Set([...facts.accountKeys, "*"])) indexSignature(store, network, key, signature);
    return record;
  }
  // The tokens the sandbox knows have their mint written on first use, so a client's transferChecked finds it.
  for (const key of facts.accountKeys) if (key !== SOL.mint && solanaTokenByMint(network, key)) ensureMint(store, network, key);
  const keys = facts.accountKeys;
  const pre = keys.map((key) => readSolanaAccount(store, network, key));
  const preTokenBalances = tokenBalances(store, network, pre);
  const slot = options.confirmed ? settlementBlock(store, clock, network) : inclusionBlock(store, clock, network);
  const version = tx.messageBytes[0]! & 0x80 ? tx.messageBytes[0]! & 0x7f : "legacy";
  const bytes = solanaWireBytes(tx);
  const wire = Buffer.from(bytes).toString("base64");
  const run = runtime.execute(
    network,
    bytes,
    version,
    keys.map((key, i) => pre[i] ?? key),
    { slot, nowMs: clock.now() },
  );
  const fee = LAMPORTS_PER_SIGNATURE * BigInt(signers.length);
  if (run.err !== null) {
    if (!options.skipPreflight) throw new SolanaTransactionRefused(run.err, run.logs, run.unitsConsumed);
    // Landed failed: only the fee leaves the payer (refused outright when the payer cannot pay it, as on a cluster).
    const payerState = pre[0];
    if (!payerState || BigInt(payerState.lamports) < fee) throw new SolanaTransactionRefused(run.err, run.logs, run.unitsConsumed);
    writeSolanaAccount(store, { ...payerState, lamports: (BigInt(payerState.lamports) - fee).toString() });
  } else {
    for (const account of run.post) writeSolanaAccount(store, account);
  }
  // The accounts as the transaction leaves them: those it wrote back, the others as they were.
  const written = new Map(run.err === null ? run.post.map((account) => [account.address, account]) : []);
  const post = keys.map((key, i) => (run.err === null ? (written.get(key) ?? pre[i]) : readSolanaAccount(store, network, key)));
  // An account the runtime left with no lamports is gone (writeSolanaAccount deleted it).
  const after = post.map((state) => (state && BigInt(state.lamports) === 0n ? undefined : state));
  const record: SolanaLedgerTx = {
    signature,
    network,
    slot,
    feePayer: payer,
    status: run.err === null ? "success" : "failed",
    submittedAtMs: clock.now(),
    execution: {
      wire,
      accountKeys: keys,
      err: run.err,
      logs: run.logs,
      fee: fee.toString(),
      unitsConsumed: run.unitsConsumed,
      innerInstructions: run.innerInstructions,
      preBalances: pre.map((p) => p?.lamports ?? "0"),
      postBalances: after.map((state) => state?.lamports ?? "0"),
      preTokenBalances,
      postTokenBalances: tokenBalances(store, network, after),
    },
  };
  solanaTxs(store).put(signature, record);
  // Every address it names, and "*" (any transaction: logsSubscribe "all").
  for (const key of new Set([...keys, "*"])) indexSignature(store, network, key, signature);
  return record;
}

/**
 * Runs a signed transaction without landing it (simulateTransaction): the runtime's verdict, logs and compute
 * units; undefined where only the model is available. The known mints it names are written as a send would.
 */
export function simulateSolanaTransaction(
  store: ProjectTx,
  clock: Clock,
  network: string,
  tx: Transaction,
  facts: SolanaTransactionFacts,
): SolanaExecution | undefined {
  const runtime = solanaRuntime();
  if (!runtime) return undefined;
  for (const key of facts.accountKeys) if (key !== SOL.mint && solanaTokenByMint(network, key)) ensureMint(store, network, key);
  const version = tx.messageBytes[0]! & 0x80 ? tx.messageBytes[0]! & 0x7f : "legacy";
  const accounts = facts.accountKeys.map((key) => readSolanaAccount(store, network, key) ?? key);
  const wire = solanaWireBytes(tx);
  return runtime.execute(network, wire, version, accounts, { slot: inclusionBlock(store, clock, network), nowMs: clock.now() });
}

/** How many accounts the message lists itself (the rest of facts.accountKeys come from lookup tables). */
function staticKeyCount(tx: Transaction): number {
  return compiledMessageOf(tx).staticAccounts.length;
}
