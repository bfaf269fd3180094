/**
 * EVM accounts of a project (accounts.ts holds what both chains share). The key is a secp256k1 private key;
 * records are keyed by lowercase address so lookups accept any casing, while `address` itself is EIP-55.
 */
import type { Hex } from "viem";
import { type AccountRecord, accountRecords } from "./accounts.js";

export interface EvmAccountRecord extends AccountRecord {
  address: `0x${string}`;
  privateKey: Hex;
}

export const evmAccountRecords = accountRecords<EvmAccountRecord>({
  collection: "evmAccounts",
  label: "EVM",
  aLabel: "An EVM",
  keyOf: (address) => address.toLowerCase(),
});

export const evmAccounts = evmAccountRecords.all;
export const findEvmAccount = evmAccountRecords.find;
export const findEvmAccountByName = evmAccountRecords.findByName;
