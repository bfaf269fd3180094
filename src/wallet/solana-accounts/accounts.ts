/**
 * Solana account resources: create, read, list, update, import and export, as both chains do them
 * (server-accounts/operations.ts), with a Solana key: an ed25519 seed from the injected randomness, or an
 * imported 32-byte seed.
 */
import { generateSolanaKey, solanaKeyFromSeed } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { solanaAccountRecords } from "../records/solanaAccounts.js";
import { serverAccountOperations } from "../server-accounts/operations.js";

/** The operations of the area's handlers.ts that both chains share. */
export const solanaAccountOperations = serverAccountOperations({
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
