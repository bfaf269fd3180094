/**
 * Dev accounts (`--dev-accounts N`): keys the node holds, as Anvil's and Hardhat's nodes do, so that
 * `eth_accounts`, `eth_sendTransaction` and the signing methods work for wallets and connectors that expect a node
 * to sign (wagmi's `mock` connector, Hardhat scripts). They are derived from the mnemonic both tools use, on
 * m/44'/60'/0'/0/i, so the addresses tests already name (0xf39F…2266 first) are the same here.
 *
 * Every project's ledger credits them 10,000 of the native token on every EVM network the first time its node is
 * called, and again after the project is reset (the mark that they were credited goes with the records), as a new
 * Anvil chain holds them at genesis. The platform's own node holds no keys: without the flag there are none.
 */
import { pbkdf2Sync } from "node:crypto";
import { HDKey, hdKeyToAccount, type HDAccount } from "viem/accounts";
import { setEvmBalance } from "../../chain/evm/balances.js";
import { EVM_NETWORKS } from "../../chain/networks.js";
import { NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

/** The mnemonic Anvil and Hardhat derive their dev accounts from (public: never use it for real funds). */
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** The most dev accounts a sandbox derives (Anvil's default is 10; a test suite rarely needs more than a few dozen). */
export const MAX_DEV_ACCOUNTS = 100;

/** What each dev account holds on every EVM network at first: 10,000 of the native token, as on Anvil. */
const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

/** The dev accounts of a sandbox, by lowercase address. */
export type DevAccounts = ReadonlyMap<string, HDAccount>;

/** The mark that a project's ledger has credited its dev accounts (how many): keyed "devAccounts". */
const CREDITED = declareCollection<{ count: number }>("nodeDevAccountsCredited");

/** Whether `count` is a number of dev accounts the sandbox derives; the reason when it is not. */
export function devAccountsProblem(count: unknown): string | undefined {
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || count > MAX_DEV_ACCOUNTS)
    return `devAccounts must be a whole number from 0 to ${MAX_DEV_ACCOUNTS}, got ${JSON.stringify(count)}`;
  return undefined;
}

/**
 * The first `count` accounts of the dev mnemonic, in order.
 *
 * @example deriveDevAccounts(10).keys().next().value // "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
 */
export function deriveDevAccounts(count: number): DevAccounts {
  const accounts = new Map<string, HDAccount>();
  if (count === 0) return accounts;
  // BIP-39's seed: PBKDF2-HMAC-SHA512 of the (already normalised, ASCII) phrase, salt "mnemonic", 2048 rounds; done once.
  const master = HDKey.fromMasterSeed(pbkdf2Sync(DEV_MNEMONIC, "mnemonic", 2048, 64, "sha512"));
  for (let i = 0; i < count; i++) {
    const account = hdKeyToAccount(master, { addressIndex: i });
    accounts.set(account.address.toLowerCase(), account);
  }
  return accounts;
}

/** Credits the dev accounts on every EVM network of the project, once (again after a reset emptied its records). */
export function creditDevAccounts(store: ProjectTx, accounts: DevAccounts): void {
  if (accounts.size === 0) return;
  const credited = store.collection(CREDITED).get("devAccounts")?.count ?? 0;
  if (credited >= accounts.size) return;
  const fresh = [...accounts.values()].slice(credited);
  for (const network of Object.keys(EVM_NETWORKS))
    for (const account of fresh) setEvmBalance(store, network, NATIVE_TOKEN_ADDRESS, account.address, DEV_ACCOUNT_BALANCE);
  store.collection(CREDITED).put("devAccounts", { count: accounts.size });
}
