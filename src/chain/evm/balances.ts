/**
 * Where an EVM balance lives: native and ERC-20 amounts per network, token and holder, in the project's store.
 * Only this module knows how they are keyed; the EVM ledger, runtime and token model read and write them here,
 * and the rest of the house through the shared ledger (chain/balances.ts).
 */
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { NATIVE_TOKEN_ADDRESS } from "../tokens.js";

export const NATIVE = "native";

export interface BalanceRecord {
  network: string;
  asset: string;
  holder: string;
  amount: string;
}

const LEDGER_BALANCES = declareCollection<BalanceRecord>("ledgerBalances");
const balances = (store: ProjectTx) => store.collection(LEDGER_BALANCES);

// EVM addresses compare case-insensitively; Solana's base-58 addresses exactly.
const addressKey = (a: string) => (a.startsWith("0x") ? a.toLowerCase() : a);
export const assetKey = (asset: string) => (asset === NATIVE || asset.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase() ? NATIVE : addressKey(asset));
const balanceId = (network: string, asset: string, holder: string) => `${network}|${assetKey(asset)}|${addressKey(holder)}`;

export function evmBalanceOf(store: ProjectTx, network: string, asset: string, holder: string): bigint {
  return BigInt(balances(store).get(balanceId(network, asset, holder))?.amount ?? "0");
}

export function setEvmBalance(store: ProjectTx, network: string, asset: string, holder: string, amount: bigint): void {
  balances(store).put(balanceId(network, asset, holder), { network, asset: assetKey(asset), holder: addressKey(holder), amount: amount.toString() });
}

export function creditEvm(store: ProjectTx, network: string, asset: string, holder: string, amount: bigint): void {
  setEvmBalance(store, network, asset, holder, evmBalanceOf(store, network, asset, holder) + amount);
}

/** Calls `visit` with every EVM balance record, zero ones included (not copies: never change them). */
export function forEachEvmBalance(store: ProjectTx, visit: (balance: Readonly<BalanceRecord>) => void): void {
  // A filter that keeps nothing walks the records without copying them.
  balances(store).filter((b) => {
    visit(b);
    return false;
  });
}

/** Whether the project holds any EVM balance record (a zero one too). */
export function holdsAnyEvmBalance(store: ProjectTx): boolean {
  return balances(store).find(() => true) !== undefined;
}

/** Every non-zero balance of a holder on a network: [asset ("native" or lowercase contract), amount]. */
export function evmHoldings(store: ProjectTx, network: string, holder: string): Array<[string, bigint]> {
  const h = addressKey(holder);
  return balances(store)
    .filter((b) => b.network === network && b.holder === h && b.amount !== "0")
    .map((b) => [b.asset, BigInt(b.amount)]);
}

/** What all holders on a network hold of one asset together (a token's supply on the sandbox's ledger). */
export function evmTotalHeld(store: ProjectTx, network: string, asset: string): bigint {
  const key = assetKey(asset);
  // Read in place: a supply is summed over every holder (each credit and `totalSupply` reads it), and a copy of each
  // holder's record made that cost grow with the holders several times faster.
  let total = 0n;
  forEachEvmBalance(store, (b) => {
    if (b.network === network && b.asset === key) total += BigInt(b.amount);
  });
  return total;
}
