/**
 * Solana account resources: create, read, list, update, import and export, as both chains do them
 * (server-accounts/operations.ts), with a Solana key: an ed25519 seed from the injected randomness, or an
 * imported 32-byte seed.
 */
import { generateSolanaKey, solanaKeyFromSeed } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { solanaAccountRecords } from "../records/solanaAccounts.js";
import { serverAccountOperations } from "../server-accounts/operations.js";
import type { Handler } from "../types.js";

const solana = serverAccountOperations({
  records: solanaAccountRecords,
  list: "solana-accounts",
  newKey: generateSolanaKey,
  importedKey(raw) {
    // The client sends the 32-byte seed (it truncates 64-byte secret keys); accept the 64-byte form too.
    if (raw.length !== 32 && raw.length !== 64)
      throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; a Solana private key is a 32-byte seed.`);
    return solanaKeyFromSeed(raw.subarray(0, 32));
  },
  exportedKey: (record) => Buffer.from(record.seedHex, "hex"),
});

export const createSolanaAccount: Handler<"createSolanaAccount"> = solana.create;
export const getSolanaAccount: Handler<"getSolanaAccount"> = solana.get;
export const getSolanaAccountByName: Handler<"getSolanaAccountByName"> = solana.getByName;
export const listSolanaAccounts: Handler<"listSolanaAccounts"> = solana.list;
export const updateSolanaAccount: Handler<"updateSolanaAccount"> = solana.update;
export const importSolanaAccount: Handler<"importSolanaAccount"> = solana.import;
export const exportSolanaAccount: Handler<"exportSolanaAccount"> = solana.export;
export const exportSolanaAccountByName: Handler<"exportSolanaAccountByName"> = solana.exportByName;
