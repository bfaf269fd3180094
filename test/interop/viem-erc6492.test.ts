/**
 * ERC-6492 signatures of smart accounts not yet deployed, verified as viem verifies them: a deployless
 * `eth_call` of the universal signature validator on the sandbox's node (what the client's example
 * smartAccount.signTypedData.eip6492 does with publicClient.verifyTypedData).
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import {
  createPublicClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  hashTypedData,
  http,
  pad,
  type PublicClient,
  parseAbi,
  serializeErc6492Signature,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { nodeUrlFor } from "#test/helpers/sandbox.js";
import { TRANSFER_WITH_AUTHORIZATION } from "#test/helpers/x402.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
let client: PublicClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "viem-erc6492" });
  cdp = cdpClientFor(sandbox);
  client = createPublicClient({ chain: baseSepolia, transport: http(await nodeUrlFor(sandbox, "base-sepolia")) }) as PublicClient;
});
afterAll(() => sandbox.close());

const FACTORY = "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842";

const typedData = (from: `0x${string}`, value: bigint) => ({
  domain: { name: "USDC", version: "2", chainId: baseSepolia.id, verifyingContract: getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e") },
  types: TRANSFER_WITH_AUTHORIZATION,
  primaryType: "TransferWithAuthorization" as const,
  message: {
    from,
    to: getAddress("0x0000000000000000000000000000000000000001"),
    value,
    validAfter: 0n,
    validBefore: 4_102_444_800n,
    nonce: `0x${"11".repeat(32)}` as `0x${string}`,
  },
});

describe("viem verifies ERC-6492 signatures of undeployed smart accounts on the sandbox's node", () => {
  it("a smart account's typed-data signature is valid for the same data and invalid for other data or another signer", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = await cdp.evm.createSmartAccount({ owner });
    const data = typedData(smart.address, 1000n);
    // What the client's smartAccount.signTypedData sends back for an undeployed wallet.
    const replaySafe = hashTypedData({
      domain: { name: "Coinbase Smart Wallet", version: "1", chainId: baseSepolia.id, verifyingContract: smart.address },
      types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
      primaryType: "CoinbaseSmartWalletMessage",
      message: { hash: hashTypedData(data) },
    });
    const wrapper = encodeAbiParameters(
      [
        {
          type: "tuple",
          components: [
            { name: "ownerIndex", type: "uint8" },
            { name: "signatureData", type: "bytes" },
          ],
        },
      ],
      [{ ownerIndex: 0, signatureData: await owner.sign({ hash: replaySafe }) }],
    );
    const factoryData = encodeFunctionData({
      abi: parseAbi(["function createAccount(bytes[] owners, uint256 nonce)"]),
      args: [[pad(owner.address)], 0n],
    });
    const signature = serializeErc6492Signature({ address: FACTORY, data: factoryData, signature: wrapper });
    expect(await client.getCode({ address: smart.address })).toBeUndefined();
    expect(await client.verifyTypedData({ address: smart.address, ...data, signature })).toBe(true);
    expect(await client.verifyTypedData({ address: smart.address, ...typedData(smart.address, 1001n), signature })).toBe(false);
    const other = await cdp.evm.createSmartAccount({ owner: privateKeyToAccount(generatePrivateKey()) });
    expect(await client.verifyTypedData({ address: other.address, ...data, signature })).toBe(false);
  });

  it("an EOA's plain signature still verifies through the same path", async () => {
    const account = await cdp.evm.createAccount();
    const data = typedData(account.address, 5n);
    const signature = await account.signTypedData(data);
    expect(await client.verifyTypedData({ address: account.address, ...data, signature })).toBe(true);
  });
});
