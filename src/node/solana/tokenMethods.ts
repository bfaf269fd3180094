/**
 * The token methods of the Solana node: balances, supplies and the token accounts of an owner (from the
 * owner → token accounts index), and getProgramAccounts with its filters.
 */
import {
  decodeMint,
  decodeTokenAccount,
  readSolanaAccount,
  solanaAccountsOwnedBy,
  tokenAccountOwner,
  tokenAccountsOf,
  viewSolanaAccount,
} from "../../chain/solana/accounts.js";
import { isTokenProgram } from "../../chain/solana/tokens.js";
import { fromBase58 } from "../../crypto/solana.js";
import { RpcError } from "../jsonRpc.js";
import { accountJson, checkAddress, checkEncoding, uiTokenAmount } from "./accounts.js";
import { contextOf, type SolanaNodeContext } from "./context.js";

type Options = { encoding?: unknown; filters?: unknown; withContext?: unknown } | undefined;

function decimalsOf(ctx: SolanaNodeContext, mint: string): number {
  const state = viewSolanaAccount(ctx.store, ctx.network, mint);
  return state ? decodeMint(Buffer.from(state.data, "base64")).decimals : 0;
}

export function getTokenAccountBalance(params: unknown[], ctx: SolanaNodeContext) {
  const state = readSolanaAccount(ctx.store, ctx.network, checkAddress(params[0]));
  if (!state) throw new RpcError(-32602, "Invalid param: could not find account", undefined, { fromState: true });
  if (!tokenAccountOwner(state)) throw new RpcError(-32602, "Invalid param: not a Token account", undefined, { fromState: true });
  const f = decodeTokenAccount(Buffer.from(state.data, "base64"));
  return { context: contextOf(ctx), value: uiTokenAmount(f.amount, decimalsOf(ctx, f.mint)) };
}

export function getTokenSupply(params: unknown[], ctx: SolanaNodeContext) {
  const state = viewSolanaAccount(ctx.store, ctx.network, checkAddress(params[0]));
  if (!state || !isTokenProgram(state.owner) || Buffer.from(state.data, "base64").length < 82)
    throw new RpcError(-32602, "Invalid param: not a Token mint", undefined, { fromState: true });
  const m = decodeMint(Buffer.from(state.data, "base64"));
  return { context: contextOf(ctx), value: uiTokenAmount(m.supply, m.decimals) };
}

function tokenAccountsByOwner(params: unknown[], ctx: SolanaNodeContext, defaultEncoding: string) {
  const owner = checkAddress(params[0]);
  const filter = params[1] as { mint?: unknown; programId?: unknown } | undefined;
  if (!filter || (filter.mint === undefined && filter.programId === undefined)) {
    throw new RpcError(-32602, "Invalid params: expected a filter object with either mint or programId.");
  }
  const mint = filter.mint === undefined ? undefined : checkAddress(filter.mint);
  const program = filter.programId === undefined ? undefined : checkAddress(filter.programId);
  if (program !== undefined && !isTokenProgram(program)) throw new RpcError(-32602, `Invalid param: unrecognized Token program id`);
  const encoding = checkEncoding((params[2] as Options)?.encoding ?? defaultEncoding);
  const value = [];
  for (const address of tokenAccountsOf(ctx.store, ctx.network, owner)) {
    const state = readSolanaAccount(ctx.store, ctx.network, address);
    if (!state) continue;
    if (program !== undefined && state.owner !== program) continue;
    if (mint !== undefined && decodeTokenAccount(Buffer.from(state.data, "base64")).mint !== mint) continue;
    value.push({ pubkey: address, account: accountJson(ctx.store, state, encoding) });
  }
  return { context: contextOf(ctx), value };
}

export const getTokenAccountsByOwner = (params: unknown[], ctx: SolanaNodeContext) => tokenAccountsByOwner(params, ctx, "base64");
export const getParsedTokenAccountsByOwner = (params: unknown[], ctx: SolanaNodeContext) => tokenAccountsByOwner(params, ctx, "jsonParsed");

interface Filter {
  dataSize?: number;
  memcmp?: { offset: number; bytes: string; encoding?: string };
}

function readFilters(raw: unknown): Filter[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length > 4) throw new RpcError(-32602, "Invalid params: filters must be an array of at most 4 filters.");
  return raw.map((f: Filter) => {
    if (f && typeof f.dataSize === "number") return { dataSize: f.dataSize };
    const m = f?.memcmp;
    if (m && Number.isInteger(m.offset) && m.offset >= 0 && typeof m.bytes === "string") return { memcmp: m };
    throw new RpcError(-32602, "Invalid params: each filter is {dataSize} or {memcmp: {offset, bytes}}.");
  });
}

function matches(data: Buffer, filters: Filter[]): boolean {
  for (const f of filters) {
    if (f.dataSize !== undefined && data.length !== f.dataSize) return false;
    if (f.memcmp) {
      let wanted: Buffer;
      try {
        wanted = f.memcmp.encoding === "base64" ? Buffer.from(f.memcmp.bytes, "base64") : Buffer.from(fromBase58(f.memcmp.bytes));
      } catch {
        throw new RpcError(-32602, "Invalid params: memcmp bytes do not decode.");
      }
      if (!data.subarray(f.memcmp.offset, f.memcmp.offset + wanted.length).equals(wanted)) return false;
    }
  }
  return true;
}

/**
 * The accounts a program owns that pass the filters. For the token programs a memcmp on the owner field
 * (offset 32, what wallets send) is answered from the owner index; anything else scans the project's accounts.
 */
export function getProgramAccounts(params: unknown[], ctx: SolanaNodeContext) {
  const program = checkAddress(params[0]);
  const options = params[1] as Options;
  const encoding = checkEncoding(options?.encoding);
  const filters = readFilters(options?.filters);
  const byOwner = filters.find((f) => f.memcmp?.offset === 32 && f.memcmp.encoding !== "base64");
  const candidates =
    isTokenProgram(program) && byOwner?.memcmp
      ? tokenAccountsOf(ctx.store, ctx.network, byOwner.memcmp.bytes).flatMap((a) => readSolanaAccount(ctx.store, ctx.network, a) ?? [])
      : solanaAccountsOwnedBy(ctx.store, ctx.network, program);
  const value = candidates
    .filter((s) => s.owner === program && matches(Buffer.from(s.data, "base64"), filters))
    .map((s) => ({ pubkey: s.address, account: accountJson(ctx.store, s, encoding) }));
  return options?.withContext === true ? { context: contextOf(ctx), value } : value;
}
