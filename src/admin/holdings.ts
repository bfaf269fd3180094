/**
 * Balances as the dashboard shows them: every non-zero balance of the
 * project's ledgers with its token's symbol and decimals, gathered once per
 * call by holder so a page of accounts costs one walk over the balances.
 */
import { formatUnits } from "viem";
import { forEachBalance } from "../chain/balances.js";
import { SOL, SOLANA_TOKENS, solanaTokenByMint } from "../chain/solana/tokens.js";
import { evmTokenByAddress, nativeTokenOf } from "../chain/tokens.js";
import type { components } from "../contract/generated/admin-types.js";
import type { ProjectTx } from "../store/store.js";

export type BalanceView = components["schemas"]["Balance"];

/** The key a holder's balances are kept under: EVM addresses compare case-insensitively. */
export const holderKey = (address: string) => (address.startsWith("0x") ? address.toLowerCase() : address);

function tokenOf(network: string, asset: string): { symbol: string; decimals: number; address?: string } {
  if (network in SOLANA_TOKENS) {
    if (asset === "native") return { symbol: SOL.symbol, decimals: SOL.decimals };
    const t = solanaTokenByMint(network, asset);
    return t ? { symbol: t.symbol, decimals: t.decimals, address: t.mint } : { symbol: asset, decimals: 0, address: asset };
  }
  if (asset === "native") {
    const native = nativeTokenOf(network);
    return { symbol: native.symbol, decimals: native.decimals };
  }
  const t = evmTokenByAddress(network, asset);
  return t ? { symbol: t.symbol, decimals: t.decimals, address: t.address } : { symbol: asset, decimals: 0, address: asset };
}

/** One balance record, named and formatted. */
export function balanceView(network: string, asset: string, amount: bigint): BalanceView {
  const token = tokenOf(network, asset);
  return {
    network,
    token: token.symbol,
    ...(token.address ? { address: token.address } : {}),
    decimals: token.decimals,
    amount: amount.toString(),
    formatted: formatUnits(amount, token.decimals),
  };
}

/** Every non-zero balance of the project, by holder (see holderKey), ordered by network then token. */
export function balancesByHolder(tx: ProjectTx): Map<string, BalanceView[]> {
  const byHolder = new Map<string, BalanceView[]>();
  forEachBalance(tx, (b) => {
    if (b.amount === "0") return;
    const key = holderKey(b.holder);
    let list = byHolder.get(key);
    if (!list) {
      list = [];
      byHolder.set(key, list);
    }
    list.push(balanceView(b.network, b.asset, BigInt(b.amount)));
  });
  for (const list of byHolder.values()) list.sort((a, b) => a.network.localeCompare(b.network) || a.token.localeCompare(b.token));
  return byHolder;
}
