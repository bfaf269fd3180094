/**
 * viem's account-abstraction clients against the node's bundler: a Coinbase
 * Smart Wallet (`toCoinbaseSmartAccount`, a local owner) deployed by its first
 * user operation and moving USDC and ETH on the ledger, gas paid by the wallet
 * or by the sandbox's paymaster (ERC-7677, `paymaster: true`), EntryPoint v0.7
 * operations of the same wallet, and the refusals viem turns into its bundler
 * errors. Hashes and signatures are checked with viem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError,
  createPublicClient,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  http,
  pad,
  parseEther,
  type PublicClient,
  recoverAddress,
  type Hex,
} from "viem";
import {
  createBundlerClient,
  entryPoint06Abi,
  entryPoint06Address,
  entryPoint07Abi,
  entryPoint07Address,
  getUserOperationHash,
  type SmartAccount,
  toCoinbaseSmartAccount,
  toSmartAccount,
} from "viem/account-abstraction";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let rpcUrl: string;
let client: PublicClient;

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "viem-bundler" });
  rpcUrl = await nodeUrlFor(sandbox, "base-sepolia");
  client = createPublicClient({ chain: baseSepolia, transport: http(rpcUrl) }) as PublicClient;
});
afterAll(() => sandbox.close());

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
const FACTORY = "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842" as const; // Coinbase Smart Wallet factory v1.1
const SIGNATURE_WRAPPER = [
  {
    type: "tuple",
    components: [
      { name: "ownerIndex", type: "uint8" },
      { name: "signatureData", type: "bytes" },
    ],
  },
] as const;

const bundlerFor = (account: SmartAccount, paymaster = false) =>
  createBundlerClient({ account, client, chain: baseSepolia, transport: http(rpcUrl), pollingInterval: 50, paymaster: paymaster || undefined });
/** A user operation as a test hands it back to the bundler after changing a field. */
type Sendable = Parameters<ReturnType<typeof bundlerFor>["sendUserOperation"]>[0];

const usdcOf = (address: `0x${string}`) => client.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address] });

async function newWallet(version: "1" | "1.1" = "1.1", owner: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) {
  const account = await toCoinbaseSmartAccount({ client, owners: [owner], version });
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("0.01").toString() });
  await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "5000000" });
  return { owner, account };
}

/** The cause in viem's error chain with this JSON-RPC code, if any. */
const causeWithCode = (error: unknown, code: number) => (error as BaseError).walk((e) => (e as { code?: number }).code === code);

describe("the node's ERC-4337 bundler with viem", () => {
  it("serves EntryPoint v0.6 and v0.7 and answers the factory's getAddress with the sandbox's address", async () => {
    const bundler = bundlerFor(await toCoinbaseSmartAccount({ client, owners: [privateKeyToAccount(generatePrivateKey())], version: "1.1" }));
    expect(await bundler.getSupportedEntryPoints()).toEqual([entryPoint06Address, entryPoint07Address]);
    const { owner, account } = await newWallet();
    expect(await client.getCode({ address: account.address })).toBeUndefined(); // counterfactual until the first operation
    // The platform API derives the same address for the same owner (factory v1.1, nonce 0).
    const other = await sandbox.createProject("viem-bundler-same-owner");
    const created = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] }, credentials: other });
    expect(created.body.address).toBe(account.address);
  });

  it("deploys the wallet with its first user operation, moves USDC and ETH, and charges the gas to the wallet", async () => {
    const { owner, account } = await newWallet();
    const bundler = bundlerFor(account);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await bundler.sendUserOperation({
      calls: [
        { to: USDC, abi: erc20Abi, functionName: "transfer", args: [to, 1_250_000n] },
        { to, value: 1_000n },
      ],
    });
    sandbox.clock.advance(4000);
    const receipt = await bundler.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(receipt.sender).toBe(account.address);
    expect(receipt.entryPoint).toBe(entryPoint06Address);
    expect(receipt.logs.some((l) => l.address.toLowerCase() === USDC.toLowerCase())).toBe(true);

    // The hash is the EntryPoint's, and the signature is the owner's over it, wrapped for the wallet.
    const { userOperation } = await bundler.getUserOperation({ hash });
    expect(getUserOperationHash({ chainId: baseSepolia.id, entryPointAddress: entryPoint06Address, entryPointVersion: "0.6", userOperation })).toBe(hash);
    expect(userOperation.initCode?.slice(0, 42).toLowerCase()).toBe(FACTORY.toLowerCase());
    const [{ ownerIndex, signatureData }] = decodeAbiParameters(SIGNATURE_WRAPPER, userOperation.signature);
    expect(ownerIndex).toBe(0);
    expect(await recoverAddress({ hash, signature: signatureData })).toBe(owner.address);

    expect(await usdcOf(to)).toBe(1_250_000n);
    expect(await usdcOf(account.address)).toBe(3_750_000n);
    expect(await client.getBalance({ address: to })).toBe(1_000n);
    expect(await client.getBalance({ address: account.address })).toBe(parseEther("0.01") - 1_000n - receipt.actualGasCost);
    expect(receipt.actualGasCost).toBeGreaterThan(0n);
    expect(await client.getCode({ address: account.address })).toBeDefined(); // deployed
    const key = receipt.nonce >> 64n;
    const next = await client.readContract({ address: entryPoint06Address, abi: entryPoint06Abi, functionName: "getNonce", args: [account.address, key] });
    expect(next).toBe(receipt.nonce + 1n);
  });

  it("sends the next operation without initCode, sponsored by the sandbox's paymaster (a wallet of factory v1, viem's default)", async () => {
    const { account } = await newWallet("1");
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const first = await bundlerFor(account).sendUserOperation({ calls: [{ to, value: 1n }] });
    sandbox.clock.advance(4000);
    await bundlerFor(account).waitForUserOperationReceipt({ hash: first });
    const deployed = await bundlerFor(account).getUserOperation({ hash: first });
    expect(deployed.userOperation.initCode?.slice(0, 42)).toBe("0x0ba5ed0c6aa8c49038f819e587e2633c4a9f428a"); // factory v1
    const eth = await client.getBalance({ address: account.address });

    const sponsored = bundlerFor(account, true);
    const hash = await sponsored.sendUserOperation({ calls: [{ to: USDC, abi: erc20Abi, functionName: "transfer", args: [to, 500_000n] }] });
    sandbox.clock.advance(4000);
    const receipt = await sponsored.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(receipt.paymaster).not.toBe("0x0000000000000000000000000000000000000000");
    const { userOperation } = await sponsored.getUserOperation({ hash });
    expect(userOperation.initCode).toBe("0x");
    expect(userOperation.paymasterAndData?.slice(0, 42).toLowerCase()).toBe(receipt.paymaster?.toLowerCase());
    expect(await client.getBalance({ address: account.address })).toBe(eth); // the paymaster paid
    expect(await usdcOf(to)).toBe(500_000n);
  });

  it("runs EntryPoint v0.7 operations of the wallet (factory and paymaster fields apart)", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = await walletOnEntryPoint07(owner);
    await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "2000000" });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const bundler = bundlerFor(account, true);
    const hash = await bundler.sendUserOperation({ calls: [{ to: USDC, abi: erc20Abi, functionName: "transfer", args: [to, 2_000_000n] }] });
    sandbox.clock.advance(4000);
    const receipt = await bundler.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(receipt.entryPoint).toBe(entryPoint07Address);
    const { userOperation } = await bundler.getUserOperation({ hash });
    expect(userOperation.factory?.toLowerCase()).toBe(FACTORY.toLowerCase());
    expect(getUserOperationHash({ chainId: baseSepolia.id, entryPointAddress: entryPoint07Address, entryPointVersion: "0.7", userOperation })).toBe(hash);
    expect(await usdcOf(to)).toBe(2_000_000n);
    expect(await client.getBalance({ address: account.address })).toBe(0n);
  });

  // viem reads a bundler error by searching its message for the EntryPoint's reasons (/aa20/ before /aa24/):
  // this owner's wallet address (0x1d98…4aa205972a11) holds "aa20", so a message naming it would read as AA20.
  const AA20_IN_WALLET_ADDRESS = `0x${"50".padStart(64, "0")}` as const;
  it.each([
    ["a random owner", generatePrivateKey()],
    ['an owner whose wallet address holds "aa20"', AA20_IN_WALLET_ADDRESS],
  ])("refuses a signature by someone who is not an owner with the bundler's signature error, and changes nothing (%s)", async (_, ownerKey) => {
    const { account } = await newWallet("1.1", privateKeyToAccount(ownerKey));
    if (ownerKey === AA20_IN_WALLET_ADDRESS) expect(account.address.toLowerCase()).toContain("aa20");
    const stranger = privateKeyToAccount(generatePrivateKey());
    const bundler = bundlerFor(account);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const prepared = await bundler.prepareUserOperation({ calls: [{ to: USDC, abi: erc20Abi, functionName: "transfer", args: [to, 1n] }] });
    const hash = getUserOperationHash({ chainId: baseSepolia.id, entryPointAddress: entryPoint06Address, entryPointVersion: "0.6", userOperation: prepared });
    const forged = wrap(await stranger.sign({ hash }));
    const error = await bundler.sendUserOperation({ ...prepared, signature: forged } as Sendable).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BaseError);
    expect((error as BaseError).walk((e) => (e as Error).name === "UserOperationSignatureError")).toBeTruthy();
    expect(causeWithCode(error, -32507)).toBeTruthy();
    expect(await usdcOf(to)).toBe(0n);
    expect(await client.getCode({ address: account.address })).toBeUndefined();
    const key = prepared.nonce >> 64n;
    const next = await client.readContract({ address: entryPoint06Address, abi: entryPoint06Abi, functionName: "getNonce", args: [account.address, key] });
    expect(next).toBe(prepared.nonce);
  });

  it("refuses an initCode that does not create the sender, a replayed nonce, and a prefund the wallet cannot pay", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    // An address computed elsewhere (a public chain's, say) is not what the sandbox's factory creates.
    const elsewhere = await toCoinbaseSmartAccount({ client, owners: [owner], version: "1.1", address: privateKeyToAccount(generatePrivateKey()).address });
    const wrongSender = await bundlerFor(elsewhere)
      .sendUserOperation({ calls: [{ to: owner.address, value: 0n }], callGasLimit: 100_000n, verificationGasLimit: 500_000n, preVerificationGas: 50_000n })
      .catch((e: unknown) => e);
    expect((wrongSender as BaseError).walk((e) => (e as Error).name === "InitCodeMustReturnSenderError")).toBeTruthy();

    const { account } = await newWallet();
    const bundler = bundlerFor(account);
    const hash = await bundler.sendUserOperation({ calls: [{ to: owner.address, value: 1n }], nonce: 0n });
    const { userOperation } = await bundler.getUserOperation({ hash });
    const replay = await bundler.sendUserOperation({ ...userOperation, initCode: "0x" } as Sendable).catch((e: unknown) => e);
    expect((replay as BaseError).walk((e) => (e as Error).name === "InvalidAccountNonceError")).toBeTruthy();

    const poor = await toCoinbaseSmartAccount({ client, owners: [privateKeyToAccount(generatePrivateKey())], version: "1.1" });
    const unpaid = await bundlerFor(poor)
      .sendUserOperation({ calls: [{ to: owner.address, value: 0n }] })
      .catch((e: unknown) => e);
    expect((unpaid as BaseError).walk((e) => (e as Error).name === "InsufficientPrefundError")).toBeTruthy();
  });
});

/** SignatureWrapper(ownerIndex 0, r ‖ s ‖ v), as the wallet takes a signature. */
function wrap(signature: Hex): Hex {
  return encodeAbiParameters(SIGNATURE_WRAPPER, [{ ownerIndex: 0, signatureData: signature }]);
}

const walletAbi = [
  {
    type: "function",
    name: "executeBatch",
    stateMutability: "payable",
    inputs: [
      {
        name: "calls",
        type: "tuple[]",
        components: [
          { name: "target", type: "address" },
          { name: "value", type: "uint256" },
          { name: "data", type: "bytes" },
        ],
      },
    ],
    outputs: [],
  },
] as const;
const factoryAbi = [
  {
    type: "function",
    name: "createAccount",
    stateMutability: "payable",
    inputs: [
      { name: "owners", type: "bytes[]" },
      { name: "nonce", type: "uint256" },
    ],
    outputs: [{ type: "address" }],
  },
  {
    type: "function",
    name: "getAddress",
    stateMutability: "view",
    inputs: [
      { name: "owners", type: "bytes[]" },
      { name: "nonce", type: "uint256" },
    ],
    outputs: [{ type: "address" }],
  },
] as const;

/** The same Coinbase Smart Wallet driven through EntryPoint v0.7: its owner signs the v0.7 userOpHash. */
async function walletOnEntryPoint07(owner: PrivateKeyAccount): Promise<SmartAccount> {
  const owners = [pad(owner.address)];
  const address = await client.readContract({ address: FACTORY, abi: factoryAbi, functionName: "getAddress", args: [owners, 0n] });
  return toSmartAccount({
    client,
    entryPoint: { abi: entryPoint07Abi, address: entryPoint07Address, version: "0.7" },
    getAddress: async () => address,
    getFactoryArgs: async () => ({ factory: FACTORY, factoryData: encodeFunctionData({ abi: factoryAbi, functionName: "createAccount", args: [owners, 0n] }) }),
    encodeCalls: async (calls) =>
      encodeFunctionData({
        abi: walletAbi,
        functionName: "executeBatch",
        args: [calls.map((c) => ({ target: c.to, value: c.value ?? 0n, data: c.data ?? "0x" }))],
      }),
    getStubSignature: async () => wrap(`0x${"ff".repeat(32)}${"7a".repeat(32)}1c`),
    signMessage: async () => {
      throw new Error("not needed here");
    },
    signTypedData: async () => {
      throw new Error("not needed here");
    },
    signUserOperation: async ({ chainId = baseSepolia.id, ...userOperation }) =>
      wrap(
        await owner.sign({
          hash: getUserOperationHash({
            chainId,
            entryPointAddress: entryPoint07Address,
            entryPointVersion: "0.7",
            userOperation: { ...userOperation, sender: address },
          }),
        }),
      ),
  });
}
