/** EVM Accounts: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import { evmAccountOperations as accounts } from "./accounts.js";
import { createEvmEip7702Delegation, getEvmEip7702DelegationOperationById } from "./eip7702.js";
import { sendEvmTransaction, signEvmHash, signEvmMessage, signEvmTransaction, signEvmTypedData } from "./signing.js";

export const handlers: Handlers = {
  createEvmAccount: accounts.create,
  getEvmAccount: accounts.get,
  getEvmAccountByName: accounts.getByName,
  listEvmAccounts: accounts.list,
  updateEvmAccount: accounts.update,
  importEvmAccount: accounts.import,
  exportEvmAccount: accounts.export,
  exportEvmAccountByName: accounts.exportByName,
  signEvmHash,
  signEvmMessage,
  signEvmTypedData,
  signEvmTransaction,
  sendEvmTransaction,
  createEvmEip7702Delegation,
  getEvmEip7702DelegationOperationById,
};
