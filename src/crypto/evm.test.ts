/**
 * The sandbox's EVM signer (libsecp256k1) against viem's own private-key
 * account (noble): byte-identical signatures for hashes, messages, typed
 * data, transactions of every type and EIP-7702 authorizations, each also
 * recovered to the account's address with viem.
 */
import {
  getAddress,
  hashTypedData,
  keccak256,
  parseEther,
  parseTransaction,
  recoverAddress,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  toHex,
  verifyTypedData,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { verifyAuthorization } from "viem/utils";
import { describe, expect, it } from "vitest";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { evmAccountOf, lowercaseTypedDataAddresses, transactionSender } from "./evm.js";

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const typedData = {
  domain: { name: "Sandbox", version: "1", chainId: 84532, verifyingContract: TO },
  types: {
    Order: [
      { name: "amount", type: "uint256" },
      { name: "owner", type: "address" },
      { name: "memo", type: "string" },
    ],
  },
  primaryType: "Order" as const,
  message: { amount: 42n, owner: TO, memo: "ünïcode" },
};
const transactions = [
  { type: "legacy" as const, chainId: 84532, nonce: 1, to: TO, value: parseEther("0.01"), gas: 21000n, gasPrice: 10n ** 9n },
  {
    type: "eip2930" as const,
    chainId: 84532,
    nonce: 2,
    to: TO,
    value: 1n,
    gas: 30000n,
    gasPrice: 10n ** 9n,
    accessList: [{ address: TO, storageKeys: [keccak256(toHex("slot"))] }],
  },
  {
    type: "eip1559" as const,
    chainId: 8453,
    nonce: 3,
    to: TO,
    value: 0n,
    data: "0xa9059cbb" as const,
    gas: 52000n,
    maxFeePerGas: 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 8n,
  },
];

describe("the EVM signer", () => {
  it("signs a 1 MB message as viem does, hashing it a piece per turn of the event loop", async () => {
    const key = generatePrivateKey();
    const message = "m".repeat(1_000_000);
    const { result, turns } = await turnsWhile(() => evmAccountOf(key).signMessage({ message }));
    expect(result).toBe(await privateKeyToAccount(key).signMessage({ message }));
    // 256 KiB a piece through the native hash (64 KiB through noble's where it does not load): 4 pieces or more, the
    // loop turning between each two; in one piece it never turned.
    expect(turns).toBeGreaterThanOrEqual(3);
    // Raw bytes of the same length, as an array not a Buffer (the native hash takes Buffers only).
    const raw = new Uint8Array(1_000_000).fill(7);
    expect(await evmAccountOf(key).signMessage({ message: { raw } })).toBe(await privateKeyToAccount(key).signMessage({ message: { raw } }));
  });

  for (let round = 0; round < 5; round++) {
    it(`signs exactly as viem's private-key account does (key ${round + 1})`, async () => {
      const key = generatePrivateKey();
      const ours = evmAccountOf(key);
      const viems = privateKeyToAccount(key);
      expect(ours.address).toBe(viems.address);
      expect(ours.publicKey).toBe(viems.publicKey);

      const hash = keccak256(toHex(`hash ${round}`));
      const signedHash = await ours.sign!({ hash });
      expect(signedHash).toBe(await viems.sign!({ hash }));
      expect(await recoverAddress({ hash, signature: signedHash })).toBe(viems.address);

      const message = `message ${round}`;
      const signedMessage = await ours.signMessage({ message });
      expect(signedMessage).toBe(await viems.signMessage({ message }));
      expect(await recoverMessageAddress({ message, signature: signedMessage })).toBe(viems.address);
      // Multi-byte UTF-8 (the prefix counts bytes, not characters), an empty message, and raw bytes as hex and as an array.
      for (const other of ["ünïcode ✓ 𝄞", "", { raw: toHex(`raw ${round}`) }, { raw: new TextEncoder().encode(`bytes ${round}`) }]) {
        expect(await ours.signMessage({ message: other })).toBe(await viems.signMessage({ message: other }));
      }

      const signedTyped = await ours.signTypedData(typedData);
      expect(signedTyped).toBe(await viems.signTypedData(typedData));
      expect(await verifyTypedData({ ...typedData, address: viems.address, signature: signedTyped })).toBe(true);

      for (const tx of transactions) {
        const signed = await ours.signTransaction(tx);
        expect(signed).toBe(await viems.signTransaction(tx));
        expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(viems.address);
      }

      const authorization = { address: TO, chainId: 84532, nonce: round };
      const auth = await ours.signAuthorization!(authorization);
      expect(auth).toEqual(await viems.signAuthorization!(authorization));
      expect(await verifyAuthorization({ address: viems.address, authorization: auth })).toBe(true);
    });
  }
});

describe("the sender of a signed transaction", () => {
  it("is the address viem recovers, for every transaction type and for legacy ones with and without EIP-155", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    // A legacy transaction without a chain id is signed with v 27/28 (before EIP-155).
    const preEip155 = { type: "legacy" as const, nonce: 0, to: TO, value: 1n, gas: 21000n, gasPrice: 10n ** 9n };
    for (const tx of [...transactions, preEip155, { ...transactions[2]!, chainId: 2 ** 40 }]) {
      for (const signer of [account, other]) {
        const signed = await signer.signTransaction(tx);
        const sender = transactionSender(parseTransaction(signed));
        expect(sender).toBe(signer.address);
        expect(sender).toBe(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` }));
      }
    }
  });

  it("is refused for an unsigned transaction and for a signature that recovers another key", async () => {
    const tx = transactions[2]!;
    expect(() => transactionSender(parseTransaction(serializeTransaction(tx)))).toThrow(/not signed/);
    const signed = await privateKeyToAccount(generatePrivateKey()).signTransaction(tx);
    const parsed = parseTransaction(signed);
    const flipped = { ...parsed, yParity: parsed.yParity === 0 ? 1 : 0 };
    expect(transactionSender(flipped as never)).not.toBe(transactionSender(parsed));
    expect(() => transactionSender({ ...parsed, r: `0x${"ff".repeat(32)}` } as never)).toThrow();
  });
});

describe("typed data addresses in any letter case", () => {
  const A = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
  const B = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  /** Swapped letter case: mixed case with a wrong EIP-55 checksum. */
  const wrong = (address: string) => address.replace(/[a-fA-F]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
  const typed = (write: (address: string) => string) => ({
    domain: { name: "Case", chainId: 1, verifyingContract: write(A) },
    types: {
      Leaf: [
        { name: "who", type: "address" },
        { name: "label", type: "string" },
      ],
      Root: [
        { name: "leaf", type: "Leaf" },
        { name: "leaves", type: "Leaf[2]" },
        { name: "grid", type: "address[][]" },
        { name: "owner", type: "address" },
      ],
    },
    primaryType: "Root",
    message: {
      leaf: { who: write(B), label: wrong(A) },
      leaves: [
        { who: write(A), label: "x" },
        { who: write(B), label: "y" },
      ],
      grid: [[write(A)], [write(B), write(A)]],
      owner: write(B),
    },
  });

  it("lowercases address-typed values of the domain and, through structs and arrays, of the message; nothing else", () => {
    const normalised = lowercaseTypedDataAddresses(typed(wrong));
    // The string field holding an address keeps its letters; address fields are lowercase.
    expect(normalised).toEqual(typed((a) => a.toLowerCase()));
    expect(normalised.message.leaf).toEqual({ who: B.toLowerCase(), label: wrong(A) });
  });

  it("hashes as viem hashes the checksummed addresses", () => {
    const checksummed = typed(getAddress);
    expect(() => hashTypedData(typed(wrong) as never)).toThrow(/is invalid/);
    expect(hashTypedData(lowercaseTypedDataAddresses(typed(wrong)) as never)).toBe(hashTypedData(checksummed as never));
  });
});
