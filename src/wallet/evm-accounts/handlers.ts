/** EVM Accounts: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import {
  createEvmAccount,
  exportEvmAccount,
  exportEvmAccountByName,
  getEvmAccount,
  getEvmAccountByName,
  importEvmAccount,
  listEvmAccounts,
  updateEvmAccount,
} from "./accounts.js";
import { createEvmEip7702Delegation, getEvmEip7702DelegationOperationById } from "./eip7702.js";
import { sendEvmTransaction, signEvmHash, signEvmMessage, signEvmTransaction, signEvmTypedData } from "./signing.js";

export const handlers: Handlers = {
  createEvmAccount,
  getEvmAccount,
  getEvmAccountByName,
  listEvmAccounts,
  updateEvmAccount,
  importEvmAccount,
  exportEvmAccount,
  exportEvmAccountByName,
  signEvmHash,
  signEvmMessage,
  signEvmTypedData,
  signEvmTransaction,
  sendEvmTransaction,
  createEvmEip7702Delegation,
  getEvmEip7702DelegationOperationById,
};
