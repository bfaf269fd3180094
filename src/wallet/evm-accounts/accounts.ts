/**
 * EVM account resources: create, read, list, rename/attach a policy, import and export, as both chains do them
 * (server-accounts/operations.ts), with an EVM key: a real secp256k1 key from the injected randomness, or an
 * imported one that must be a valid secp256k1 scalar.
 */
import { bytesToHex } from "viem";
import { evmAddressOf, generateEvmPrivateKey, isValidEvmPrivateKey } from "../../crypto/evm.js";
import { apiError } from "../../errors/catalogue.js";
import { evmAccountRecords } from "../records/evmAccounts.js";
import { serverAccountOperations } from "../server-accounts/operations.js";

const keyed = (privateKey: `0x${string}`) => ({ address: evmAddressOf(privateKey), privateKey });

/** The operations of the area's handlers.ts that both chains share. */
export const evmAccountOperations = serverAccountOperations({
  records: evmAccountRecords,
  list: "evm-accounts",
  newKey: (random) => keyed(generateEvmPrivateKey(random)),
  importedKey(raw) {
    if (!isValidEvmPrivateKey(raw)) {
      throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; an EVM private key is 32 bytes and a valid secp256k1 scalar.`);
    }
    return keyed(bytesToHex(raw));
  },
  exportedKey: (record) => Buffer.from(record.privateKey.slice(2), "hex"),
});
