/**
 * The official client's EVM account flows against the sandbox, each result
 * checked with viem. One CdpClient per file (the client is process-wide).
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, parseEther, recoverAddress, recoverMessageAddress, recoverTransactionAddress, toHex, verifyTypedData, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-evm" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

describe("@coinbase/cdp-sdk EVM accounts", () => {
  it("creates, gets by address and by name, lists and renames", async () => {
    const account = await cdp.evm.createAccount({ name: "sdk-main" });
    expect((await cdp.evm.getAccount({ address: account.address })).name).toBe("sdk-main");
    expect((await cdp.evm.getAccount({ name: "sdk-main" })).address).toBe(account.address);
    const listed = await cdp.evm.listAccounts();
    expect(listed.accounts.map((a) => a.address)).toContain(account.address);
    const renamed = await cdp.evm.updateAccount({ address: account.address, update: { name: "sdk-renamed" } });
    expect(renamed.name).toBe("sdk-renamed");
  });

  it("getOrCreateAccount creates once, even when ten callers race on one name", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => cdp.evm.getOrCreateAccount({ name: "raced" })));
    expect(new Set(results.map((a) => a.address)).size).toBe(1);
    const listed = await cdp.evm.listAccounts({ pageSize: 100 });
    expect(listed.accounts.filter((a) => a.name === "raced")).toHaveLength(1);
  });

  it("signs a hash, a message, typed data and a transaction, all verifiable with viem", async () => {
    const account = await cdp.evm.createAccount();
    const hash = keccak256(toHex("hash me"));
    const { signature } = await cdp.evm.signHash({ address: account.address, hash });
    expect(await recoverAddress({ hash, signature })).toBe(account.address);

    const signedMessage = await account.signMessage({ message: "hello sandbox" });
    expect(await recoverMessageAddress({ message: "hello sandbox", signature: signedMessage })).toBe(account.address);

    const typed = {
      domain: { name: "Sandbox", version: "1", chainId: 84532, verifyingContract: TO },
      types: {
        Order: [
          { name: "amount", type: "uint256" },
          { name: "owner", type: "address" },
        ],
      },
      primaryType: "Order" as const,
      message: { amount: 42n, owner: TO },
    };
    const typedSignature = await account.signTypedData(typed);
    expect(await verifyTypedData({ ...typed, address: account.address, signature: typedSignature })).toBe(true);

    const serialized = serializeTransaction({
      type: "eip1559",
      chainId: 84532,
      to: TO,
      value: parseEther("0.001"),
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 8n,
      nonce: 0,
    });
    const { signature: signedTx } = await cdp.evm.signTransaction({ address: account.address, transaction: serialized });
    expect(await recoverTransactionAddress({ serializedTransaction: signedTx as `0x02${string}` })).toBe(account.address);
  });

  it("signs a message and typed data through cdp.evm directly, verifiable with viem", async () => {
    const account = await cdp.evm.createAccount();
    const { signature } = await cdp.evm.signMessage({ address: account.address, message: "direct message" });
    expect(await recoverMessageAddress({ message: "direct message", signature: signature as `0x${string}` })).toBe(account.address);
    const typed = {
      domain: { name: "Permit", version: "1", chainId: 84532, verifyingContract: TO },
      types: {
        Permit: [
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "memo", type: "string" },
        ],
      },
      primaryType: "Permit" as const,
      message: { spender: TO, value: 7n, memo: "ünïcode ✓" },
    };
    const direct = await cdp.evm.signTypedData({ address: account.address, ...typed });
    expect(await verifyTypedData({ ...typed, address: account.address, signature: direct.signature as `0x${string}` })).toBe(true);
  });

  it("sends a transaction request and gets its hash", async () => {
    const account = await cdp.evm.createAccount();
    await cdp.evm.requestFaucet({ address: account.address, network: "base-sepolia", token: "eth" });
    const { transactionHash } = await cdp.evm.sendTransaction({
      address: account.address,
      network: "base-sepolia",
      transaction: { to: TO, value: parseEther("0.00005") },
    });
    expect(transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("imports with the sandbox's encryptionPublicKey and exports the same key back", async () => {
    const key = generatePrivateKey();
    const imported = await cdp.evm.importAccount({ privateKey: key, name: "sdk-imported", encryptionPublicKey: sandbox.importKeyPem });
    expect(imported.address).toBe(privateKeyToAccount(key).address);
    const exported = await cdp.evm.exportAccount({ address: imported.address });
    expect(`0x${exported.replace(/^0x/, "")}`).toBe(key);
    const byName = await cdp.evm.exportAccount({ name: "sdk-imported" });
    expect(`0x${byName.replace(/^0x/, "")}`).toBe(key);
  });

  it("surfaces 404 and 409 as the client's APIError", async () => {
    await expect(cdp.evm.getAccount({ name: "nobody" })).rejects.toMatchObject({ statusCode: 404, errorType: "not_found" });
    await cdp.evm.createAccount({ name: "taken" });
    await expect(cdp.evm.createAccount({ name: "taken" })).rejects.toMatchObject({ statusCode: 409, errorType: "already_exists" });
  });
});
