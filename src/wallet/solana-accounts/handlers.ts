/** Solana Accounts: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
import { solanaAccountOperations as accounts } from "./accounts.js";
import { sendSolanaTransaction, signSolanaMessage, signSolanaTransaction } from "./signing.js";

export const handlers: Handlers = {
  createSolanaAccount: accounts.create,
  getSolanaAccount: accounts.get,
  getSolanaAccountByName: accounts.getByName,
  listSolanaAccounts: accounts.list,
  updateSolanaAccount: accounts.update,
  importSolanaAccount: accounts.import,
  exportSolanaAccount: accounts.export,
  exportSolanaAccountByName: accounts.exportByName,
  signSolanaMessage,
  signSolanaTransaction,
  sendSolanaTransaction,
};
