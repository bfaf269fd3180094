/**
 * Every real handler of the sandbox, by operationId. An operation of the
 * contract that is not listed here is answered by the honest fallback mock.
 */
import { accountHandlers } from "./accounts/handlers.js";
import { customerHandlers } from "./customers/handlers.js";
import { depositDestinationHandlers } from "./deposit-destinations/handlers.js";
import { evmAccountHandlers } from "./evm-accounts/handlers.js";
import { paymentMethodHandlers } from "./payment-methods/handlers.js";
import { transferHandlers } from "./transfers/handlers.js";
import { settleDueTransfers } from "./transfers/settle.js";
import { userOperationHandlers } from "./evm-smart-accounts/userOperations.js";
import { evmSmartAccountHandlers } from "./evm-smart-accounts/accounts.js";
import { faucetHandlers } from "./faucets/handlers.js";
import { tokenBalanceHandlers } from "./token-balances/handlers.js";
import { sqlHandlers } from "./sql/handlers.js";
import { endUserOperationHandlers } from "./end-users/userOperations.js";
import { endUserAssetHandlers } from "./end-users/assets.js";
import { endUserAccountHandlers } from "./end-users/accounts.js";
import { endUserManagementHandlers } from "./end-users/management.js";
import { policyHandlers } from "./policies/handlers.js";
import { solanaAccountHandlers } from "./solana-accounts/handlers.js";
import type { Store } from "../store/store.js";
import type { HandlerMap } from "./types.js";

export const handlers: HandlerMap = {
  ...evmAccountHandlers,
  ...solanaAccountHandlers,
  ...evmSmartAccountHandlers,
  ...userOperationHandlers,
  ...policyHandlers,
  ...faucetHandlers,
  ...tokenBalanceHandlers,
  ...sqlHandlers,
  ...endUserManagementHandlers,
  ...endUserAccountHandlers,
  ...endUserAssetHandlers,
  ...endUserOperationHandlers,
  ...accountHandlers,
  ...customerHandlers,
  ...paymentMethodHandlers,
  ...transferHandlers,
  ...depositDestinationHandlers,
};

/**
 * State that moves with the sandbox clock (transfers settling), brought up
 * to date in every project whenever the clock is set or advanced, so what
 * other APIs read (balances on the ledger) is settled too. Handlers of the
 * same areas also settle before they read, for a clock that flows.
 */
export async function settleOnClockChange(store: Store, nowMs: number): Promise<void> {
  for (const project of store.projects()) {
    const tx = store.begin(project.id);
    settleDueTransfers(tx, nowMs);
    if (tx.dirty) await tx.commit();
  }
}
