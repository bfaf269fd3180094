/**
 * A credit on the ledger of either chain, named as a person names it: `{network, address, token?, amount}` with
 * `token` a symbol of the token table or a contract (mint) address (native when absent) and `amount` in the
 * token's smallest unit. The admin API's POST /_sandbox/balances and the --init file's balances both credit
 * through it, inside a transaction their caller commits.
 */
import { apiError } from "../errors/catalogue.js";
import type { ProjectTx } from "../store/store.js";
import { balanceOf, credit } from "./balances.js";
import { EVM_NETWORKS } from "./networks.js";
import { SOL, SOLANA_TOKENS, solanaTokenByMint, solanaTokenBySymbol } from "./solana/tokens.js";
import { evmTokenByAddress, evmTokenBySymbol, NATIVE_TOKEN_ADDRESS, nativeTokenOf } from "./tokens.js";
import { evmTotalHeld } from "./evm/balances.js";
import { mintSupplyOf } from "./solana/accounts.js";

export interface CreditRequest {
  network?: unknown;
  address?: unknown;
  token?: unknown;
  amount?: unknown;
}

const networksText = () => [...Object.keys(EVM_NETWORKS), ...Object.keys(SOLANA_TOKENS)].join(", ");

/** The token a credit names on a network (native when absent), with its decimals; undefined when the table has none. */
export function ledgerToken(network: string, token: unknown): { symbol: string; decimals: number } | undefined {
  if (network in SOLANA_TOKENS) {
    return token === undefined ? SOL : typeof token === "string" ? (solanaTokenBySymbol(network, token) ?? solanaTokenByMint(network, token)) : undefined;
  }
  if (!(network in EVM_NETWORKS)) return undefined;
  return token === undefined
    ? nativeTokenOf(network)
    : typeof token === "string"
      ? (evmTokenBySymbol(network, token) ?? evmTokenByAddress(network, token))
      : undefined;
}

const MAX_UINT256 = 2n ** 256n - 1n;
const MAX_U64 = 2n ** 64n - 1n;

/**
 * Token supplies as a batch of credits (an init file's, one project) has brought them so far, by network and token:
 * an ERC-20 token's supply is the sum of its holders' balances, read once per batch rather than once per credit.
 */
export type SupplyTally = Map<string, bigint>;

/** A token's supply and the most its contract can count (a native coin has no contract, and no such bound). */
interface SupplyBound {
  read: () => bigint;
  max: bigint;
  bound: string;
}

interface Credit {
  network: string;
  key: string;
  address: string;
  amount: string;
  symbol: string;
  max: bigint;
  bound: string;
  supply?: SupplyBound;
}

const shownAmount = (amount: string) => (amount.length > 90 ? `${amount.slice(0, 87)}...` : amount);

/**
 * Credits `amount`, refusing what no chain could hold: a balance beyond its word, which no transfer could move, or a
 * token's total supply beyond the word its contract counts it in (an ERC-20 `totalSupply` is a uint256, an SPL mint's
 * supply a u64: the real contracts refuse to mint past it, and reads of the supply could not answer).
 */
function creditWithin(tx: ProjectTx, c: Credit, tally?: SupplyTally): void {
  const units = BigInt(c.amount);
  const after = balanceOf(tx, c.network, c.key, c.address) + units;
  if (after > c.max) throw apiError("invalid_request", `amount ${shownAmount(c.amount)} would bring the ${c.symbol} balance of ${c.address} above ${c.bound}.`);
  if (c.supply) {
    const id = `${c.network}|${c.key}`;
    const supply = (tally?.get(id) ?? c.supply.read()) + units;
    if (supply > c.supply.max)
      throw apiError("invalid_request", `amount ${shownAmount(c.amount)} would bring the total supply of ${c.symbol} on ${c.network} above ${c.supply.bound}.`);
    tally?.set(id, supply);
  }
  credit(tx, c.network, c.key, c.address, units);
}

function creditSolana(tx: ProjectTx, network: string, address: unknown, token: unknown, amount: unknown, tally?: SupplyTally) {
  if (typeof address !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address))
    throw apiError("invalid_request", "address must be a base-58 Solana address.");
  if (typeof amount !== "string" || !/^[0-9]+$/.test(amount))
    throw apiError("invalid_request", "amount must be a string of digits in the smallest unit (lamports for SOL).");
  const asset = token === undefined ? SOL : typeof token === "string" ? (solanaTokenBySymbol(network, token) ?? solanaTokenByMint(network, token)) : undefined;
  if (!asset) throw apiError("invalid_request", `token ${String(token)} is not in the sandbox's token table for ${network}.`);
  const key = asset === SOL ? "native" : asset.mint;
  const supply = asset === SOL ? undefined : { read: () => mintSupplyOf(tx, network, key), max: MAX_U64, bound: "2^64 − 1 (a u64: the mint's supply)" };
  creditWithin(
    tx,
    { network, key, address, amount, symbol: asset.symbol, max: MAX_U64, bound: "2^64 − 1 (a u64: lamports and SPL token amounts)", supply },
    tally,
  );
  const balance = balanceOf(tx, network, key, address);
  return { network, address, token: asset.symbol, mintAddress: asset.mint, decimals: asset.decimals, balance: balance.toString() };
}

/**
 * Credits the ledger inside `tx` (nothing lands until the caller commits); a bad request throws `invalid_request`.
 * A batch of credits to one project passes the same `tally` to each.
 */
export function creditOnLedger(tx: ProjectTx, body: CreditRequest, tally?: SupplyTally) {
  const { network, address, token, amount } = body;
  if (typeof network === "string" && network in SOLANA_TOKENS) return creditSolana(tx, network, address, token, amount, tally);
  if (typeof network !== "string" || !(network in EVM_NETWORKS)) throw apiError("invalid_request", `network must be one of ${networksText()}.`);
  if (typeof address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(address))
    throw apiError("invalid_request", "address must be a 0x-prefixed 20-byte hex address.");
  if (typeof amount !== "string" || !/^[0-9]+$/.test(amount))
    throw apiError("invalid_request", 'amount must be a string of digits in the smallest unit, e.g. "1000000000000000000" for 1 ETH.');
  const asset =
    token === undefined
      ? nativeTokenOf(network)
      : typeof token === "string"
        ? (evmTokenBySymbol(network, token) ?? evmTokenByAddress(network, token))
        : undefined;
  if (!asset) throw apiError("invalid_request", `token ${String(token)} is not in the sandbox's token table for ${network}.`);
  const supply =
    asset.address === NATIVE_TOKEN_ADDRESS
      ? undefined
      : { read: () => evmTotalHeld(tx, network, asset.address), max: MAX_UINT256, bound: "2^256 − 1 (a uint256: the contract's totalSupply)" };
  creditWithin(tx, { network, key: asset.address, address, amount, symbol: asset.symbol, max: MAX_UINT256, bound: "2^256 − 1 (a uint256)", supply }, tally);
  const balance = balanceOf(tx, network, asset.address, address);
  return { network, address, token: asset.symbol, contractAddress: asset.address, decimals: asset.decimals, balance: balance.toString() };
}
