/**
 * x402 payments signed by a smart account, as the official client signs them: `signX402Payment` of a
 * `cdp.evm` smart account has its owner sign the wallet's replay-safe hash through the platform, and wraps the
 * signature for ERC-6492 while the wallet has no code (it asks the chain's default public RPC, which the test
 * sends to the sandbox's node as the register hook would). The facilitator must accept it by running the account:
 * undeployed → 6492 (the settlement deploys the wallet), deployed → ERC-1271. The signatures are checked
 * independently with viem (the 6492 wrapper's factory call, and the owner's ECDSA signature over the wallet's
 * replay-safe EIP-712 hash). `upto` (Permit2) payments of a smart account go through the same check.
 */
import type { CdpClient, EvmSmartAccount } from "@coinbase/cdp-sdk";
import { createCdpFacilitatorClient, fromCdpSmartWallet } from "@coinbase/cdp-sdk/x402";
import { x402Client } from "@x402/core/client";
import type { Network, PaymentRequired } from "@x402/core/types";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import {
  createPublicClient,
  decodeAbiParameters,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  hashTypedData,
  http,
  isErc6492Signature,
  parseAbi,
  parseErc6492Signature,
  type PublicClient,
  recoverTypedDataAddress,
} from "viem";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { installFetchRedirect } from "../../src/register/fetch.js";
import { call, fund } from "#test/helpers/sandbox.js";
import { PERMIT2, TRANSFER_WITH_AUTHORIZATION, USDC_BASE_SEPOLIA, UPTO_PERMIT2_PROXY, v2Requirements } from "#test/helpers/x402.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

const BASE_SEPOLIA = "eip155:84532" as Network;
const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const factoryAbi = parseAbi(["function createAccount(bytes[] owners, uint256 nonce) payable returns (address)"]);
const wrapperAbi = [{ type: "tuple", components: [{ type: "uint8" }, { type: "bytes" }] }] as const;

let sandbox: Sandbox;
let cdp: CdpClient;
let facilitator: ReturnType<typeof createCdpFacilitatorClient>;
let node: PublicClient;
const originalFetch = globalThis.fetch;
const savedRpcUrls = process.env.CDP_X402_RPC_URLS;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-x402-smart-account", validateResponses: true });
  const { apiKeyId, apiKeySecret } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  facilitator = createCdpFacilitatorClient({ apiKeyId, apiKeySecret, baseUrl: `${sandbox.basePath}/v2/x402` });
  const nodeToken = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
  const nodeUrl = `${sandbox.url}/rpc/v1/base-sepolia/${nodeToken}`;
  node = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) }) as PublicClient;
  // The client reads the wallet's code from Base Sepolia's public endpoint: the register hook's redirect, in this process.
  const origin = new URL(sandbox.url);
  installFetchRedirect({ origin: origin.origin, host: origin.host, https: false, nodeToken });
  process.env.CDP_X402_RPC_URLS = JSON.stringify({ [BASE_SEPOLIA]: nodeUrl });
});
afterAll(async () => {
  globalThis.fetch = originalFetch;
  if (savedRpcUrls === undefined) delete process.env.CDP_X402_RPC_URLS;
  else process.env.CDP_X402_RPC_URLS = savedRpcUrls;
  await sandbox.close();
});

const paymentRequired = (accepts: unknown[]): PaymentRequired =>
  ({
    x402Version: 2,
    error: "Payment required",
    resource: { url: "https://tides.example.org/v1/forecast", description: "Tide heights", mimeType: "application/json" },
    accepts,
  }) as unknown as PaymentRequired;

async function fundedSmartAccount(usdc: string): Promise<{ smart: EvmSmartAccount; owner: `0x${string}` }> {
  const owner = await cdp.evm.createAccount();
  const smart = await cdp.evm.createSmartAccount({ owner });
  await fund(sandbox, { network: "base-sepolia", address: smart.address, token: "USDC", amount: usdc });
  return { smart, owner: owner.address };
}

const usdcOf = async (address: `0x${string}`) => node.readContract({ address: USDC_BASE_SEPOLIA, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** Who signed the wallet's replay-safe hash of `hash` (CoinbaseSmartWallet's EIP-712 wrapper), read from the SignatureWrapper. */
async function ownerWhoSigned(wallet: `0x${string}`, hash: Hex, walletSignature: Hex): Promise<`0x${string}`> {
  const [[, signatureData]] = decodeAbiParameters(wrapperAbi, walletSignature);
  return recoverTypedDataAddress({
    domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 84532, verifyingContract: wallet },
    types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
    primaryType: "CoinbaseSmartWalletMessage",
    message: { hash },
    signature: signatureData,
  });
}

const authorizationHash = (payload: { authorization: Record<string, string> }) =>
  hashTypedData({
    domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: USDC_BASE_SEPOLIA },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: "TransferWithAuthorization",
    message: {
      from: payload.authorization.from as `0x${string}`,
      to: payload.authorization.to as `0x${string}`,
      value: BigInt(payload.authorization.value!),
      validAfter: BigInt(payload.authorization.validAfter!),
      validBefore: BigInt(payload.authorization.validBefore!),
      nonce: payload.authorization.nonce as Hex,
    },
  });

describe("an x402 payment signed by a smart account (exact, EIP-3009)", () => {
  it("is verified and settled before the wallet is deployed (ERC-6492), which deploys it, and after (ERC-1271)", async () => {
    const { smart, owner } = await fundedSmartAccount("1000000");
    expect(await node.getCode({ address: smart.address })).toBeUndefined();
    const requirements = v2Requirements(MERCHANT, "250000");

    const first = await smart.signX402Payment(paymentRequired([requirements]), 0);
    const firstPayload = first.payload as { signature: Hex; authorization: Record<string, string> };
    // Checked with viem alone: a 6492 wrapper whose factory call creates the wallet for its owner, around the owner's signature.
    expect(isErc6492Signature(firstPayload.signature)).toBe(true);
    const wrapped = parseErc6492Signature(firstPayload.signature);
    const { args } = decodeFunctionData({ abi: factoryAbi, data: wrapped.data! });
    expect(decodeAbiParameters([{ type: "address" }], args[0][0]!)[0]).toBe(owner);
    expect(await ownerWhoSigned(smart.address, authorizationHash(firstPayload), wrapped.signature)).toBe(owner);

    expect(await facilitator.verify(first, requirements as never)).toMatchObject({ isValid: true, payer: smart.address });
    expect(await facilitator.settle(first, requirements as never)).toMatchObject({ success: true, payer: smart.address, network: BASE_SEPOLIA });
    expect(await usdcOf(MERCHANT)).toBe(250000n);
    expect(await usdcOf(smart.address)).toBe(750000n);
    // The facilitator ran the factory call: the wallet has code now, as on chain.
    expect(await node.getCode({ address: smart.address })).toMatch(/^0x.+/);

    const second = await smart.signX402Payment(paymentRequired([requirements]), 0);
    const secondPayload = second.payload as { signature: Hex; authorization: Record<string, string> };
    expect(isErc6492Signature(secondPayload.signature)).toBe(false);
    expect(await ownerWhoSigned(smart.address, authorizationHash(secondPayload), secondPayload.signature)).toBe(owner);
    // viem's verifyHash against the node agrees with the facilitator, for both signatures.
    for (const payload of [firstPayload, secondPayload])
      expect(await node.verifyHash({ address: smart.address, hash: authorizationHash(payload), signature: payload.signature })).toBe(true);
    expect(await facilitator.settle(second, requirements as never)).toMatchObject({ success: true, payer: smart.address });
    expect(await usdcOf(smart.address)).toBe(500000n);
  });

  it("is refused when the authorization was changed after signing, or another account's owner signed it", async () => {
    const { smart } = await fundedSmartAccount("1000000");
    const requirements = v2Requirements(MERCHANT, "100000");
    const signed = await smart.signX402Payment(paymentRequired([requirements]), 0);
    const payload = signed.payload as { signature: Hex; authorization: Record<string, string> };

    const raisedRequirements = { ...requirements, amount: "200000" };
    const raised = { ...signed, accepted: raisedRequirements, payload: { ...payload, authorization: { ...payload.authorization, value: "200000" } } };
    await expect(facilitator.verify(raised as never, raisedRequirements as never)).rejects.toMatchObject({
      invalidReason: "invalid_exact_evm_payload_signature",
    });

    // The same signature claimed for another smart account: its 6492 factory call does not create that one.
    const { smart: other } = await fundedSmartAccount("1000000");
    const claimed = { ...signed, payload: { ...payload, authorization: { ...payload.authorization, from: other.address } } };
    await expect(facilitator.verify(claimed, requirements as never)).rejects.toMatchObject({ invalidReason: "invalid_exact_evm_payload_signature" });
    expect(await usdcOf(smart.address)).toBe(1000000n);
    expect(await usdcOf(other.address)).toBe(1000000n);
    expect(await node.getCode({ address: other.address })).toBeUndefined();
  });
});

describe("an x402 upto payment signed by a smart account (Permit2)", () => {
  it("passes the signature check undeployed (ERC-6492) and settles once the wallet has approved Permit2 (ERC-1271)", async () => {
    const { smart } = await fundedSmartAccount("1000000");
    const requirements = {
      scheme: "upto",
      network: BASE_SEPOLIA,
      asset: USDC_BASE_SEPOLIA,
      amount: "100000",
      payTo: MERCHANT,
      maxTimeoutSeconds: 300,
      extra: {
        name: "USDC",
        version: "2",
        assetTransferMethod: "permit2",
        facilitatorAddress: (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.kinds.find(
          (k: { scheme: string; network: string }) => k.scheme === "upto" && k.network === BASE_SEPOLIA,
        ).extra.facilitatorAddress,
      },
    };
    const client = () => new x402Client().register(BASE_SEPOLIA, new UptoEvmScheme(fromCdpSmartWallet(smart)));

    const undeployed = await client().createPaymentPayload(paymentRequired([requirements]));
    expect(isErc6492Signature((undeployed.payload as { signature: Hex }).signature)).toBe(true);
    expect((undeployed.payload as { permit2Authorization: { spender: string } }).permit2Authorization.spender).toBe(UPTO_PERMIT2_PROXY);
    // The signature is the wallet's; what stops the payment is the allowance the wallet has not given Permit2 yet.
    await expect(facilitator.verify(undeployed, requirements as never)).rejects.toMatchObject({ invalidReason: "permit2_allowance_required" });

    // The wallet's first user operation deploys it and approves Permit2.
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, 1_000_000n] });
    const op = await cdp.evm.sendUserOperation({ smartAccount: smart, network: "base-sepolia", calls: [{ to: USDC_BASE_SEPOLIA, data: approve, value: 0n }] });
    expect(await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: op.userOpHash })).toMatchObject({ status: "complete" });

    const deployed = await client().createPaymentPayload(paymentRequired([requirements]));
    expect(isErc6492Signature((deployed.payload as { signature: Hex }).signature)).toBe(false);
    expect(await facilitator.verify(deployed, requirements as never)).toMatchObject({ isValid: true, payer: smart.address });
    expect(await facilitator.settle(deployed, { ...requirements, amount: "40000" } as never)).toMatchObject({ success: true, payer: smart.address });
    expect(await usdcOf(smart.address)).toBe(960000n);
  });
});
