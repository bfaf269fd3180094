/** End users: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import {
  createDelegationForEndUserAccount,
  getDelegationForEndUser,
  getDelegationForEndUserAccount,
  revokeDelegationForEndUser,
  revokeDelegationForEndUserAccount,
  sendEvmTransactionWithEndUserAccount,
  sendSolanaTransactionWithEndUserAccount,
  signEvmMessageWithEndUserAccount,
  signEvmTransactionWithEndUserAccount,
  signEvmTypedDataWithEndUserAccount,
  signSolanaMessageWithEndUserAccount,
  signSolanaTransactionWithEndUserAccount,
} from "./accounts.js";
import { createEvmEip7702DelegationWithEndUserAccount, sendEvmAssetWithEndUserAccount, sendSolanaAssetWithEndUserAccount } from "./assets.js";
import {
  addEndUserEvmAccount,
  addEndUserEvmSmartAccount,
  addEndUserSolanaAccount,
  createEndUser,
  getEndUser,
  importEndUser,
  listEndUsers,
  lookupEndUser,
  validateEndUserAccessToken,
} from "./management.js";
import { getUserOperationWithEndUserAccount, sendUserOperationWithEndUserAccount } from "./userOperations.js";
import { signSolanaX402PaymentWithEndUserAccount } from "./x402.js";

export const handlers: Handlers = {
  // Management
  createEndUser,
  importEndUser,
  getEndUser,
  listEndUsers,
  lookupEndUser,
  addEndUserEvmAccount,
  addEndUserEvmSmartAccount,
  addEndUserSolanaAccount,
  validateEndUserAccessToken,
  // Signing and sending with end users' accounts
  signEvmTransactionWithEndUserAccount,
  sendEvmTransactionWithEndUserAccount,
  signEvmMessageWithEndUserAccount,
  signEvmTypedDataWithEndUserAccount,
  signSolanaMessageWithEndUserAccount,
  signSolanaTransactionWithEndUserAccount,
  sendSolanaTransactionWithEndUserAccount,
  sendEvmAssetWithEndUserAccount,
  sendSolanaAssetWithEndUserAccount,
  createEvmEip7702DelegationWithEndUserAccount,
  sendUserOperationWithEndUserAccount,
  getUserOperationWithEndUserAccount,
  signSolanaX402PaymentWithEndUserAccount,
  // Delegation grants
  createDelegationForEndUserAccount,
  getDelegationForEndUserAccount,
  getDelegationForEndUser,
  revokeDelegationForEndUserAccount,
  revokeDelegationForEndUser,
};
