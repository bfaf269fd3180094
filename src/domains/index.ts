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
import { userOperationHandlers } from "./evm-smart-accounts/userOperations.js";
import { evmSmartAccountHandlers } from "./evm-smart-accounts/accounts.js";
import { faucetHandlers } from "./faucets/handlers.js";
import { tokenBalanceHandlers } from "./token-balances/handlers.js";
import { sqlHandlers } from "./sql/handlers.js";
import { endUserOperationHandlers } from "./end-users/userOperations.js";
import { endUserAssetHandlers } from "./end-users/assets.js";
import { endUserAccountHandlers } from "./end-users/accounts.js";
import { endUserManagementHandlers } from "./end-users/management.js";
import { onrampHandlers } from "./onramp/handlers.js";
import { policyHandlers } from "./policies/handlers.js";
import { solanaAccountHandlers } from "./solana-accounts/handlers.js";
import { spendPermissionHandlers } from "./spend-permissions/handlers.js";
import { swapHandlers } from "./swaps/handlers.js";
import { webhookHandlers } from "./webhooks/handlers.js";
import { endUserX402Handlers } from "./end-users/x402.js";
import { x402Handlers } from "./x402/handlers.js";
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
  ...onrampHandlers,
  ...accountHandlers,
  ...customerHandlers,
  ...paymentMethodHandlers,
  ...transferHandlers,
  ...depositDestinationHandlers,
  ...swapHandlers,
  ...spendPermissionHandlers,
  ...webhookHandlers,
  ...endUserX402Handlers,
  ...x402Handlers,
};
