/**
 * An ERC-1271 account that is bytecode (compiled with solc here, deployed through the node) signs like any
 * contract wallet: viem's `verifyHash` (ERC-6492's universal validator, run deployless on the node) accepts its
 * owner's signature, before deployment too (6492-wrapped with its CREATE2 factory call), and the x402
 * facilitator verifies and settles its EIP-3009 payment, and it signs in with SIWE. A signature by anyone else
 * is refused everywhere.
 */
import type { Sandbox } from "cdp-sandbox";
import request from "supertest";
import {
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  hashMessage,
  hashTypedData,
  http,
  keccak256,
  parseEther,
  type PublicClient,
  serializeErc6492Signature,
  toHex,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";
import { type Compiled, compileSolidity } from "#test/helpers/solidity.js";
import { TRANSFER_WITH_AUTHORIZATION, USDC_BASE_SEPOLIA, v2Body, v2Requirements } from "#test/helpers/x402.js";

const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

let sandbox: Sandbox;
let node: PublicClient;
let deployer: WalletClient;
let contracts: Record<string, Compiled>;

beforeAll(async () => {
  contracts = compileSolidity(new URL("../fixtures/contracts/OwnedWallet.sol", import.meta.url).pathname);
  sandbox = await withSandbox({ seed: "viem-erc1271-bytecode", validateResponses: true });
  const nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
  node = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) }) as PublicClient;
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
  deployer = createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl) });
});
afterAll(() => sandbox?.close());

async function deploy(name: string, args: unknown[]): Promise<`0x${string}`> {
  const { abi, bytecode } = contracts[name]!;
  const hash = await deployer.deployContract({ abi, bytecode, args, account: deployer.account!, chain: baseSepolia });
  const receipt = await node.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return getAddress(receipt.contractAddress!);
}

describe("a bytecode ERC-1271 wallet", () => {
  it("is accepted by viem's verifyHash through the node for its owner's signature, and refused for another's", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await deploy("OwnedWallet", [owner.address]);
    const hash = keccak256(toHex("bytecode wallets sign too"));
    expect(await node.verifyHash({ address: wallet, hash, signature: await owner.sign({ hash }) })).toBe(true);
    const stranger = privateKeyToAccount(generatePrivateKey());
    expect(await node.verifyHash({ address: wallet, hash, signature: await stranger.sign({ hash }) })).toBe(false);
    // A signature of the right owner over another hash is no signature of this one.
    expect(await node.verifyHash({ address: wallet, hash, signature: await owner.sign({ hash: keccak256("0x01") }) })).toBe(false);
  });

  it("signs before it is deployed (ERC-6492 with its CREATE2 factory call), and the check deploys nothing", async () => {
    const factory = await deploy("OwnedWalletFactory", []);
    const owner = privateKeyToAccount(generatePrivateKey());
    const salt = keccak256(toHex("salt"));
    const wallet = getContractAddress({
      opcode: "CREATE2",
      from: factory,
      salt,
      bytecode: encodeDeployData({ abi: contracts.OwnedWallet!.abi, bytecode: contracts.OwnedWallet!.bytecode, args: [owner.address] }),
    });
    const factoryData = encodeFunctionData({ abi: contracts.OwnedWalletFactory!.abi, functionName: "create", args: [owner.address, salt] });
    const hash = keccak256(toHex("counterfactual"));
    const wrap = async (signer: typeof owner) => serializeErc6492Signature({ address: factory, data: factoryData, signature: await signer.sign({ hash }) });
    expect(await node.verifyHash({ address: wallet, hash, signature: await wrap(owner) })).toBe(true);
    expect(await node.verifyHash({ address: wallet, hash, signature: await wrap(privateKeyToAccount(generatePrivateKey())) })).toBe(false);
    // The validator's deployment ran in a call: the wallet is still counterfactual.
    expect(await node.getCode({ address: wallet })).toBeUndefined();
  });

  it("pays through the x402 facilitator (exact, EIP-3009): verified, settled, and refused when someone else signed", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await deploy("OwnedWallet", [owner.address]);
    await fund(sandbox, { network: "base-sepolia", address: wallet, token: "USDC", amount: "1000000" });
    const nowSeconds = Math.floor(sandbox.clock.now() / 1000);
    const authorization = {
      from: wallet,
      to: MERCHANT,
      value: "250000",
      validAfter: String(nowSeconds - 600),
      validBefore: String(nowSeconds + 120),
      nonce: keccak256(toHex(`x402 ${wallet}`)),
    } as const;
    const hash = hashTypedData({
      domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: USDC_BASE_SEPOLIA },
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: "TransferWithAuthorization",
      message: { ...authorization, value: 250000n, validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
    });
    const requirements = v2Requirements(MERCHANT, "250000");

    const forged = v2Body(requirements, { authorization, signature: await privateKeyToAccount(generatePrivateKey()).sign({ hash }) });
    const refused = await call(sandbox, "POST", "/platform/v2/x402/verify", { body: forged });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_signature", payer: wallet });

    const body = v2Body(requirements, { authorization, signature: await owner.sign({ hash }) });
    const verified = await call(sandbox, "POST", "/platform/v2/x402/verify", { body });
    expect(verified.body).toMatchObject({ isValid: true, payer: wallet });
    const settled = await call(sandbox, "POST", "/platform/v2/x402/settle", { body });
    expect(settled.body).toMatchObject({ success: true, payer: wallet });
    const usdc = (address: `0x${string}`) =>
      node.readContract({
        address: USDC_BASE_SEPOLIA,
        abi: [{ type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ type: "address" }], outputs: [{ type: "uint256" }] }],
        functionName: "balanceOf",
        args: [address],
      });
    expect(await usdc(wallet)).toBe(750000n);
    expect(await usdc(MERCHANT)).toBe(250000n);
  });
});

describe("Sign-In with Ethereum by a bytecode ERC-1271 wallet", () => {
  it("signs in with its owner's signature of the message on the wallet's chain, and is refused for another's", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await deploy("OwnedWallet", [owner.address]);
    const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${sandbox.credentials.projectId}/auth/${p}`;
    const start = () =>
      request(sandbox.url).post(auth("init")).send({ type: "siwe", address: wallet, chainId: 84532, domain: "localhost:3000", uri: "http://localhost:3000/" });
    const forged = await start();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const refused = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: forged.body.flowId, signature: await stranger.sign({ hash: hashMessage(forged.body.message) }) });
    expect(refused.status).toBe(400);
    expect(refused.body.errorType).toBe("invalid_signature");
    const flow = await start();
    const ok = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: flow.body.flowId, signature: await owner.sign({ hash: hashMessage(flow.body.message) }) });
    expect(ok.status).toBe(200);
    expect(ok.body.endUser.authenticationMethods).toEqual([{ type: "siwe", address: wallet }]);
  });
});
