/** End users: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import {
  createDelegationForEndUser,
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
} from "./management.js";
import { getEvmEip7702DelegationOperationByIdWithEndUserAccount } from "./eip7702Operations.js";
import { signEvmHashWithEndUserAccount, signSolanaHashWithEndUserAccount } from "./hashSigning.js";
import { exportEndUserEvmAccount, exportEndUserSolanaAccount } from "./keyExport.js";
import {
  afterMfa,
  initiateMfaEnrollment,
  initiateMfaEnrollment2,
  initiateMfaVerification,
  recordMfaEnrollmentPrompted,
  submitMfaEnrollment,
  submitMfaVerification,
} from "./mfa.js";
import {
  createSpendPermissionWithEndUserAccount,
  listSpendPermissionsWithEndUserAccount,
  revokeSpendPermissionWithEndUserAccount,
} from "./spendPermissions.js";
import { getUserOperationWithEndUserAccount, sendUserOperationWithEndUserAccount } from "./userOperations.js";

/**
 * What moves funds or keys waits for a recent MFA verification when the end user enrolled (afterMfa, mfa.ts); the
 * table of gated operations is in docs/embedded-wallets.md (MFA).
 */
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
  // Signing and sending with end users' accounts
  signEvmTransactionWithEndUserAccount: afterMfa(signEvmTransactionWithEndUserAccount),
  sendEvmTransactionWithEndUserAccount: afterMfa(sendEvmTransactionWithEndUserAccount),
  signEvmMessageWithEndUserAccount: afterMfa(signEvmMessageWithEndUserAccount),
  signEvmTypedDataWithEndUserAccount: afterMfa(signEvmTypedDataWithEndUserAccount),
  signEvmHashWithEndUserAccount: afterMfa(signEvmHashWithEndUserAccount),
  signSolanaMessageWithEndUserAccount: afterMfa(signSolanaMessageWithEndUserAccount),
  signSolanaTransactionWithEndUserAccount: afterMfa(signSolanaTransactionWithEndUserAccount),
  signSolanaHashWithEndUserAccount: afterMfa(signSolanaHashWithEndUserAccount),
  sendSolanaTransactionWithEndUserAccount: afterMfa(sendSolanaTransactionWithEndUserAccount),
  sendEvmAssetWithEndUserAccount: afterMfa(sendEvmAssetWithEndUserAccount),
  sendSolanaAssetWithEndUserAccount: afterMfa(sendSolanaAssetWithEndUserAccount),
  createEvmEip7702DelegationWithEndUserAccount: afterMfa(createEvmEip7702DelegationWithEndUserAccount),
  getEvmEip7702DelegationOperationByIdWithEndUserAccount,
  sendUserOperationWithEndUserAccount: afterMfa(sendUserOperationWithEndUserAccount),
  getUserOperationWithEndUserAccount,
  // Key export
  exportEndUserEvmAccount: afterMfa(exportEndUserEvmAccount),
  exportEndUserSolanaAccount: afterMfa(exportEndUserSolanaAccount),
  // Spend permissions of end users' smart accounts
  createSpendPermissionWithEndUserAccount: afterMfa(createSpendPermissionWithEndUserAccount),
  listSpendPermissionsWithEndUserAccount,
  revokeSpendPermissionWithEndUserAccount: afterMfa(revokeSpendPermissionWithEndUserAccount),
  // MFA
  initiateMfaEnrollment,
  initiateMfaEnrollment2,
  submitMfaEnrollment,
  initiateMfaVerification,
  submitMfaVerification,
  recordMfaEnrollmentPrompted,
  // Delegation grants
  createDelegationForEndUser: afterMfa(createDelegationForEndUser),
  // The contract declares no 403 for these three: mfa_required comes as 401 (the client decides by errorType).
  createDelegationForEndUserAccount: afterMfa(createDelegationForEndUserAccount, 401),
  getDelegationForEndUserAccount,
  getDelegationForEndUser,
  revokeDelegationForEndUserAccount: afterMfa(revokeDelegationForEndUserAccount, 401),
  revokeDelegationForEndUser: afterMfa(revokeDelegationForEndUser, 401),
};
