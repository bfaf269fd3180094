/**
 * EIP-712 typed data whose addresses are written in mixed case with a wrong
 * EIP-55 checksum (as the official client's own examples write them), and
 * the same typed data with those addresses in lowercase, which encodes
 * identically and which viem accepts for verification.
 */
import { getAddress } from "viem";

/** The spender of the official client's signTypedData example: mixed case, not its checksum. */
export const CLIENT_EXAMPLE_SPENDER = "0xFfFfFfFFfFFfFFfFFfFFFFFffFFFffffFfFFFfFf";

/** `address` with the case of every letter of its checksummed form swapped: mixed case, wrong checksum. */
export function wrongChecksum(address: string): `0x${string}` {
  const swapped = getAddress(address)
    .slice(2)
    .replace(/[a-fA-F]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
  return `0x${swapped}`;
}

/** A deep copy with every 40-hex-digit string in lowercase (the fixture's only such strings are addresses). */
export function lowercaseAddresses<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, v) => (typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : v));
}

/**
 * Typed data with wrong-checksum addresses in the domain's verifyingContract and in message fields:
 * a nested struct, an array of structs and an array of addresses.
 */
export function mixedCaseTypedData(verifyingContract: string) {
  return {
    domain: { name: "Ether Mail", version: "1", chainId: 84532, verifyingContract: wrongChecksum(verifyingContract) },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      Person: [
        { name: "name", type: "string" },
        { name: "wallet", type: "address" },
      ],
      Mail: [
        { name: "from", type: "Person" },
        { name: "to", type: "Person[]" },
        { name: "cc", type: "address[]" },
        { name: "contents", type: "string" },
      ],
    },
    primaryType: "Mail",
    message: {
      from: { name: "Cow", wallet: CLIENT_EXAMPLE_SPENDER },
      to: [{ name: "Bob", wallet: wrongChecksum("0x70997970C51812dc3A010C7d01b50e0d17dc79C8") }],
      cc: [wrongChecksum("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")],
      contents: "Hello, Bob!",
    },
  };
}
