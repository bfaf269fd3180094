/**
 * The simulated EVM runs real bytecode: contracts compiled with solc in the test are deployed from a viem
 * wallet through the node, called, read and made to move the platform's USDC, which the REST API then shows.
 * Multicall3 and the CREATE2 deployer are at their canonical addresses; a revert anywhere undoes everything.
 */
import type { Sandbox } from "cdp-sandbox";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  erc20Abi,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  parseEther,
  serializeTransaction,
  type PublicClient,
  toHex,
  type WalletClient,
  zeroHash,
} from "viem";
import { createBundlerClient, toCoinbaseSmartAccount } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";
import { type Compiled, compileSolidity } from "#test/helpers/solidity.js";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const CREATE2_DEPLOYER = "0x4e59b44847b379578588920cA78FbF26c0B4956C";

let sandbox: Sandbox;
let node: PublicClient;
let nodeUrl: string;
let contracts: Record<string, Compiled>;

beforeAll(async () => {
  contracts = compileSolidity(new URL("../fixtures/contracts/Vault.sol", import.meta.url).pathname);
  sandbox = await withSandbox({ seed: "viem-bytecode" });
  nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
  node = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) }) as PublicClient;
});
afterAll(() => sandbox?.close());

async function fundedWallet(usdc = "0"): Promise<{ account: PrivateKeyAccount; wallet: WalletClient }> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
  if (usdc !== "0") await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: usdc });
  return { account, wallet: createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl) }) };
}

async function deploy(wallet: WalletClient, name: string, args: unknown[]): Promise<`0x${string}`> {
  const { abi, bytecode } = contracts[name]!;
  const hash = await wallet.deployContract({ abi, bytecode, args, account: wallet.account!, chain: baseSepolia });
  const receipt = await node.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  expect(receipt.contractAddress).toBeTruthy();
  return receipt.contractAddress!;
}

const usdcOf = (address: string) => node.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address as `0x${string}`] });

async function restUsdc(address: string): Promise<string> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
  return res.body.balances.find((b: { token: { symbol: string } }) => b.token.symbol === "USDC")?.amount.amount ?? "0";
}

describe("bytecode on the simulated EVM", () => {
  it("deploys a contract from a viem wallet, runs it, and reports its code, storage, logs and reverts", async () => {
    const { account, wallet } = await fundedWallet();
    const counter = await deploy(wallet, "Counter", [41n]);
    const nonce = await node.getTransactionCount({ address: account.address });
    expect(counter.toLowerCase()).toBe(getContractAddress({ from: account.address, nonce: BigInt(nonce - 1) }).toLowerCase());
    expect((await node.getCode({ address: counter }))!.length).toBeGreaterThan(100);
    const { abi } = contracts.Counter!;
    expect(await node.readContract({ address: counter, abi, functionName: "count" })).toBe(41n);
    expect(await node.getStorageAt({ address: counter, slot: "0x0" })).toBe(`0x${(41).toString(16).padStart(64, "0")}`);

    const gas = await node.estimateContractGas({ address: counter, abi, functionName: "increment", account: account.address });
    expect(gas).toBeGreaterThan(21_000n + 5_000n);
    expect(gas).toBeLessThan(60_000n);
    const hash = await wallet.writeContract({ address: counter, abi, functionName: "increment", account, chain: baseSepolia });
    const receipt = await node.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.gasUsed).toBeGreaterThan(21_000n);
    expect(receipt.logs).toHaveLength(1);
    expect(await node.readContract({ address: counter, abi, functionName: "count" })).toBe(42n);

    const events = await node.getContractEvents({ address: counter, abi, eventName: "Counted", fromBlock: 0n });
    expect(events).toHaveLength(1);
    expect(events[0]!.args).toEqual({ by: account.address, count: 42n });
    expect(await node.getLogs({ address: USDC, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber })).toEqual([]);

    const failed = await node.simulateContract({ address: counter, abi, functionName: "fail", account: account.address }).catch((e) => e);
    expect(failed).toBeInstanceOf(BaseError);
    const reverted = (failed as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(reverted.reason).toBe("Counter: told to fail");
    const custom = await node.simulateContract({ address: counter, abi, functionName: "failCustom", args: [7n], account: account.address }).catch((e) => e);
    const customError = (custom as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(customError.data?.errorName).toBe("NotEnough");
    expect(customError.data?.args).toEqual([7n, 42n]);

    // Sent anyway: mined, reverted, the fee spent, the revert data on the receipt.
    const before = await node.getBalance({ address: account.address });
    const sent = await wallet.writeContract({ address: counter, abi, functionName: "fail", account, chain: baseSepolia, gas: 100_000n });
    const failedReceipt = await node.waitForTransactionReceipt({ hash: sent });
    expect(failedReceipt.status).toBe("reverted");
    expect(await node.getBalance({ address: account.address })).toBe(before - failedReceipt.gasUsed * failedReceipt.effectiveGasPrice);
    expect(await node.readContract({ address: counter, abi, functionName: "count" })).toBe(42n);
  });

  it("lets a deployed contract hold and move the platform's USDC, as the REST API sees it", async () => {
    const { account, wallet } = await fundedWallet("5000000");
    const vault = await deploy(wallet, "Vault", [USDC]);
    const { abi } = contracts.Vault!;
    await node.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: "approve", args: [vault, 3_000_000n], account, chain: baseSepolia }),
    });
    const receipt = await node.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: vault, abi, functionName: "deposit", args: [2_000_000n], account, chain: baseSepolia }),
    });
    expect(receipt.status).toBe("success");
    // The token's Transfer log, emitted by the modelled USDC inside the vault's call.
    expect(receipt.logs.map((l) => l.address.toLowerCase())).toEqual([USDC.toLowerCase()]);
    expect(await usdcOf(vault)).toBe(2_000_000n);
    expect(await node.readContract({ address: vault, abi, functionName: "held" })).toBe(2_000_000n);
    expect(await restUsdc(vault)).toBe("2000000");
    expect(await restUsdc(account.address)).toBe("3000000");

    const friend = privateKeyToAccount(generatePrivateKey()).address;
    const paid = await node.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: vault,
        abi,
        functionName: "payAndTryMore",
        args: [friend, 500_000n, 1_000_000n],
        account,
        chain: baseSepolia,
      }),
    });
    expect(paid.status).toBe("success");
    // The payment stayed; the inner deposit that reverted moved nothing and used none of the allowance.
    expect(await restUsdc(friend)).toBe("500000");
    expect(await restUsdc(vault)).toBe("1500000");
    expect(await restUsdc(account.address)).toBe("3000000");
    expect(await node.readContract({ address: USDC, abi: erc20Abi, functionName: "allowance", args: [account.address, vault] })).toBe(1_000_000n);
    expect(await node.readContract({ address: vault, abi, functionName: "deposits", args: [account.address] })).toBe(1_500_000n);
  });

  it("reads, in the frame that caught a revert, the slot as it was before the reverted frame wrote it", async () => {
    const { wallet } = await fundedWallet();
    const rollback = await deploy(wallet, "Rollback", []);
    const { abi } = contracts.Rollback!;
    const hash = await wallet.writeContract({ address: rollback, abi, functionName: "tryAndRead", args: [7n], account: wallet.account!, chain: baseSepolia });
    expect((await node.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await node.readContract({ address: rollback, abi, functionName: "value" })).toBe(2n);
    expect(await node.readContract({ address: rollback, abi, functionName: "seen" })).toBe(2n);
  });

  it("undoes every move of a transaction that reverts after moving USDC", async () => {
    const { account, wallet } = await fundedWallet("1000000");
    const vault = await deploy(wallet, "Vault", [USDC]);
    const { abi } = contracts.Vault!;
    await node.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: "approve", args: [vault, 1_000_000n], account, chain: baseSepolia }),
    });
    const receipt = await node.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: vault,
        abi,
        functionName: "depositThenRevert",
        args: [400_000n],
        account,
        chain: baseSepolia,
        gas: 300_000n,
      }),
    });
    expect(receipt.status).toBe("reverted");
    expect(receipt.logs).toEqual([]);
    expect(await restUsdc(account.address)).toBe("1000000");
    expect(await restUsdc(vault)).toBe("0");
    expect(await node.readContract({ address: USDC, abi: erc20Abi, functionName: "allowance", args: [account.address, vault] })).toBe(1_000_000n);
  });

  it("lets bytecode call the contracts the sandbox models, whose reverts come back with their reasons", async () => {
    const { wallet } = await fundedWallet();
    const forwarder = await deploy(wallet, "Forwarder", []);
    const { abi } = contracts.Forwarder!;
    // Morpho Blue, modelled in TypeScript, reached by CALL from the forwarder: an unknown call reverts with Morpho's reason.
    const failed = await node
      .simulateContract({ address: forwarder, abi, functionName: "forward", args: ["0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb", "0x12345678"] })
      .catch((e: BaseError) => e);
    const reverted = (failed as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(reverted.reason).toMatch(/^not a call this Morpho contract serves/);
    // USDC reached the same way: the forwarder's own USDC moves, and a read returns the token's answer.
    await fund(sandbox, { network: "base-sepolia", address: forwarder, token: "USDC", amount: "70" });
    const friend = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await wallet.writeContract({
      address: forwarder,
      abi,
      functionName: "forward",
      args: [USDC, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [friend, 20n] })],
      account: wallet.account!,
      chain: baseSepolia,
    });
    expect((await node.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await restUsdc(friend)).toBe("20");
    expect(await restUsdc(forwarder)).toBe("50");
  });

  it("reads many contracts in one call through Multicall3", async () => {
    const { account } = await fundedWallet("7");
    const [usdc, decimals, ethBalance, chainId] = await node.multicall({
      allowFailure: false,
      contracts: [
        { address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [account.address] },
        { address: USDC, abi: erc20Abi, functionName: "decimals" },
        {
          address: "0xcA11bde05977b3631167028862bE2a173976CA11",
          abi: [{ type: "function", name: "getEthBalance", stateMutability: "view", inputs: [{ type: "address" }], outputs: [{ type: "uint256" }] }],
          functionName: "getEthBalance",
          args: [account.address],
        },
        {
          address: "0xcA11bde05977b3631167028862bE2a173976CA11",
          abi: [{ type: "function", name: "getChainId", stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] }],
          functionName: "getChainId",
        },
      ],
    });
    expect([usdc, decimals, ethBalance, chainId]).toEqual([7n, 6, parseEther("1"), 84532n]);
    const mixed = await node.multicall({
      contracts: [
        { address: USDC, abi: erc20Abi, functionName: "symbol" },
        { address: USDC, abi: erc20Abi, functionName: "transfer", args: [account.address, 1n] },
      ],
    });
    expect(mixed[0]).toEqual({ status: "success", result: "USDC" });
    // Called by Multicall3, which holds no USDC: that transfer reverts, and only that call fails.
    expect(mixed[1]!.status).toBe("failure");
  });

  it("deploys at a predictable address through the CREATE2 deployer", async () => {
    const { account, wallet } = await fundedWallet();
    const { abi, bytecode } = contracts.Counter!;
    const initCode = encodeDeployData({ abi, bytecode, args: [7n] });
    const salt = keccak256(encodePacked(["string"], ["cdp-sandbox"]));
    const expected = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode });
    const hash = await wallet.sendTransaction({
      account,
      chain: baseSepolia,
      to: CREATE2_DEPLOYER,
      data: encodePacked(["bytes32", "bytes"], [salt, initCode]),
    });
    expect((await node.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await node.readContract({ address: expected, abi, functionName: "count" })).toBe(7n);
    expect(await node.getCode({ address: CREATE2_DEPLOYER })).not.toBe("0x");
  });

  it("deploys from a CDP account with sendEvmTransaction and no `to`, and the contract moves its USDC", async () => {
    const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address, amount: parseEther("1").toString() });
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "900" });
    const { abi, bytecode } = contracts.Vault!;
    const send = (transaction: `0x${string}`) =>
      call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, { body: { network: "base-sepolia", transaction }, wallet: true });
    const deployed = await send(serializeTransaction({ type: "eip1559", chainId: 84532, data: encodeDeployData({ abi, bytecode, args: [USDC] }) }));
    expect(deployed.status).toBe(200);
    const receipt = await node.getTransactionReceipt({ hash: deployed.body.transactionHash });
    expect(receipt.status).toBe("success");
    const vault = receipt.contractAddress!;
    expect(await node.readContract({ address: vault, abi, functionName: "token" })).toBe(USDC);

    const usdcTransfer = (to: `0x${string}`, data: `0x${string}`) => send(serializeTransaction({ type: "eip1559", chainId: 84532, to, data }));
    expect((await usdcTransfer(USDC, encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [vault, 600n] }))).status).toBe(200);
    const deposit = await usdcTransfer(vault, encodeFunctionData({ abi, functionName: "deposit", args: [600n] }));
    expect(deposit.status).toBe(200);
    expect((await node.getTransactionReceipt({ hash: deposit.body.transactionHash })).status).toBe("success");
    expect(await restUsdc(address)).toBe("300");
    expect(await restUsdc(vault)).toBe("600");
  });

  it("runs a smart account's user operation against a deployed contract, and undoes the whole batch when a call reverts", async () => {
    const { wallet } = await fundedWallet();
    const vault = await deploy(wallet, "Vault", [USDC]);
    const { abi } = contracts.Vault!;
    const smart = await toCoinbaseSmartAccount({ client: node, owners: [privateKeyToAccount(generatePrivateKey())], version: "1.1" });
    await fund(sandbox, { network: "base-sepolia", address: smart.address, token: "USDC", amount: "800" });
    const bundler = createBundlerClient({ account: smart, client: node, chain: baseSepolia, transport: http(nodeUrl), pollingInterval: 50, paymaster: true });
    const hash = await bundler.sendUserOperation({
      calls: [
        { to: USDC, abi: erc20Abi, functionName: "approve", args: [vault, 500n] },
        { to: vault, abi, functionName: "deposit", args: [500n] },
      ],
    });
    const receipt = await bundler.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(await restUsdc(smart.address)).toBe("300");
    expect(await restUsdc(vault)).toBe("500");
    expect(await node.readContract({ address: vault, abi, functionName: "deposits", args: [smart.address] })).toBe(500n);

    const friend = privateKeyToAccount(generatePrivateKey()).address;
    const calls = [
      { to: USDC, abi: erc20Abi, functionName: "transfer", args: [friend, 100n] },
      { to: vault, abi, functionName: "withdraw", args: [501n] },
    ] as const;
    // Estimating runs the calls: the vault's revert is the bundler's -32521.
    const estimate = await bundler.estimateUserOperationGas({ calls }).catch((e: BaseError) => e);
    expect((estimate as BaseError).walk((e) => (e as { code?: number }).code === -32521)).toBeTruthy();
    // Sent anyway with its own limits: included, reverted, the USDC transfer before the revert undone.
    const failing = await bundler.sendUserOperation({ calls, callGasLimit: 400_000n, verificationGasLimit: 200_000n, preVerificationGas: 50_000n });
    const failed = await bundler.waitForUserOperationReceipt({ hash: failing });
    expect(failed.success).toBe(false);
    expect(await restUsdc(friend)).toBe("0");
    expect(await restUsdc(smart.address)).toBe("300");
    expect(await restUsdc(vault)).toBe("500");
  });
});

describe("what a block tells bytecode", () => {
  it("gives BLOCKHASH, prevrandao, coinbase and timestamp as the node reports the block", async () => {
    const { abi, bytecode } = compileSolidity(new URL("../fixtures/contracts/BlockInfo.sol", import.meta.url).pathname).BlockInfo!;
    const { wallet } = await fundedWallet();
    const hash = await wallet.deployContract({ abi, bytecode, account: wallet.account!, chain: baseSepolia });
    const address = (await node.waitForTransactionReceipt({ hash })).contractAddress!;
    const [number, parentHash, ownHash, tooOld, randao, feeRecipient, time] = (await node.readContract({ address, abi, functionName: "info" })) as [
      bigint,
      Hex,
      Hex,
      Hex,
      bigint,
      Hex,
      bigint,
    ];
    const block = await node.getBlock({ blockNumber: number });
    const parent = await node.getBlock({ blockNumber: number - 1n });
    expect(parentHash).toBe(parent.hash);
    expect(parentHash).not.toBe(zeroHash);
    expect(ownHash).toBe(zeroHash); // a block's own hash is not known while it runs
    expect(number).toBeGreaterThan(257n);
    expect(tooOld).toBe(zeroHash); // only the last 256 blocks
    expect(randao).not.toBe(0n);
    expect(toHex(randao, { size: 32 })).toBe(block.mixHash);
    expect(getAddress(feeRecipient)).toBe(getAddress(block.miner));
    expect(time).toBe(block.timestamp);
  });
});

describe("bytecode state with --data", () => {
  it("keeps deployed code and storage across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-bytecode-"));
    try {
      const file = join(dir, "state.json");
      const first = await withSandbox({ seed: "bytecode-data", data: file });
      const url = (s: Sandbox) => nodeUrlFor(s, "base-sepolia");
      const account = privateKeyToAccount(generatePrivateKey());
      await fund(first, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
      const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(await url(first)) });
      const client = createPublicClient({ chain: baseSepolia, transport: http(await url(first)) });
      const { abi, bytecode } = contracts.Counter!;
      const receipt = await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode, args: [5n] }) });
      const counter = receipt.contractAddress!;
      await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: counter, abi, functionName: "increment" }) });
      const code = await client.getCode({ address: counter });
      await first.close();

      const second = await withSandbox({ seed: "bytecode-data", data: file });
      try {
        const again = createPublicClient({ chain: baseSepolia, transport: http(await url(second)) });
        expect(await again.getCode({ address: counter })).toBe(code);
        expect(await again.readContract({ address: counter, abi, functionName: "count" })).toBe(6n);
        expect(await again.getStorageAt({ address: counter, slot: "0x0" })).toBe(`0x${"6".padStart(64, "0")}`);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
