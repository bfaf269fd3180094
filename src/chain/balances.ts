/**
 * A holder's balance of a token on a network, whatever the chain: the one interface the rest of the house uses.
 * Each chain keeps its own: an EVM balance lives in chain/evm/balances.ts, a Solana one in the project's Solana
 * accounts (chain/solana/accounts.ts), which the runtime executes against; these functions send each network to
 * its chain, so callers need not know the difference.
 */
import type { ProjectTx } from "../store/store.js";
import { type BalanceRecord, evmBalanceOf, evmHoldings, forEachEvmBalance, setEvmBalance } from "./evm/balances.js";
import { forEachSolanaBalance, setSolanaBalance, solanaBalanceOf, solanaHoldings } from "./solana/accounts.js";
import { isSolanaNetwork } from "./solana/tokens.js";

export function balanceOf(store: ProjectTx, network: string, asset: string, holder: string): bigint {
  return isSolanaNetwork(network) ? solanaBalanceOf(store, network, asset, holder) : evmBalanceOf(store, network, asset, holder);
}

export function setBalance(store: ProjectTx, network: string, asset: string, holder: string, amount: bigint): void {
  if (isSolanaNetwork(network)) setSolanaBalance(store, network, asset, holder, amount);
  else setEvmBalance(store, network, asset, holder, amount);
}

export function credit(store: ProjectTx, network: string, asset: string, holder: string, amount: bigint): void {
  setBalance(store, network, asset, holder, balanceOf(store, network, asset, holder) + amount);
}

/** Calls `visit` with every balance record of the project's ledgers, zero ones included (not copies: never change them). */
export function forEachBalance(store: ProjectTx, visit: (balance: Readonly<BalanceRecord>) => void): void {
  forEachSolanaBalance(store, visit);
  forEachEvmBalance(store, visit);
}

/** Every non-zero balance of a holder on a network: [asset ("native", a lowercase contract or a mint), amount]. */
export function holdings(store: ProjectTx, network: string, holder: string): Array<[string, bigint]> {
  return isSolanaNetwork(network) ? solanaHoldings(store, network, holder) : evmHoldings(store, network, holder);
}
