/** EVM Smart Accounts: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import { createEvmSmartAccount, getEvmSmartAccount, getEvmSmartAccountByName, listEvmSmartAccounts, updateEvmSmartAccount } from "./accounts.js";
import { getUserOperation, prepareAndSendUserOperation, prepareUserOperation, sendUserOperation } from "./userOperations.js";

export const handlers: Handlers = {
  createEvmSmartAccount,
  getEvmSmartAccount,
  getEvmSmartAccountByName,
  listEvmSmartAccounts,
  updateEvmSmartAccount,
  prepareUserOperation,
  sendUserOperation,
  getUserOperation,
  prepareAndSendUserOperation,
};
