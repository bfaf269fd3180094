/**
 * The areas of the platform, each with the one map of its operations in its
 * own `handlers.ts` (operationId → handler, typed from the contract). An
 * operation of the contract that no area serves is answered by the honest
 * fallback mock; `test/contract/handlers.test.ts` keeps that set empty.
 */
import { handlers as accounts } from "./accounts/handlers.js";
import { handlers as borrowing } from "./borrowing/handlers.js";
import { handlers as customers } from "./customers/handlers.js";
import { handlers as depositDestinations } from "./deposit-destinations/handlers.js";
import { handlers as disbursements } from "./disbursements/handlers.js";
import { handlers as endUserAuth } from "../wallet/identity/handlers.js";
import { handlers as endUsers } from "../wallet/end-users/handlers.js";
import { handlers as evmAccounts } from "../wallet/evm-accounts/handlers.js";
import { handlers as evmSmartAccounts } from "../wallet/evm-smart-accounts/handlers.js";
import { handlers as faucets } from "./faucets/handlers.js";
import { handlers as onramp } from "./onramp/handlers.js";
import { handlers as paymentMethods } from "./payment-methods/handlers.js";
import { handlers as paymentSessions } from "./payment-sessions/handlers.js";
import { handlers as policies } from "../wallet/policies/handlers.js";
import { handlers as solanaAccounts } from "../wallet/solana-accounts/handlers.js";
import { handlers as spendPermissions } from "../wallet/spend-permissions/handlers.js";
import { handlers as sql } from "./sql/handlers.js";
import { handlers as swaps } from "./swaps/handlers.js";
import { handlers as tokenBalances } from "./token-balances/handlers.js";
import { handlers as transfers } from "./transfers/handlers.js";
import type { AnyHandler, Handlers } from "../wallet/types.js";
import { handlers as webhooks } from "./webhooks/handlers.js";
import { handlers as x402 } from "./x402/handlers.js";

/** Folder name → the area's operations. */
export const areas: Readonly<Record<string, Handlers>> = {
  accounts,
  borrowing,
  customers,
  "deposit-destinations": depositDestinations,
  disbursements,
  identity: endUserAuth,
  "end-users": endUsers,
  "evm-accounts": evmAccounts,
  "evm-smart-accounts": evmSmartAccounts,
  faucets,
  onramp,
  "payment-methods": paymentMethods,
  "payment-sessions": paymentSessions,
  policies,
  "solana-accounts": solanaAccounts,
  "spend-permissions": spendPermissions,
  sql,
  swaps,
  "token-balances": tokenBalances,
  transfers,
  webhooks,
  x402,
};

/**
 * Every handler of the sandbox by operationId, as the pipeline calls them: it
 * checks each request against the contract first, which is what makes the
 * operation-specific types of the handlers hold.
 */
export const handlers: Readonly<Record<string, AnyHandler>> = Object.assign({}, ...Object.values(areas));
