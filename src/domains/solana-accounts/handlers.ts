/** Solana Accounts: every operation of the area, by operationId. */
import type { HandlerMap } from "../types.js";
import {
  createSolanaAccount,
  exportSolanaAccount,
  exportSolanaAccountByName,
  getSolanaAccount,
  getSolanaAccountByName,
  importSolanaAccount,
  listSolanaAccounts,
  updateSolanaAccount,
} from "./accounts.js";
import { sendSolanaTransaction, signSolanaMessage, signSolanaTransactionHandler } from "./signing.js";

export const solanaAccountHandlers: HandlerMap = {
  createSolanaAccount,
  getSolanaAccount,
  getSolanaAccountByName,
  listSolanaAccounts,
  updateSolanaAccount,
  importSolanaAccount,
  exportSolanaAccount,
  exportSolanaAccountByName,
  signSolanaMessage,
  signSolanaTransaction: signSolanaTransactionHandler,
  sendSolanaTransaction,
};
