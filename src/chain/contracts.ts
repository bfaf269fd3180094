/**
 * The contracts the simulated chain executes beyond ERC-20 tokens: the swap
 * settler and the SpendPermissionManager. `applyEvmTransaction` hands a call
 * to one of them over to its module, which checks everything before changing
 * anything and says why when it reverts.
 */
import type { Clock } from "../clock.js";
import type { ProjectTx } from "../store/store.js";
import type { EvmTransactionInput, LedgerLog } from "./ledger.js";
import { PERMIT2_ADDRESS } from "./permit2.js";
import { callSpendPermissionManager, SPEND_PERMISSION_MANAGER_ADDRESS } from "./spendPermissionManager.js";
import { settleSwap, SWAP_GAS_USED, SWAP_SETTLER_ADDRESS, type SettlementResult } from "./swapRouter.js";

export interface SandboxContract {
  address: `0x${string}`;
  /** Gas one call burns. */
  gasUsed: bigint;
  call(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): SettlementResult;
}

// Built on first use: the contract modules import the ledger, which imports this file.
let contracts: SandboxContract[] | undefined;
const all = () =>
  (contracts ??= [
    { address: SWAP_SETTLER_ADDRESS, gasUsed: SWAP_GAS_USED, call: settleSwap },
    { address: SPEND_PERMISSION_MANAGER_ADDRESS, gasUsed: 80_000n, call: callSpendPermissionManager },
  ]);

export function sandboxContractAt(address: string | null): SandboxContract | undefined {
  return address === null ? undefined : all().find((c) => c.address.toLowerCase() === address.toLowerCase());
}

/** Addresses with code on every network besides tokens (eth_getCode): the contracts above and Permit2. */
export function hasSandboxCode(address: string): boolean {
  return sandboxContractAt(address) !== undefined || address.toLowerCase() === PERMIT2_ADDRESS.toLowerCase();
}
