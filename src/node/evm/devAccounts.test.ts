/**
 * Dev accounts: the node holds the keys of Anvil's and Hardhat's well-known accounts, so a wallet client with a
 * JSON-RPC account (as wagmi's mock connector uses) sends and signs through the node. Signatures are compared with
 * the sandbox's own libsecp256k1 signer given the well-known private key, and recovered with viem.
 */
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  recoverMessageAddress,
  recoverTypedDataAddress,
  type PublicClient,
  type WalletClient,
} from "viem";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { evmAccountOf } from "../../crypto/evm.js";
import { call, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

/** Anvil's and Hardhat's first account and its key (public knowledge: the mnemonic's index 0). */
const FIRST = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as const;
const FIRST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as const;
const SECOND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const TO = "0x00000000000000000000000000000000000000b0" as const;

const typedData = {
  domain: { name: "Sandbox", version: "1", chainId: 84532, verifyingContract: TO },
  types: {
    Order: [
      { name: "amount", type: "uint256" },
      { name: "owner", type: "address" },
    ],
  },
  primaryType: "Order",
  message: { amount: 5n, owner: SECOND },
} as const;

async function rpc(url: string, method: string, params: unknown[] = []) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

describe("a sandbox with dev accounts", () => {
  let sandbox: Sandbox;
  let url: string;
  let node: PublicClient;
  let wallet: WalletClient;
  beforeAll(async () => {
    sandbox = await withSandbox({ devAccounts: 3 });
    url = await nodeUrlFor(sandbox, "base-sepolia");
    node = createPublicClient({ chain: baseSepolia, transport: http(url), cacheTime: 0 }) as PublicClient;
    wallet = createWalletClient({ chain: baseSepolia, transport: http(url), account: FIRST });
  });
  afterAll(() => sandbox.close());

  it("lists the well-known accounts, each holding 10,000 ETH on the ledger the REST API reads", async () => {
    expect(sandbox.devAccounts).toEqual([FIRST, SECOND, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"]);
    expect(await wallet.getAddresses()).toEqual(sandbox.devAccounts);
    expect(await node.getBalance({ address: SECOND })).toBe(parseEther("10000"));
    const rest = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${SECOND}`);
    expect(rest.body.balances[0].amount.amount).toBe(parseEther("10000").toString());
  });

  it("sends a transaction for a dev account (eth_sendTransaction), signed with its key", async () => {
    const hash = await wallet.sendTransaction({ account: FIRST, chain: baseSepolia, to: TO, value: 1234n });
    const receipt = await node.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(FIRST.toLowerCase());
    expect(await node.getBalance({ address: TO })).toBe(1234n);
    const tx = await node.getTransaction({ hash });
    expect(tx.nonce).toBe(0);
  });

  it("signs messages and typed data as the account's own key does", async () => {
    const own = evmAccountOf(FIRST_KEY);
    const message = await wallet.signMessage({ account: FIRST, message: "hello sandbox" });
    expect(message).toBe(await own.signMessage({ message: "hello sandbox" }));
    expect(await recoverMessageAddress({ message: "hello sandbox", signature: message })).toBe(FIRST);
    const typed = await wallet.signTypedData({ account: FIRST, ...typedData });
    expect(typed).toBe(await own.signTypedData(typedData));
    expect(await recoverTypedDataAddress({ ...typedData, signature: typed })).toBe(FIRST);
  });

  it("refuses to sign for an account it holds no key for, and for bad typed data", async () => {
    const unknown = await rpc(url, "personal_sign", ["0x68656c6c6f", TO]);
    expect(unknown.error?.code).toBe(-32000);
    expect(unknown.error?.message).toMatch(/unknown account/);
    const bad = await rpc(url, "eth_signTypedData_v4", [FIRST, "{not json"]);
    expect(bad.error?.code).toBe(-32602);
    const badFrom = await rpc(url, "eth_sendTransaction", [{ from: "0x12", to: TO }]);
    expect(badFrom.error?.code).toBe(-32602);
    expect(badFrom.error?.message).toMatch(/params\[0\]\.from must be a 0x-prefixed 20-byte address/);
  });

  it("credits a project made later at its node's first call, and again after the project is reset", async () => {
    const other = await sandbox.createProject("later");
    const otherUrl = await nodeUrlFor(sandbox, "base-sepolia", other);
    const reader = createPublicClient({ chain: baseSepolia, transport: http(otherUrl), cacheTime: 0 });
    expect(await reader.getBalance({ address: FIRST })).toBe(parseEther("10000"));
    await rpc(otherUrl, "anvil_setBalance", [FIRST, "0x1"]);
    await rpc(otherUrl, "anvil_reset", []);
    expect(await reader.getBalance({ address: FIRST })).toBe(parseEther("10000"));
  });
});

describe("dev accounts from the init file, and their bounds", () => {
  it("takes devAccounts from the init file", async () => {
    const sandbox = await withSandbox({ init: { devAccounts: 2 } });
    try {
      expect((await rpc(await nodeUrlFor(sandbox, "base"), "eth_accounts")).result).toEqual([FIRST, SECOND]);
    } finally {
      await sandbox.close();
    }
  });

  it("refuses more than 100, before anything starts", async () => {
    await expect(startSandbox({ port: 0, devAccounts: 101 })).rejects.toThrow(/devAccounts must be a whole number from 0 to 100, got 101/);
    await expect(startSandbox({ port: 0, devAccounts: 1.5 })).rejects.toThrow(/devAccounts must be a whole number/);
  });

  it("without them holds no keys: no accounts, and a send is refused", async () => {
    const sandbox = await withSandbox();
    try {
      const url = await nodeUrlFor(sandbox, "base-sepolia");
      expect((await rpc(url, "eth_accounts")).result).toEqual([]);
      const send = await rpc(url, "eth_sendTransaction", [{ from: FIRST, to: TO, value: "0x1" }]);
      expect(send.error?.code).toBe(-32000);
      expect(send.error?.message).toMatch(/unknown account/);
    } finally {
      await sandbox.close();
    }
  });
});
