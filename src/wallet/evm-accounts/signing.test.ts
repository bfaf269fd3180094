/** Signatures are checked with viem, never with the sandbox's own code. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  keccak256,
  parseTransaction,
  recoverAddress,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  verifyTypedData,
  recoverTypedDataAddress,
  hashTypedData,
  isAddress,
  toHex,
  parseEther,
  type Hex,
} from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { CLIENT_EXAMPLE_SPENDER, lowercaseAddresses, mixedCaseTypedData } from "#test/helpers/typedData.js";

let sandbox: Sandbox;
let address: `0x${string}`;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "evm-signing" });
  address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
  for (const network of ["base", "base-sepolia"]) await fund(sandbox, { network, address, amount: "1000000000000000000" });
});
afterAll(() => sandbox.close());

const sign = (what: string, body: object) => call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/${what}`, { body, wallet: true });
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

const typedData = {
  domain: { name: "Ether Mail", version: "1", chainId: 84532, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
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
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: { from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" }, to: { name: "Bob", wallet: TO }, contents: "Hello, Bob!" },
} as const;

describe("EVM signing with the account's real key", () => {
  it("signs a raw 32-byte hash", async () => {
    const hash = keccak256(toHex("sandbox"));
    const res = await sign("sign", { hash });
    expect(res.status).toBe(200);
    expect(await recoverAddress({ hash, signature: res.body.signature })).toBe(address);
  });

  it("rejects a hash that is not 32 bytes", async () => {
    const res = await sign("sign", { hash: "0x1234" });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/32 bytes/);
  });

  it("signs an EIP-191 message", async () => {
    const res = await sign("sign/message", { message: "Hello from the sandbox ✓" });
    expect(res.status).toBe(200);
    expect(await recoverMessageAddress({ message: "Hello from the sandbox ✓", signature: res.body.signature })).toBe(address);
  });

  it("signs EIP-712 typed data", async () => {
    const res = await sign("sign/typed-data", typedData);
    expect(res.status).toBe(200);
    expect(await verifyTypedData({ ...typedData, address, signature: res.body.signature } as never)).toBe(true);
  });

  it("signs typed data whose addresses are mixed case with a wrong checksum, as the same addresses in lowercase", async () => {
    const sent = mixedCaseTypedData("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC");
    expect(isAddress(sent.domain.verifyingContract)).toBe(false);
    expect(isAddress(CLIENT_EXAMPLE_SPENDER)).toBe(false);
    expect(() => hashTypedData(sent as never)).toThrow(/Address .* is invalid/);
    const res = await sign("sign/typed-data", sent);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lowercase = lowercaseAddresses(sent);
    expect(await verifyTypedData({ ...lowercase, address, signature: res.body.signature } as never)).toBe(true);
    expect(await recoverTypedDataAddress({ ...lowercase, signature: res.body.signature } as never)).toBe(address);
  });

  it("still refuses an address-typed value that is not 40 hex digits", async () => {
    const sent = mixedCaseTypedData("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC");
    const res = await sign("sign/typed-data", { ...sent, message: { ...sent.message, cc: ["0x1234"] } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/EIP-712/);
  });

  it("refuses typed data whose primaryType is not defined", async () => {
    const res = await sign("sign/typed-data", { ...typedData, primaryType: "Nope" });
    expect(res.status).toBe(400);
  });

  const transactions: Array<[string, Parameters<typeof serializeTransaction>[0]]> = [
    [
      "EIP-1559",
      { type: "eip1559", chainId: 84532, nonce: 3, to: TO, value: parseEther("0.01"), gas: 21000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 8n },
    ],
    ["legacy", { type: "legacy", chainId: 84532, nonce: 1, to: TO, value: 1n, gas: 21000n, gasPrice: 10n ** 9n }],
    [
      "EIP-2930",
      { type: "eip2930", chainId: 84532, nonce: 2, to: TO, value: 1n, gas: 30000n, gasPrice: 10n ** 9n, accessList: [{ address: TO, storageKeys: [] }] },
    ],
  ];
  it("signs an EIP-7702 transaction carrying an authorization", async () => {
    const { privateKeyToAccount, generatePrivateKey } = await import("viem/accounts");
    const authorization = await privateKeyToAccount(generatePrivateKey()).signAuthorization({ address: TO, chainId: 84532, nonce: 0 });
    const tx = serializeTransaction({
      type: "eip7702",
      chainId: 84532,
      nonce: 4,
      to: TO,
      value: 0n,
      gas: 100000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 8n,
      authorizationList: [authorization],
    });
    const res = await sign("sign/transaction", { transaction: tx });
    expect(res.status).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: res.body.signedTransaction })).toBe(address);
    expect(parseTransaction(res.body.signedTransaction as Hex).type).toBe("eip7702");
  });

  it.each(transactions)("signs a %s transaction", async (_kind, tx) => {
    const res = await sign("sign/transaction", { transaction: serializeTransaction(tx) });
    expect(res.status).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: res.body.signedTransaction })).toBe(address);
    const parsed = parseTransaction(res.body.signedTransaction as Hex);
    expect(parsed.to?.toLowerCase()).toBe(TO.toLowerCase());
    expect(parsed.nonce).toBe(tx.nonce);
  });

  it("answers 400 malformed_transaction for bytes that are not a transaction", async () => {
    const res = await sign("sign/transaction", { transaction: "0x02deadbeef" });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("malformed_transaction");
  });

  it("sends a transaction: fills nonce, gas and fees, returns a fresh hash per send", async () => {
    const unsigned = serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 5n });
    const first = await sign("send/transaction", { network: "base-sepolia", transaction: unsigned });
    const second = await sign("send/transaction", { network: "base-sepolia", transaction: unsigned });
    expect(first.status).toBe(200);
    expect(first.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(second.body.transactionHash).not.toBe(first.body.transactionHash); // next nonce
  });

  it("sends on the network's chain whatever chain id the transaction carries (the client always puts 1)", async () => {
    const res = await sign("send/transaction", { network: "base", transaction: serializeTransaction({ type: "eip1559", chainId: 1, to: TO, value: 1n }) });
    expect(res.status).toBe(200);
  });

  it("404s for an account of no one", async () => {
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/0x${"ab".repeat(20)}/sign/message`, { body: { message: "x" }, wallet: true });
    expect(res.status).toBe(404);
  });
});

describe("EIP-7702 delegation", () => {
  it("creates an operation that is SUBMITTED, then COMPLETED when sandbox time passes", async () => {
    const created = await sign("eip7702/delegation", { network: "base-sepolia" });
    expect(created.status).toBe(201);
    const id = created.body.delegationOperationId;
    sandbox.clock.freeze(true);
    try {
      const path = `/platform/v2/evm/eip7702/delegation-operations/${id}`;
      const pending = await call(sandbox, "GET", path);
      expect(pending.body).toMatchObject({ delegationOperationId: id, status: "SUBMITTED", network: "base-sepolia" });
      expect(pending.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      sandbox.clock.advance(2000);
      expect((await call(sandbox, "GET", path)).body.status).toBe("COMPLETED");
    } finally {
      sandbox.clock.freeze(false);
    }
  });

  it("404s for an unknown operation", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/evm/eip7702/delegation-operations/0b1f3c9e-1234-4abc-8def-1234567890ab");
    expect(res.status).toBe(404);
  });
});
