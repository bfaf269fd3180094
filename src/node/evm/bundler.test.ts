/**
 * The node's bundler over raw JSON-RPC: the methods and their answers, a
 * user operation of a platform smart account built and signed by hand (the
 * hash and signature made with viem), a reverting one included as failed,
 * and the refusals with their ERC-7769 codes, each leaving the ledger as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { encodeAbiParameters, encodeFunctionData, erc20Abi, type Hex, parseAbi, toHex } from "viem";
import { entryPoint06Address, entryPoint07Address, getUserOperationHash } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let rpcPath: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "bundler" });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  rpcPath = `/rpc/v1/base-sepolia/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
});
afterAll(() => sandbox.close());

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

async function rpc(method: string, params: unknown[]) {
  const res = await request(sandbox.url)
    .post(rpcPath)
    .set("Content-Type", "application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  return res.body as { result?: unknown; error?: { code: number; message: string } };
}

const executeAbi = [
  {
    type: "function",
    name: "execute",
    stateMutability: "payable",
    inputs: [
      { name: "target", type: "address" },
      { name: "value", type: "uint256" },
      { name: "data", type: "bytes" },
    ],
    outputs: [],
  },
] as const;
const transferCall = (amount: bigint) =>
  encodeFunctionData({
    abi: executeAbi,
    functionName: "execute",
    args: [USDC, 0n, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, amount] })],
  });
const wrap = (signature: Hex) =>
  encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "ownerIndex", type: "uint8" },
          { name: "signatureData", type: "bytes" },
        ],
      },
    ],
    [{ ownerIndex: 0, signatureData: signature }],
  );

/** A platform smart account with a local owner, holding ETH and USDC. */
async function smartAccount() {
  const owner = privateKeyToAccount(generatePrivateKey());
  const address = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] } })).body.address as `0x${string}`;
  await fund(sandbox, { network: "base-sepolia", address, amount: "10000000000000000" });
  await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "3000000" });
  return { owner, address };
}

/** A v0.6 user operation of `sender`, signed by `signer` over the EntryPoint's hash. */
async function signedOperation(
  sender: `0x${string}`,
  signer: ReturnType<typeof privateKeyToAccount>,
  o: { nonce?: bigint; callData: Hex; paymasterAndData?: Hex; callGasLimit?: bigint },
) {
  const op = {
    sender,
    nonce: o.nonce ?? 0n,
    initCode: "0x" as Hex,
    callData: o.callData,
    callGasLimit: o.callGasLimit ?? 100_000n,
    verificationGasLimit: 150_000n,
    preVerificationGas: 50_000n,
    maxFeePerGas: 2_000_000n,
    maxPriorityFeePerGas: 0n,
    paymasterAndData: o.paymasterAndData ?? ("0x" as Hex),
  };
  const hash = getUserOperationHash({
    chainId: 84532,
    entryPointAddress: entryPoint06Address,
    entryPointVersion: "0.6",
    userOperation: { ...op, signature: "0x" },
  });
  const signature = wrap(await signer.sign({ hash }));
  const rpcForm = Object.fromEntries(Object.entries({ ...op, signature }).map(([k, v]) => [k, typeof v === "bigint" ? toHex(v) : v]));
  return { hash, rpcForm };
}

const batchAbi = parseAbi(["function executeBatch((address target, uint256 value, bytes data)[] calls) payable"]);

/** Creation code of a contract that, called, writes 1 into storage slots 1 to 12: ~265,000 gas on fresh slots. */
const TWELVE_SLOT_WRITER = (() => {
  const runtime = `${Array.from({ length: 12 }, (_, i) => `600160${(i + 1).toString(16).padStart(2, "0")}55`).join("")}00`;
  // PUSH1 size, DUP1, PUSH1 11 (where the runtime starts), PUSH1 0, CODECOPY, PUSH1 0, RETURN
  return `0x60${(runtime.length / 2).toString(16)}80600b6000396000f3${runtime}` as Hex;
})();

/** Deploys `creation` from a fresh funded key through eth_sendRawTransaction; its contract's address. */
async function deployed(creation: Hex): Promise<`0x${string}`> {
  const deployer = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: deployer.address, amount: "10000000000000000" });
  const raw = await deployer.signTransaction({ type: "eip1559", chainId: 84532, nonce: 0, data: creation, gas: 200_000n, maxFeePerGas: 10n ** 9n });
  const hash = (await rpc("eth_sendRawTransaction", [raw])).result;
  sandbox.clock.advance(4000);
  return ((await rpc("eth_getTransactionReceipt", [hash])).result as { contractAddress: `0x${string}` }).contractAddress;
}

async function usdcOf(address: string): Promise<string> {
  const balances = (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`)).body.balances as Array<{
    token: { symbol: string };
    amount: { amount: string };
  }>;
  return balances.find((b) => b.token.symbol === "USDC")?.amount.amount ?? "0";
}

describe("the node's bundler", () => {
  it("names its EntryPoints, its gas prices and the sandbox's paymaster for each version", async () => {
    expect((await rpc("eth_supportedEntryPoints", [])).result).toEqual([entryPoint06Address, entryPoint07Address]);
    const prices = (await rpc("pimlico_getUserOperationGasPrice", [])).result as Record<string, { maxFeePerGas: string }>;
    expect(Object.keys(prices)).toEqual(["slow", "standard", "fast"]);
    expect(BigInt(prices.fast!.maxFeePerGas)).toBeGreaterThan(BigInt(prices.slow!.maxFeePerGas));
    const v06 = (await rpc("pm_getPaymasterStubData", [{}, entryPoint06Address, "0x14a34", {}])).result as { paymasterAndData: string };
    expect(v06.paymasterAndData).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const v07 = (await rpc("pm_getPaymasterData", [{}, entryPoint07Address, "0x14a34", {}])).result as { paymaster: string; paymasterData: string };
    expect(v07).toMatchObject({ paymaster: v06.paymasterAndData, paymasterData: "0x" });
    expect((await rpc("pm_getPaymasterData", [{}, entryPoint07Address, "0x1", {}])).error?.code).toBe(-32602); // another chain
  });

  it("runs a platform smart account's operation signed by its owner, and reports it by hash and receipt", async () => {
    const { owner, address } = await smartAccount();
    const { hash, rpcForm } = await signedOperation(address, owner, { callData: transferCall(1_000_000n) });
    const sent = await rpc("eth_sendUserOperation", [rpcForm, entryPoint06Address]);
    expect(sent.result).toBe(hash);
    sandbox.clock.advance(4000);
    const receipt = (await rpc("eth_getUserOperationReceipt", [hash])).result as Record<string, unknown>;
    expect(receipt).toMatchObject({ userOpHash: hash, sender: address, success: true, nonce: "0x0", entryPoint: entryPoint06Address });
    expect((receipt.logs as unknown[]).length).toBe(1); // the USDC Transfer
    expect(BigInt(receipt.actualGasCost as string)).toBe(52_000n * 1_000_000n);
    const byHash = (await rpc("eth_getUserOperationByHash", [hash])).result as Record<string, unknown>;
    expect(byHash).toMatchObject({ entryPoint: entryPoint06Address, userOperation: rpcForm });
    expect(byHash.blockNumber).toMatch(/^0x/);
    expect(await usdcOf(TO)).toBe("1000000");
    expect(await usdcOf(address)).toBe("2000000");
    expect((await rpc("eth_getCode", [address, "latest"])).result).not.toBe("0x"); // its first operation deployed it
    expect((await rpc("eth_getUserOperationReceipt", [`0x${"ab".repeat(32)}`])).result).toBeNull();
  });

  it("includes an operation whose call reverts as failed: the nonce is used, the gas paid, the tokens not moved", async () => {
    const { owner, address } = await smartAccount();
    const { hash, rpcForm } = await signedOperation(address, owner, { callData: transferCall(9_000_000n) });
    expect((await rpc("eth_sendUserOperation", [rpcForm, entryPoint06Address])).result).toBe(hash);
    sandbox.clock.advance(4000);
    const receipt = (await rpc("eth_getUserOperationReceipt", [hash])).result as { success: boolean; reason: string };
    expect(receipt.success).toBe(false);
    expect(receipt.reason).toMatch(/reverted/);
    expect(await usdcOf(address)).toBe("3000000");
    expect((await rpc("eth_sendUserOperation", [rpcForm, entryPoint06Address])).error).toMatchObject({ code: -32500, message: expect.stringMatching(/^AA25/) });
  });

  it("shows a delegated EOA's code as the EIP-7702 designator of its delegate, once the delegation completes", async () => {
    const eoa = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as string;
    sandbox.clock.freeze(true);
    try {
      const created = await call(sandbox, "POST", `/platform/v2/evm/accounts/${eoa}/eip7702/delegation`, { body: { network: "base-sepolia" }, wallet: true });
      expect((await rpc("eth_getCode", [eoa, "latest"])).result).toBe("0x");
      sandbox.clock.advance(2000);
      const operation = await call(sandbox, "GET", `/platform/v2/evm/eip7702/delegation-operations/${created.body.delegationOperationId}`);
      expect(operation.body.status).toBe("COMPLETED");
      expect((await rpc("eth_getCode", [eoa, "latest"])).result).toBe(`0xef0100${operation.body.delegateAddress.slice(2).toLowerCase()}`);
    } finally {
      sandbox.clock.freeze(false);
    }
  });

  it("refuses an operation whose gas adds up to more than a block holds (-32602), as a transaction's is refused, changing nothing", async () => {
    const { owner, address } = await smartAccount();
    const send = async (params: unknown[]) => (await rpc("eth_sendUserOperation", params)).error;
    // Its own gas fields: 30M for the calls, plus verification and pre-verification.
    const heavy = await signedOperation(address, owner, { callData: transferCall(1n), callGasLimit: 30_000_000n });
    expect(await send([heavy.rpcForm, entryPoint06Address])).toMatchObject({
      code: -32602,
      message: expect.stringContaining("exceed the block gas limit of 30000000"),
    });
    expect((await rpc("eth_getUserOperationReceipt", [heavy.hash])).result).toBeNull();
    expect((await rpc("eth_getTransactionCount", [address, "latest"])).result).toBe("0x0");
  });

  it("runs the calls within the operation's callGasLimit, shared: a call past what is left runs out of gas and undoes them all", async () => {
    const { owner, address } = await smartAccount();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = { target: USDC, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, 1n] }) };
    // Two token transfers of 52,000 gas each under 60,000: the first fits, the second finds 8,000 left.
    const callData = encodeFunctionData({ abi: batchAbi, functionName: "executeBatch", args: [[transfer, transfer]] });
    const two = await signedOperation(address, owner, { callData, callGasLimit: 60_000n });
    expect((await rpc("eth_sendUserOperation", [two.rpcForm, entryPoint06Address])).result).toBe(two.hash);
    sandbox.clock.advance(4000);
    const receipt = (await rpc("eth_getUserOperationReceipt", [two.hash])).result as { success: boolean; reason: string; actualGasUsed: string };
    expect(receipt).toMatchObject({ success: false, reason: expect.stringContaining("call 1 of 2 reverted: out of gas") });
    expect(BigInt(receipt.actualGasUsed)).toBe(60_000n); // all of the calls' gas is burnt
    expect(await usdcOf(address)).toBe("3000000");
    expect(await usdcOf(to)).toBe("0");
  });

  it("gives a call all of the operation's callGasLimit, beyond 200,000 gas, and estimates what it needs", async () => {
    const { owner, address } = await smartAccount();
    const writer = await deployed(TWELVE_SLOT_WRITER);
    const callData = encodeFunctionData({ abi: executeAbi, functionName: "execute", args: [writer, 0n, "0x"] });
    // Twelve fresh storage slots: ~286,000 gas with the call's own 21,000.
    const estimate = (await rpc("eth_estimateUserOperationGas", [(await signedOperation(address, owner, { callData })).rpcForm, entryPoint06Address]))
      .result as { callGasLimit: string };
    expect(BigInt(estimate.callGasLimit)).toBeGreaterThan(286_000n);
    const op = await signedOperation(address, owner, { callData, callGasLimit: BigInt(estimate.callGasLimit) });
    expect((await rpc("eth_sendUserOperation", [op.rpcForm, entryPoint06Address])).result).toBe(op.hash);
    sandbox.clock.advance(4000);
    expect((await rpc("eth_getUserOperationReceipt", [op.hash])).result).toMatchObject({ success: true });
    expect((await rpc("eth_getStorageAt", [writer, "0xc", "latest"])).result).toBe(`0x${"1".padStart(64, "0")}`);
  });

  it("refuses what an EntryPoint would refuse, with the bundler's codes, and changes nothing", async () => {
    const { owner, address } = await smartAccount();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const send = async (params: unknown[]) => (await rpc("eth_sendUserOperation", params)).error;
    const valid = await signedOperation(address, owner, { callData: transferCall(1n) });

    expect(await send([valid.rpcForm, "0x0000000071727De22E5E9d8BAf0edAc6f37da033"])).toMatchObject({ code: -32602 });
    expect(await send([{ ...valid.rpcForm, nonce: "ten" }, entryPoint06Address])).toMatchObject({ code: -32602 });
    const forged = await send([(await signedOperation(address, stranger, { callData: transferCall(1n) })).rpcForm, entryPoint06Address]);
    expect(forged).toMatchObject({ code: -32507, message: expect.stringMatching(/^AA24/), data: { detail: expect.stringContaining(address) } });
    // No hex value in the message (a client searching it for AAxx reasons could find one in an address): the whole text is data.detail.
    expect(forged?.message).not.toMatch(/0x[0-9a-fA-F]{4}/);
    expect(await send([(await signedOperation(address, owner, { callData: transferCall(1n), nonce: 5n })).rpcForm, entryPoint06Address])).toMatchObject({
      code: -32500,
      message: expect.stringMatching(/^AA25/),
    });
    const unknownPaymaster = await signedOperation(address, owner, { callData: transferCall(1n), paymasterAndData: TO });
    expect(await send([unknownPaymaster.rpcForm, entryPoint06Address])).toMatchObject({ code: -32500, message: expect.stringMatching(/^AA30/) });
    const nobody = privateKeyToAccount(generatePrivateKey()).address;
    expect(await send([(await signedOperation(nobody, owner, { callData: transferCall(1n) })).rpcForm, entryPoint06Address])).toMatchObject({
      code: -32500,
      message: expect.stringMatching(/^AA20/),
    });
    expect(await send([(await signedOperation(address, owner, { callData: "0xdeadbeef" })).rpcForm, entryPoint06Address])).toMatchObject({ code: -32602 });

    const estimate = await rpc("eth_estimateUserOperationGas", [
      { ...valid.rpcForm, callData: transferCall(5_000_000n), signature: "0x" },
      entryPoint06Address,
    ]);
    expect(estimate.error).toMatchObject({ code: -32521, message: expect.stringMatching(/^execution reverted/) });
    const ok = (await rpc("eth_estimateUserOperationGas", [{ ...valid.rpcForm, signature: "0x" }, entryPoint06Address])).result as Record<string, string>;
    expect(BigInt(ok.callGasLimit!)).toBeGreaterThanOrEqual(52_000n);

    expect(await usdcOf(address)).toBe("3000000");
    expect((await rpc("eth_getCode", [address, "latest"])).result).toBe("0x");
    expect((await rpc("eth_getBalance", [address, "latest"])).result).toBe(toHex(10_000_000_000_000_000n));
  });
});
