/**
 * The Solana JSON-RPC methods the node answers at /rpc/v1/{solana|solana-devnet}/{token}, on the project's
 * accounts: method name → function. Token methods are in tokenMethods.ts, transactions and their history in
 * transactionMethods.ts.
 */
import { isSolanaNetwork as isSolanaChain } from "../../chain/solana/tokens.js";
import { latestBlockhash, recentBlockhashSlot } from "../../chain/solana/blockhashes.js";
import { rentExemptMinimum } from "../../chain/solana/accounts.js";
import { lamportsOf } from "../../chain/solana/accounts.js";
import { lookupTable } from "../../lookup.js";
import { RpcError, type RpcMethod } from "../jsonRpc.js";
import { accountInfo, checkAddress } from "./accounts.js";
import { contextOf, slotOf, type SolanaNodeContext } from "./context.js";
import { getParsedTokenAccountsByOwner, getProgramAccounts, getTokenAccountBalance, getTokenAccountsByOwner, getTokenSupply } from "./tokenMethods.js";
import { getSignaturesForAddress, getSignatureStatuses, getTransaction, sendTransaction, simulateTransaction } from "./transactionMethods.js";

export type { SolanaNodeContext } from "./context.js";

export const isSolanaNetwork = isSolanaChain;

/**
 * The clusters' full genesis hashes: clients tell mainnet from devnet by them. CAIP-2 ids (x402's
 * `solana:EtWTRABZ…`) carry only their first 32 characters, which no client accepts as a genesis hash.
 */
const GENESIS: Record<string, string> = lookupTable({
  solana: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
  "solana-devnet": "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
});

const getHealth = () => "ok";

const getGenesisHash = (_params: unknown[], ctx: SolanaNodeContext) => GENESIS[ctx.network];

const getSlot = (_params: unknown[], ctx: SolanaNodeContext) => slotOf(ctx);

const getBalance = (params: unknown[], ctx: SolanaNodeContext) => ({
  context: contextOf(ctx),
  value: lamportsOf(ctx.store, ctx.network, checkAddress(params[0])),
});

const getAccountInfo = (params: unknown[], ctx: SolanaNodeContext) => ({
  context: contextOf(ctx),
  value: accountInfo(ctx.store, ctx.network, params[0], (params[1] as { encoding?: unknown } | undefined)?.encoding),
});

function getMultipleAccounts(params: unknown[], ctx: SolanaNodeContext) {
  const addresses = params[0];
  if (!Array.isArray(addresses) || addresses.length > 100) throw new RpcError(-32602, "Invalid params: expected an array of at most 100 addresses.");
  const encoding = (params[1] as { encoding?: unknown } | undefined)?.encoding;
  return { context: contextOf(ctx), value: addresses.map((a) => accountInfo(ctx.store, ctx.network, a, encoding)) };
}

/**
 * The blockhash of the clock's slot: automine may have mined newer slots, but the sandbox's verifiers (the
 * x402 facilitator) take the slots of the clock as the recent ones, so this one is accepted everywhere.
 */
function getLatestBlockhash(_params: unknown[], ctx: SolanaNodeContext) {
  const latest = latestBlockhash(ctx.network, ctx.clock.now());
  return { context: contextOf(ctx), value: { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } };
}

function isBlockhashValid(params: unknown[], ctx: SolanaNodeContext) {
  if (typeof params[0] !== "string") throw new RpcError(-32602, "Invalid params: expected a blockhash.");
  return { context: contextOf(ctx), value: recentBlockhashSlot(ctx.network, ctx.clock.now(), params[0]) !== undefined };
}

function getMinimumBalanceForRentExemption(params: unknown[]) {
  const size = params[0];
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > 10 * 1024 * 1024) {
    throw new RpcError(-32602, "Invalid params: expected a data length in bytes (at most 10 MiB).");
  }
  return Number(rentExemptMinimum(size));
}

export const solanaMethods: Readonly<Record<string, RpcMethod<SolanaNodeContext>>> = {
  getHealth,
  getGenesisHash,
  getSlot,
  getBlockHeight: getSlot,
  getBalance,
  getAccountInfo,
  getMultipleAccounts,
  getLatestBlockhash,
  isBlockhashValid,
  getMinimumBalanceForRentExemption,
  getSignatureStatuses,
  getSignaturesForAddress,
  getTransaction,
  getTokenAccountBalance,
  getTokenAccountsByOwner,
  getParsedTokenAccountsByOwner,
  getTokenSupply,
  getProgramAccounts,
  simulateTransaction,
  sendTransaction,
};
