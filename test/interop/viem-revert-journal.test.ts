/**
 * Traces of failed EVM runs in the request journal: a reverting eth_call, a mined transaction that reverted
 * (through the node and through sendEvmTransaction) each show, on their own journal entry, the frame the failure
 * started in — its call depth, the contract, the revert data and its reason — even when a caller passed it up.
 */
import type { Sandbox } from "cdp-sandbox";
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  type PublicClient,
  serializeTransaction,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";
import { type Compiled, compileSolidity } from "#test/helpers/solidity.js";

interface Entry {
  sequence: number;
  operationId?: string;
  rpcMethod?: string;
  evmReverts?: Array<{ depth: number; address: string; error: string; data: string; reason?: string; transactionHash?: string }>;
}

let sandbox: Sandbox;
let node: PublicClient;
let wallet: WalletClient;
let contracts: Record<string, Compiled>;
let counter: `0x${string}`;
let forwarder: `0x${string}`;

async function deploy(name: string, args: unknown[]): Promise<`0x${string}`> {
  const { abi, bytecode } = contracts[name]!;
  const hash = await wallet.deployContract({ abi, bytecode, args, account: wallet.account!, chain: baseSepolia });
  return getAddress((await node.waitForTransactionReceipt({ hash })).contractAddress!);
}

beforeAll(async () => {
  contracts = compileSolidity(new URL("../fixtures/contracts/Vault.sol", import.meta.url).pathname);
  sandbox = await withSandbox({ seed: "viem-revert-journal", validateResponses: true });
  const nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
  node = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) }) as PublicClient;
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
  wallet = createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl) });
  counter = await deploy("Counter", [1n]);
  forwarder = await deploy("Forwarder", []);
});
afterAll(() => sandbox?.close());

/** The newest journal entries, through the admin API (the validated contract includes evmReverts). */
const journal = async (): Promise<Entry[]> => (await call(sandbox, "GET", "/_sandbox/requests?limit=20")).body.requests;

const failData = () => encodeFunctionData({ abi: contracts.Counter!.abi, functionName: "fail" });
const forwardFail = () => encodeFunctionData({ abi: contracts.Forwarder!.abi, functionName: "forward", args: [counter, failData()] });

describe("traces of a failed EVM run in the journal", () => {
  it("shows where a forwarded eth_call reverted: the inner contract at depth 1, its reason and data", async () => {
    const failed = await node.call({ to: forwarder, data: forwardFail() }).catch((e) => e);
    expect(failed).toBeInstanceOf(BaseError);
    const entry = (await journal()).find((e) => e.rpcMethod === "eth_call" && e.evmReverts);
    expect(entry?.evmReverts).toEqual([
      { depth: 1, address: counter.toLowerCase(), error: "revert", data: expect.stringMatching(/^0x08c379a0/), reason: "Counter: told to fail" },
    ]);
    // A call that succeeds carries no trace.
    await node.readContract({ address: counter, abi: contracts.Counter!.abi, functionName: "count" });
    const read = (await journal()).filter((e) => e.rpcMethod === "eth_call").sort((a, b) => b.sequence - a.sequence)[0];
    expect(read?.evmReverts).toBeUndefined();
  });

  it("shows a mined transaction's revert on the eth_sendRawTransaction entry, with its hash", async () => {
    const hash = await wallet.sendTransaction({ account: wallet.account!, chain: baseSepolia, to: counter, data: failData(), gas: 100_000n });
    expect((await node.waitForTransactionReceipt({ hash })).status).toBe("reverted");
    const entry = (await journal()).find((e) => e.rpcMethod === "eth_sendRawTransaction" && e.evmReverts);
    expect(entry?.evmReverts).toEqual([
      { depth: 0, address: counter.toLowerCase(), error: "revert", data: expect.any(String), reason: "Counter: told to fail", transactionHash: hash },
    ]);
  });

  it("shows a reverted sendEvmTransaction on the REST operation's entry", async () => {
    const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address, amount: parseEther("1").toString() });
    const transaction = serializeTransaction({ type: "eip1559", chainId: 84532, to: forwarder, data: forwardFail(), gas: 200_000n });
    const sent = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
      body: { network: "base-sepolia", transaction },
      wallet: true,
    });
    expect(sent.status).toBe(200);
    expect((await node.getTransactionReceipt({ hash: sent.body.transactionHash })).status).toBe("reverted");
    const entry = (await journal()).find((e) => e.operationId === "sendEvmTransaction");
    expect(entry?.evmReverts).toEqual([
      {
        depth: 1,
        address: counter.toLowerCase(),
        error: "revert",
        data: expect.any(String),
        reason: "Counter: told to fail",
        transactionHash: sent.body.transactionHash,
      },
    ]);
  });
});
