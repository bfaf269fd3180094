/** Solana Accounts: every operation of the area, by operationId. */
import type { Handlers } from "../types.js";
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
import { sendSolanaTransaction, signSolanaMessage, signSolanaTransaction } from "./signing.js";

export const handlers: Handlers = {
  createSolanaAccount,
  getSolanaAccount,
  getSolanaAccountByName,
  listSolanaAccounts,
  updateSolanaAccount,
  importSolanaAccount,
  exportSolanaAccount,
  exportSolanaAccountByName,
  signSolanaMessage,
  signSolanaTransaction,
  sendSolanaTransaction,
};
