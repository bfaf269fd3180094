/**
 * The Solana JSON-RPC methods the node answers at /rpc/v1/{solana|solana-devnet}/{token}, on the project's
 * ledger: method name → function. Transactions must arrive fully signed; every signature is checked.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import { blockNumberAt } from "../../chain/blocks.js";
import { headBlock } from "../../chain/mining.js";
import { balanceOf, holdings } from "../../chain/ledger.js";
import { applySolanaTransaction, blockhashAt, SOLANA_TOKENS, solanaTokenByMint, solanaTxs } from "../../chain/solanaLedger.js";
import type { Clock } from "../../clock.js";
import { decodeSolanaTransaction, toBase58 } from "../../crypto/solana.js";
import { readSolanaTransactionOn } from "../../chain/solanaLookupTables.js";
import { ApiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { RpcError, type RpcMethod } from "../jsonRpc.js";
import { accountInfo } from "./accounts.js";
import { lookupTable } from "../../lookup.js";

export interface SolanaNodeContext {
  network: string;
  store: ProjectTx;
  clock: Clock;
}

export const isSolanaNetwork = (network: string) => network in SOLANA_TOKENS;

/**
 * The clusters' full genesis hashes: clients tell mainnet from devnet by them. CAIP-2 ids (x402's
 * `solana:EtWTRABZ…`) carry only their first 32 characters, which no client accepts as a genesis hash.
 */
const GENESIS: Record<string, string> = lookupTable({
  solana: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
  "solana-devnet": "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
});

/** The chain's head slot (the clock's, or a newer one automine made), and the `context` every value answer carries. */
const slotOf = (ctx: SolanaNodeContext) => headBlock(ctx.store, ctx.network, ctx.clock.now());
const contextOf = (ctx: SolanaNodeContext) => ({ slot: slotOf(ctx) });

const getHealth = () => "ok";

const getGenesisHash = (_params: unknown[], ctx: SolanaNodeContext) => GENESIS[ctx.network];

const getSlot = (_params: unknown[], ctx: SolanaNodeContext) => slotOf(ctx);

const getBalance = (params: unknown[], ctx: SolanaNodeContext) => ({
  context: contextOf(ctx),
  value: balanceOf(ctx.store, ctx.network, "native", String(params[0])),
});

const getAccountInfo = (params: unknown[], ctx: SolanaNodeContext) => ({
  context: contextOf(ctx),
  value: accountInfo(ctx.store, ctx.network, String(params[0]), (params[1] as { encoding?: string } | undefined)?.encoding),
});

/**
 * The blockhash of the clock's slot: automine may have mined newer slots, but the sandbox's verifiers (the
 * x402 facilitator) take the slots of the clock as the recent ones, so this one is accepted everywhere.
 */
function getLatestBlockhash(_params: unknown[], ctx: SolanaNodeContext) {
  const slot = blockNumberAt(ctx.network, ctx.clock.now());
  return {
    context: { slot: slotOf(ctx) },
    value: { blockhash: toBase58(blockhashAt(ctx.network, slot)), lastValidBlockHeight: slot + 150 },
  };
}

function getSignatureStatuses(params: unknown[], ctx: SolanaNodeContext) {
  const slot = slotOf(ctx);
  const signatures = (params[0] ?? []) as string[];
  return {
    context: { slot },
    value: signatures.map((sig) => {
      const tx = solanaTxs(ctx.store).get(sig);
      if (!tx || tx.network !== ctx.network) return null;
      const done = tx.slot <= slot;
      return { slot: tx.slot, confirmations: done ? null : 0, err: null, confirmationStatus: done ? "finalized" : "processed", status: { Ok: null } };
    }),
  };
}

/** Token balances are kept per owning wallet; the wallet's first token holding answers here. */
function getTokenAccountBalance(params: unknown[], ctx: SolanaNodeContext) {
  const held = holdings(ctx.store, ctx.network, String(params[0])).find(([asset]) => asset !== "native");
  if (!held) throw new RpcError(-32602, "Invalid param: could not find account");
  const token = solanaTokenByMint(ctx.network, held[0]);
  const decimals = token?.decimals ?? 0;
  const amount = held[1];
  const ui = Number(amount) / 10 ** decimals;
  return { context: contextOf(ctx), value: { amount: amount.toString(), decimals, uiAmount: ui, uiAmountString: String(ui) } };
}

function sendTransaction(params: unknown[], ctx: SolanaNodeContext) {
  const [wire, options] = params as [string, { encoding?: string } | undefined];
  const base64 = options?.encoding === "base58" ? Buffer.from(getBase58Encoder().encode(wire)).toString("base64") : String(wire);
  let tx: ReturnType<typeof decodeSolanaTransaction>;
  try {
    tx = decodeSolanaTransaction(base64);
  } catch (error) {
    throw new RpcError(-32602, `failed to deserialize transaction: ${(error as Error).message}`);
  }
  for (const [signer, signature] of Object.entries(tx.signatures)) {
    const ok = signature && ed25519.verify(new Uint8Array(signature), new Uint8Array(tx.messageBytes), new Uint8Array(getBase58Encoder().encode(signer)));
    if (!ok) throw new RpcError(-32003, `Transaction signature verification failure: ${signer}`);
  }
  const payer = Object.keys(tx.signatures)[0]!;
  const signature = toBase58(new Uint8Array(tx.signatures[payer as keyof typeof tx.signatures]!));
  try {
    applySolanaTransaction(
      ctx.store,
      ctx.clock,
      ctx.network,
      signature,
      payer,
      Object.keys(tx.signatures).length,
      readSolanaTransactionOn(ctx.store, tx, ctx.network),
    );
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32002, `Transaction simulation failed: ${error.message}`);
    throw error;
  }
  return signature;
}

export const solanaMethods: Readonly<Record<string, RpcMethod<SolanaNodeContext>>> = {
  getHealth,
  getGenesisHash,
  getSlot,
  getBlockHeight: getSlot,
  getBalance,
  getAccountInfo,
  getLatestBlockhash,
  getSignatureStatuses,
  getTokenAccountBalance,
  sendTransaction,
};
