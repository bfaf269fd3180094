/**
 * The sandbox's tokens as clients meet them: the node answers viem's ERC-20
 * reads with the real contracts' metadata (the x402 package's own asset
 * table agrees on every network both know), an x402 payment signed over the
 * domain the node reports settles, and the official client swaps DAI for
 * USDC on Optimism the way its network-hoisting example does.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { createCdpFacilitatorClient } from "@coinbase/cdp-sdk/x402";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { DEFAULT_ASSETS } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  createPublicClient,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  parseAbi,
  parseUnits,
  toHex,
  type Address,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund, hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
let nodeToken: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-token-table", validateResponses: true });
  const { apiKeyId, apiKeySecret } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(apiKeyId, apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
  nodeToken = ((await (await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as { id: string }).id;
});
afterAll(() => sandbox.close());

const node = (network: string) => createPublicClient({ transport: http(`${sandbox.url}/rpc/v1/${network}/${nodeToken}`) }) as PublicClient;

const fiatTokenAbi = parseAbi(["function version() view returns (string)", "function DOMAIN_SEPARATOR() view returns (bytes32)"]);
const DAI_OPTIMISM = "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1";
const USDC_OPTIMISM = "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85";
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";

async function metadata(client: PublicClient, address: Address) {
  const read = <F extends "name" | "symbol" | "decimals">(functionName: F) => client.readContract({ address, abi: erc20Abi, functionName });
  return { name: await read("name"), symbol: await read("symbol"), decimals: await read("decimals") };
}

describe("the node's ERC-20 tokens", () => {
  it("answers name, symbol, decimals and the EIP-712 version of every asset @x402/evm lists for the sandbox's networks", async () => {
    const networkOf: Record<string, string> = {
      "eip155:8453": "base",
      "eip155:84532": "base-sepolia",
      "eip155:1": "ethereum",
      "eip155:137": "polygon",
      "eip155:42161": "arbitrum",
      "eip155:421614": "arbitrum-sepolia",
      "eip155:43114": "avalanche",
    };
    let checked = 0;
    for (const [caip2, assets] of Object.entries(DEFAULT_ASSETS)) {
      const network = networkOf[caip2];
      if (!network) continue;
      for (const asset of assets) {
        const client = node(network);
        expect(await metadata(client, asset.asset as Address), `${network} ${asset.asset}`).toEqual({
          name: asset.name,
          symbol: asset.symbol,
          decimals: asset.decimals,
        });
        expect(await client.readContract({ address: asset.asset as Address, abi: fiatTokenAbi, functionName: "version" })).toBe(asset.version);
        checked++;
      }
    }
    expect(checked).toBe(Object.keys(networkOf).length);
  });

  it("knows the common tokens of Optimism, Ethereum and Arbitrum, and answers DAI's reads on Optimism", async () => {
    const optimism = node("optimism");
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    await fund(sandbox, { network: "optimism", address: holder, token: "DAI", amount: "2500000000000000000" });
    expect(await metadata(optimism, DAI_OPTIMISM)).toEqual({ name: "Dai Stablecoin", symbol: "DAI", decimals: 18 });
    expect(await optimism.readContract({ address: DAI_OPTIMISM, abi: erc20Abi, functionName: "balanceOf", args: [holder] })).toBe(2_500_000_000_000_000_000n);
    expect(await optimism.readContract({ address: DAI_OPTIMISM, abi: erc20Abi, functionName: "allowance", args: [holder, PERMIT2] })).toBe(0n);
    expect(await optimism.readContract({ address: DAI_OPTIMISM, abi: erc20Abi, functionName: "totalSupply" })).toBeGreaterThanOrEqual(
      2_500_000_000_000_000_000n,
    );
    expect(await optimism.getCode({ address: DAI_OPTIMISM })).not.toBeUndefined();
    expect(await metadata(optimism, "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58")).toEqual({ name: "Tether USD", symbol: "USDT", decimals: 6 });
    expect(await metadata(node("ethereum"), "0x6B175474E89094C44Da98b954EedeAC495271d0F")).toEqual({ name: "Dai Stablecoin", symbol: "DAI", decimals: 18 });
    expect(await metadata(node("ethereum"), "0xdAC17F958D2ee523a2206206994597C13D831ec7")).toEqual({ name: "Tether USD", symbol: "USDT", decimals: 6 });
    expect(await metadata(node("arbitrum"), "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1")).toEqual({ name: "Wrapped Ether", symbol: "WETH", decimals: 18 });
    expect((await metadata(node("base"), "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf")).decimals).toBe(8);
  });

  it("answers a call to an address without code with empty data, and a token's missing function with a revert", async () => {
    const optimism = node("optimism");
    const nobody = privateKeyToAccount(generatePrivateKey()).address;
    const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [nobody] });
    expect(await optimism.call({ to: nobody, data: balanceOf })).toEqual({ data: undefined });
    expect(await optimism.getCode({ address: nobody })).toBeUndefined();
    // DAI has no EIP-3009 domain version() in the sandbox's table: the call reverts, as a contract without the function does.
    await expect(optimism.readContract({ address: DAI_OPTIMISM, abi: fiatTokenAbi, functionName: "version" })).rejects.toThrow(/reverted/);
  });
});

describe("an x402 payment over the token domain the node reports", () => {
  it("settles on Base Sepolia: extra.name and version read from USDC itself, signed by the protocol's own client", async () => {
    const usdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
    const client = node("base-sepolia");
    const name = await client.readContract({ address: usdc, abi: erc20Abi, functionName: "name" });
    const version = await client.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "version" });
    // The separator the contract reports is the EIP-712 domain hash of that name and version (computed here by hand).
    const typeHash = keccak256(toHex("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"));
    expect(await client.readContract({ address: usdc, abi: fiatTokenAbi, functionName: "DOMAIN_SEPARATOR" })).toBe(
      keccak256(
        encodeAbiParameters(
          [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
          [typeHash, keccak256(toHex(name)), keccak256(toHex(version)), 84532n, usdc],
        ),
      ),
    );

    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "100000" });
    const requirements = {
      scheme: "exact",
      network: "eip155:84532",
      asset: usdc,
      amount: "40000",
      payTo: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      maxTimeoutSeconds: 120,
      extra: { name, version },
    };
    const required = {
      x402Version: 2,
      error: "Payment required",
      resource: { url: "https://tides.example.org/v1/forecast", description: "Tide heights", mimeType: "application/json" },
      accepts: [requirements],
    } as unknown as PaymentRequired;
    const payload = await registerExactEvmScheme(new x402Client(), { signer: payer }).createPaymentPayload(required);
    const { apiKeyId, apiKeySecret } = sandbox.credentials;
    const facilitator = createCdpFacilitatorClient({ apiKeyId, apiKeySecret, baseUrl: `${sandbox.basePath}/v2/x402` });
    expect(await facilitator.verify(payload, required.accepts[0]!)).toMatchObject({ isValid: true, payer: payer.address });
    expect(await facilitator.settle(payload, required.accepts[0]!)).toMatchObject({ success: true, payer: payer.address });
  });
});

describe("@coinbase/cdp-sdk swaps on Optimism, as its network-hoisting example runs them", () => {
  it("checks and approves DAI's Permit2 allowance on the node, prices DAI → USDC, swaps, and reads the balances back", async () => {
    const optimism = node("optimism");
    const account = await cdp.evm.createAccount();
    await fund(sandbox, { network: "optimism", address: account.address, amount: parseUnits("0.01", 18).toString() });
    await fund(sandbox, { network: "optimism", address: account.address, token: "DAI", amount: parseUnits("1", 18).toString() });
    const fromAmount = parseUnits("0.01", 18);

    const allowance = () => optimism.readContract({ address: DAI_OPTIMISM, abi: erc20Abi, functionName: "allowance", args: [account.address, PERMIT2] });
    expect(await allowance()).toBe(0n);
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, fromAmount * 2n] });
    const { transactionHash } = await account.sendTransaction({ network: "optimism", transaction: { to: DAI_OPTIMISM, data: approve } });
    expect((await optimism.waitForTransactionReceipt({ hash: transactionHash, pollingInterval: 50 })).status).toBe("success");
    expect(await allowance()).toBe(fromAmount * 2n);

    const price = await cdp.evm.getSwapPrice({ network: "optimism", fromToken: DAI_OPTIMISM, toToken: USDC_OPTIMISM, fromAmount, taker: account.address });
    expect(price).toMatchObject({ liquidityAvailable: true, toAmount: 9_990n }); // $0.01 of DAI at $1, less the 0.1 % fee
    const swapped = await account.swap({ network: "optimism", fromToken: DAI_OPTIMISM, toToken: USDC_OPTIMISM, fromAmount, slippageBps: 100 });
    expect((await optimism.getTransactionReceipt({ hash: swapped.transactionHash })).status).toBe("success");
    const balance = (token: Address) => optimism.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account.address] });
    expect(await balance(DAI_OPTIMISM)).toBe(parseUnits("1", 18) - fromAmount);
    expect(await balance(USDC_OPTIMISM)).toBe(9_990n);
  });
});
