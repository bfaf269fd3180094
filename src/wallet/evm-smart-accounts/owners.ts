/**
 * Which addresses of a project are smart wallets, and their owners: the
 * project's smart accounts, its end users' smart accounts, and wallets a user
 * operation deployed through the node's bundler. Contracts on
 * the simulated chain (Permit2) use it where a real chain would call the
 * wallet's code (ERC-1271 `isValidSignature`).
 */
import type { ProjectTx } from "../../store/store.js";
import { endUsers } from "../records/endUsers.js";
import { smartAccounts } from "./accounts.js";
import { deployedWalletOwners } from "./smartWalletFactory.js";

/** The owners of the smart wallet at `address`, in owner-index order; undefined when it is not one of the project's. */
export function smartWalletOwners(store: ProjectTx, address: string): string[] | undefined {
  const key = address.toLowerCase();
  const own = smartAccounts(store).get(key);
  if (own) return own.owners;
  const user = endUsers(store).findBy("smartAccount", key);
  const smart = user?.evmSmartAccounts.find((a) => a.address.toLowerCase() === key);
  if (smart) return smart.ownerAddresses;
  return deployedWalletOwners(store, key);
}
