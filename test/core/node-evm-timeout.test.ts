/**
 * The node bounds one request's read-only EVM work by time, as geth bounds eth_call with --rpc.evmtimeout: through
 * viem, an eth_call, eth_estimateGas or the bundler's eth_estimateUserOperationGas that runs past the budget answers geth's -32000 "execution aborted (timeout =
 * …)" naming the setting to raise; in a batch, the calls after it answer -32002 "request timed out", not run; the
 * next request runs again; a WebSocket message has a budget of its own, as an HTTP request has; a transaction with
 * the same loop is still mined, out of gas, whatever the budget.
 * Deterministic: the budget is 1 ms against an endless loop that burns 10M gas (hundreds of milliseconds of pauses
 * on any machine); no assertion is about how long anything took.
 */
import type { Sandbox } from "cdp-sandbox";
import { createPublicClient, createWalletClient, encodeFunctionData, type Hex, http, parseAbi, parseEther, toHex } from "viem";
import { entryPoint06Address } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { getHttpRpcClient } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWebSocket } from "#test/helpers/webSocket.js";
import { call, fund, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

// JUMPDEST; PUSH1 0; JUMP — forever, run as the init code of a deployless call.
const ENDLESS: Hex = "0x5b600056";
// PUSH1 1; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN — returns one word at once.
const QUICK: Hex = "0x600160005260206000f3";
const ONE = `0x${"00".repeat(31)}01`;

let sandbox: Sandbox;
let nodeUrl: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "node-evm-timeout", evmTimeoutMs: 1 });
  nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
});
afterAll(() => sandbox?.close());

const node = () => createPublicClient({ chain: baseSepolia, transport: http(nodeUrl, { timeout: 60_000 }) });
const aborted = /execution aborted \(timeout = 1ms\).*--evm-timeout/;

describe("the time budget of the node's read-only EVM work", () => {
  it("answers an eth_call that runs past it with geth's -32000 'execution aborted', naming the setting, and the next call runs", async () => {
    const error = await node()
      .call({ data: ENDLESS, gas: 10_000_000n })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(error?.message).toMatch(aborted);
    // On the wire, geth's code and words first.
    const rpc = getHttpRpcClient(nodeUrl);
    const raw = (await rpc.request({ body: { jsonrpc: "2.0", id: 7, method: "eth_call", params: [{ data: ENDLESS }, "latest"] } })) as {
      id: number;
      error?: { code: number; message: string };
    };
    expect(raw.id).toBe(7);
    expect(raw.error?.code).toBe(-32000);
    expect(raw.error?.message.startsWith("execution aborted (timeout = 1ms): ")).toBe(true);
    // Nothing is held: the project's EVM answers the next call (too short to reach a pause, so under any budget).
    expect((await node().call({ data: QUICK })).data).toBe(ONE);
  }, 60_000);

  it("cuts eth_estimateGas the same way", async () => {
    const from = privateKeyToAccount(generatePrivateKey()).address;
    const error = await node()
      .estimateGas({ account: from, data: ENDLESS, gas: 10_000_000n })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(error?.message).toMatch(aborted);
    expect(await node().estimateGas({ account: from, data: QUICK })).toBeGreaterThan(21_000n);
  }, 60_000);

  it("cuts the bundler's estimate of a user operation whose call loops, changing nothing", async () => {
    // A contract whose code is the endless loop, deployed by a transaction (mined: never under the budget).
    const deployer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: deployer.address, amount: parseEther("1").toString() });
    const wallet = createWalletClient({ account: deployer, chain: baseSepolia, transport: http(nodeUrl) });
    // PUSH1 4, DUP1, PUSH1 11, PUSH1 0, CODECOPY, PUSH1 0, RETURN, then the runtime: the loop.
    const creation: Hex = `0x600480600b6000396000f3${ENDLESS.slice(2)}`;
    const raw = await wallet.signTransaction({
      data: creation,
      gas: 200_000n,
      nonce: 0,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 0n,
      chain: baseSepolia,
    });
    const receipt = await node().getTransactionReceipt({ hash: await node().sendRawTransaction({ serializedTransaction: raw }) });
    const looping = receipt.contractAddress!;
    const owner = privateKeyToAccount(generatePrivateKey());
    const sender = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] } })).body.address as `0x${string}`;
    const callData = encodeFunctionData({
      abi: parseAbi(["function execute(address target, uint256 value, bytes data)"]),
      functionName: "execute",
      args: [looping, 0n, "0x"],
    });
    const operation = { sender, nonce: "0x0", initCode: "0x", callData, callGasLimit: toHex(100_000), verificationGasLimit: toHex(150_000) };
    const rpc = getHttpRpcClient(nodeUrl);
    const answer = (await rpc.request({
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "eth_estimateUserOperationGas",
        params: [
          {
            ...operation,
            preVerificationGas: toHex(50_000),
            maxFeePerGas: toHex(2_000_000),
            maxPriorityFeePerGas: "0x0",
            paymasterAndData: "0x",
            signature: "0x",
          },
          entryPoint06Address,
        ],
      },
      timeout: 60_000,
    })) as { error?: { code: number; message: string } };
    expect(answer.error).toMatchObject({ code: -32000, message: expect.stringMatching(aborted) });
    // The estimate changed nothing: the smart account is still undeployed, its nonce unused.
    expect(await node().getCode({ address: sender })).toBeUndefined();
  }, 60_000);

  it("spends one budget for a whole batch: the call that ran past it is aborted, the calls after it answer -32002 unrun", async () => {
    const rpc = getHttpRpcClient(nodeUrl);
    const answers = (await rpc.request({
      body: [
        { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] },
        { jsonrpc: "2.0", id: 2, method: "eth_call", params: [{ data: ENDLESS }, "latest"] },
        { jsonrpc: "2.0", id: 3, method: "eth_call", params: [{ data: QUICK }, "latest"] },
        { jsonrpc: "2.0", id: 4, method: "eth_blockNumber", params: [] },
      ],
      timeout: 60_000,
    })) as unknown as Array<{ id: number; result?: string; error?: { code: number; message: string } }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers[0]!.result).toBe("0x14a34");
    expect(answers[1]!.error).toMatchObject({ code: -32000, message: expect.stringMatching(aborted) });
    expect(answers.slice(2).map((a) => a.error)).toEqual([
      { code: -32002, message: "request timed out" },
      { code: -32002, message: "request timed out" },
    ]);
    // The budget is the request's: the next batch runs from the start.
    const next = (await rpc.request({
      body: [
        { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: QUICK }, "latest"] },
        { jsonrpc: "2.0", id: 2, method: "eth_chainId", params: [] },
      ],
    })) as unknown as Array<{ result?: string }>;
    expect(next.map((a) => a.result)).toEqual([ONE, "0x14a34"]);
  }, 60_000);

  it("gives each WebSocket message a budget of its own: a batch's later calls unrun, the next message answered", async () => {
    const client = await openWebSocket(nodeUrl.replace(/^http/, "ws"));
    try {
      client.ws.send(
        JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: ENDLESS }, "latest"] },
          { jsonrpc: "2.0", id: 2, method: "eth_chainId", params: [] },
        ]),
      );
      const batch = (await client.next()) as Array<{ id: number; error?: { code: number; message: string } }>;
      expect(batch[0]!.error).toMatchObject({ code: -32000, message: expect.stringMatching(aborted) });
      expect(batch[1]!.error).toEqual({ code: -32002, message: "request timed out" });
      client.send({ id: 3, method: "eth_call", params: [{ data: QUICK }, "latest"] });
      expect(await client.next()).toMatchObject({ id: 3, result: ONE });
    } finally {
      client.ws.close();
    }
  }, 60_000);

  it("never cuts a mined transaction: the same loop sent is mined, out of gas, its gas charged", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
    const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl, { timeout: 60_000 }) });
    // 2M gas of the loop: ~120 pauses, each far past a 1 ms budget had the run been under one.
    const gas = 2_000_000n;
    const raw = await wallet.signTransaction({ data: ENDLESS, gas, nonce: 0, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chain: baseSepolia });
    const hash = await node().sendRawTransaction({ serializedTransaction: raw });
    const receipt = await node().getTransactionReceipt({ hash });
    expect(receipt).toMatchObject({ status: "reverted", gasUsed: gas });
    expect(await node().getTransactionCount({ address: account.address })).toBe(1);
  }, 60_000);
});
