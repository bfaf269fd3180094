/**
 * `@coinbase/onchainkit/api` itself, pointed at the sandbox's node with the project's client API key
 * (`setOnchainKitConfig({ rpcUrl, chain })`): tokens, quotes, a swap the kit builds and a viem wallet sends
 * through the node (the settler moves the tokens), portfolios and prices valued from the swap price table, a
 * checkout charge hydrated and paid on the ledger, NFT reads and mints (when the chain runs contract bytecode),
 * and the refusals the kit turns into its error structs.
 */
import { setOnchainKitConfig } from "@coinbase/onchainkit";
import {
  buildMintTransaction,
  buildPayTransaction,
  buildSwapTransaction,
  getMintDetails,
  getPortfolios,
  getPriceQuote,
  getSwapQuote,
  getTokenDetails,
  getTokens,
} from "@coinbase/onchainkit/api";
import type { Token } from "@coinbase/onchainkit/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  parseAbi,
  type PublicClient,
  parseEther,
} from "viem";
import { createBundlerClient, createPaymasterClient, toCoinbaseSmartAccount } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let rpcUrl: string;
let client: PublicClient;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
const ETH_TOKEN: Token = { address: "", chainId: baseSepolia.id, decimals: 18, image: null, name: "Ether", symbol: "ETH" };
const USDC_TOKEN: Token = { address: USDC, chainId: baseSepolia.id, decimals: 6, image: null, name: "USDC", symbol: "USDC" };

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onchainkit-api" });
  rpcUrl = `${sandbox.url}/rpc/v1/base-sepolia/${sandbox.credentials.clientApiKey}`;
  setOnchainKitConfig({ rpcUrl, chain: baseSepolia });
  client = createPublicClient({ chain: baseSepolia, transport: http(rpcUrl) }) as PublicClient;
});
afterAll(() => sandbox.close());

/** A fresh EOA with ETH for gas (and `usdc` USDC, smallest unit), and a viem wallet sending through the node. */
async function newWallet(usdc = "0") {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("1").toString() });
  if (usdc !== "0") await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: usdc });
  const wallet = createWalletClient({ account, chain: baseSepolia as Chain, transport: http(rpcUrl) });
  return { account, wallet };
}

const usdcOf = (address: `0x${string}`) => client.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address] });

describe("OnchainKit's API functions against the sandbox node", () => {
  it("lists the swappable tokens of the network, filtered by search", async () => {
    const tokens = await getTokens();
    expect(tokens).toEqual(expect.arrayContaining([ETH_TOKEN, USDC_TOKEN]));
    expect(await getTokens({ search: "usdc" })).toEqual([USDC_TOKEN]);
    expect(await getTokens({ limit: "1", page: "2" })).toHaveLength(1);
  });

  it("quotes from the price table: 0.001 ETH at $3,000 buys 3 USDC less the 0.1 % protocol fee", async () => {
    const quote = await getSwapQuote({ from: ETH_TOKEN, to: USDC_TOKEN, amount: "0.001", useAggregator: false, maxSlippage: "3" });
    expect(quote).toMatchObject({
      from: ETH_TOKEN,
      to: USDC_TOKEN,
      fromAmount: "1000000000000000",
      toAmount: "2997000",
      fromAmountUSD: "3",
      toAmountUSD: "2.997",
      slippage: "3",
      amountReference: "from",
    });
  });

  it("builds a swap a viem wallet sends through the node: the settler leaves the USDC in the wallet", async () => {
    const { account, wallet } = await newWallet();
    const built = await buildSwapTransaction({ fromAddress: account.address, from: ETH_TOKEN, to: USDC_TOKEN, amount: "0.001", useAggregator: false });
    if ("error" in built) throw new Error(built.error);
    expect(built.approveTransaction).toBeUndefined();
    expect(built.transaction.chainId).toBe(baseSepolia.id);
    const hash = await wallet.sendTransaction({ to: built.transaction.to, data: built.transaction.data, value: built.transaction.value });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await usdcOf(account.address)).toBe(2997000n);
    // The quote is spent: sending the same trade again reverts.
    const again = await wallet.sendTransaction({ to: built.transaction.to, data: built.transaction.data, value: built.transaction.value, gas: 300_000n });
    expect((await client.waitForTransactionReceipt({ hash: again })).status).toBe("reverted");
  });

  it("sells an ERC-20 with the approve transaction the trade comes with", async () => {
    const { account, wallet } = await newWallet("3000000");
    const built = await buildSwapTransaction({ fromAddress: account.address, from: USDC_TOKEN, to: ETH_TOKEN, amount: "3", useAggregator: false });
    if ("error" in built) throw new Error(built.error);
    expect(built.approveTransaction).toBeDefined();
    const before = await client.getBalance({ address: account.address });
    const approve = await wallet.sendTransaction({ to: built.approveTransaction!.to, data: built.approveTransaction!.data, value: 0n });
    expect((await client.waitForTransactionReceipt({ hash: approve })).status).toBe("success");
    const swap = await wallet.sendTransaction({ to: built.transaction.to, data: built.transaction.data, value: built.transaction.value });
    const receipt = await client.waitForTransactionReceipt({ hash: swap });
    expect(receipt.status).toBe("success");
    expect(await usdcOf(account.address)).toBe(0n);
    const gas = (await client.getTransactionReceipt({ hash: approve })).gasUsed * receipt.effectiveGasPrice + receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await client.getBalance({ address: account.address })).toBe(before - gas + BigInt(built.quote.toAmount));
  });

  it("reverts an ERC-20 sell sent without its approve, moving nothing, and settles it once approved", async () => {
    const { account, wallet } = await newWallet("1000000");
    const built = await buildSwapTransaction({ fromAddress: account.address, from: USDC_TOKEN, to: ETH_TOKEN, amount: "1", useAggregator: false });
    if ("error" in built) throw new Error(built.error);
    const early = await wallet.sendTransaction({ to: built.transaction.to, data: built.transaction.data, value: 0n, gas: 300_000n });
    const reverted = await client.waitForTransactionReceipt({ hash: early });
    expect(reverted.status).toBe("reverted");
    expect(await usdcOf(account.address)).toBe(1000000n);
    const approve = await wallet.sendTransaction({ to: built.approveTransaction!.to, data: built.approveTransaction!.data });
    await client.waitForTransactionReceipt({ hash: approve });
    // The quote stayed open: the same transaction now settles it.
    const again = await wallet.sendTransaction({ to: built.transaction.to, data: built.transaction.data, value: 0n });
    expect((await client.waitForTransactionReceipt({ hash: again })).status).toBe("success");
    expect(await usdcOf(account.address)).toBe(0n);
  });

  it("values any addresses' balances with the price table", async () => {
    const { account } = await newWallet("2500000");
    const result = await getPortfolios({ addresses: [account.address] });
    if ("error" in result) throw new Error(result.error);
    expect(result.portfolios).toEqual([
      {
        address: account.address,
        portfolioBalanceInUsd: 3002.5,
        tokenBalances: [
          { ...ETH_TOKEN, cryptoBalance: 1e18, fiatBalance: 3000 },
          { ...USDC_TOKEN, cryptoBalance: 2500000, fiatBalance: 2.5 },
        ],
      },
    ]);
  });

  it("prices tokens, at the sandbox clock's time", async () => {
    const result = await getPriceQuote({ tokens: ["ETH", USDC] });
    if ("error" in result) throw new Error(result.error);
    const timestamp = Math.floor(sandbox.clock.now() / 1000);
    expect(result.priceQuotes).toEqual([
      { name: "Ether", symbol: "ETH", contractAddress: "", price: "3000", timestamp },
      { name: "USDC", symbol: "USDC", contractAddress: USDC, price: "1", timestamp },
    ]);
    expect(await getPriceQuote({ tokens: ["0x0000000000000000000000000000000000000001"] })).toMatchObject({ code: "-32602" });
  });

  it("refuses a bad swap with the platform's invalid-params code, storing nothing", async () => {
    const bad = await getSwapQuote({ from: ETH_TOKEN, to: ETH_TOKEN, amount: "1", useAggregator: false });
    expect(bad).toMatchObject({ error: expect.stringContaining("same token") });
  });
});

const transfersAbi = parseAbi([
  "struct TransferIntent { uint256 recipientAmount; uint256 deadline; address recipient; address recipientCurrency; address refundDestination; uint256 feeAmount; bytes16 id; address operator; bytes signature; bytes prefix; }",
  "function transferTokenPreApproved(TransferIntent _intent)",
]);

/** The two calls OnchainKit's checkout sends for a PayTransaction: approve, then transferTokenPreApproved. */
async function pay(wallet: Awaited<ReturnType<typeof newWallet>>["wallet"], tx: Exclude<Awaited<ReturnType<typeof buildPayTransaction>>, { error: string }>) {
  const { callData, metaData } = tx;
  const approve = await wallet.sendTransaction({
    to: callData.recipientCurrency,
    data: encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [metaData.contractAddress, BigInt(callData.recipientAmount) + BigInt(callData.feeAmount)],
    }),
  });
  await client.waitForTransactionReceipt({ hash: approve });
  const data = encodeFunctionData({
    abi: transfersAbi,
    functionName: "transferTokenPreApproved",
    args: [
      {
        id: callData.id as Hex,
        recipientAmount: BigInt(callData.recipientAmount),
        deadline: BigInt(Math.floor(new Date(callData.deadline).getTime() / 1e3)),
        recipient: callData.recipient,
        recipientCurrency: callData.recipientCurrency,
        refundDestination: callData.refundDestination,
        feeAmount: BigInt(callData.feeAmount),
        operator: callData.operator,
        signature: callData.signature,
        prefix: callData.prefix,
      },
    ],
  });
  const hash = await wallet.sendTransaction({ to: metaData.contractAddress, data, gas: 200_000n });
  return client.waitForTransactionReceipt({ hash });
}

describe("checkout charges", () => {
  const RECIPIENT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

  it("hydrates a charge the developer created and settles it on the ledger when the payment lands", async () => {
    const created = await call(sandbox, "POST", "/_sandbox/charges", {
      body: { network: "base-sepolia", name: "T-shirt", amount: "1000000", recipient: RECIPIENT },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe("NEW");
    const { account, wallet } = await newWallet("1000000");
    const tx = await buildPayTransaction({ address: account.address, chargeId: created.body.chargeId });
    if ("error" in tx) throw new Error(tx.error);
    expect(tx).toMatchObject({
      id: created.body.chargeId,
      callData: { recipientAmount: "990000", feeAmount: "10000", recipient: RECIPIENT, recipientCurrency: USDC, refundDestination: account.address },
      metaData: { chainId: baseSepolia.id, sender: account.address, settlementCurrencyAddress: USDC },
    });
    const pending = await call(sandbox, "GET", "/_sandbox/charges");
    expect(pending.body.items[0]).toMatchObject({ chargeId: created.body.chargeId, status: "PENDING", payer: account.address });
    const recipientBefore = await usdcOf(RECIPIENT);
    const receipt = await pay(wallet, tx);
    expect(receipt.status).toBe("success");
    expect(await usdcOf(account.address)).toBe(0n);
    expect((await usdcOf(RECIPIENT)) - recipientBefore).toBe(990000n);
    const paid = await call(sandbox, "GET", "/_sandbox/charges");
    expect(paid.body.items[0]).toMatchObject({ status: "COMPLETED", transactionHash: receipt.transactionHash });
    const explored = await call(sandbox, "GET", `/_sandbox/chain/transactions/${receipt.transactionHash}`);
    expect(explored.body).toMatchObject({ status: "success", summary: "Checkout payment of 0.99 USDC to 0x709979…79C8" });
    // A paid charge is no longer payable: the kit's "invalid charge".
    expect(await buildPayTransaction({ address: account.address, chargeId: created.body.chargeId })).toMatchObject({
      code: "AmBPTa02",
      message: "CHECKOUT_INVALID_CHARGE_ERROR",
    });
  });

  it("creates a charge per checkout of a product, and a short payer's payment reverts leaving it PENDING", async () => {
    const product = await call(sandbox, "PUT", "/_sandbox/commerce-products/sticker", {
      body: { network: "base-sepolia", name: "Sticker", amount: "500000", recipient: RECIPIENT },
    });
    expect(product.status).toBe(200);
    const { account, wallet } = await newWallet("100000");
    const tx = await buildPayTransaction({ address: account.address, productId: "sticker" });
    if ("error" in tx) throw new Error(tx.error);
    expect(tx.callData).toMatchObject({ recipientAmount: "495000", feeAmount: "5000" });
    expect((await pay(wallet, tx)).status).toBe("reverted");
    expect(await usdcOf(account.address)).toBe(100000n);
    const list = await call(sandbox, "GET", "/_sandbox/charges");
    expect(list.body.items[0]).toMatchObject({ chargeId: tx.id, productId: "sticker", status: "PENDING" });
    expect(await buildPayTransaction({ address: account.address, productId: "no-such-product" })).toMatchObject({ message: "CHECKOUT_INVALID_CHARGE_ERROR" });
  });

  it("refuses bad charge terms on the admin API and changes nothing", async () => {
    const before = (await call(sandbox, "GET", "/_sandbox/charges")).body.total;
    const bad = await call(sandbox, "POST", "/_sandbox/charges", { body: { network: "ethereum-hoodi", name: "x", amount: "1", recipient: RECIPIENT } });
    expect(bad.status).toBe(400);
    expect((await call(sandbox, "GET", "/_sandbox/charges")).body.total).toBe(before);
  });
});

describe("sponsored transactions on the same URL", () => {
  it("runs a smart wallet's user operation with the bundler and the ERC-7677 paymaster both at the client URL", async () => {
    // What OnchainKit does with isSponsored: the wallet gets `paymasterService: { url: rpcUrl }` and calls
    // pm_getPaymasterStubData / pm_getPaymasterData there, then sends the operation to the bundler at the same URL.
    const account = await toCoinbaseSmartAccount({ client, owners: [privateKeyToAccount(generatePrivateKey())], version: "1.1" });
    await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "2000000" });
    const bundler = createBundlerClient({
      account,
      client,
      chain: baseSepolia,
      transport: http(rpcUrl),
      paymaster: createPaymasterClient({ transport: http(rpcUrl) }),
      pollingInterval: 50,
    });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await bundler.sendUserOperation({ calls: [{ to: USDC, abi: erc20Abi, functionName: "transfer", args: [to, 750_000n] }] });
    sandbox.clock.advance(4000);
    const receipt = await bundler.waitForUserOperationReceipt({ hash });
    expect(receipt.success).toBe(true);
    expect(receipt.paymaster).not.toBe("0x0000000000000000000000000000000000000000");
    expect(await usdcOf(to)).toBe(750_000n);
    // The wallet holds no ETH: the paymaster paid the gas.
    expect(await client.getBalance({ address: account.address })).toBe(0n);
  });
});

describe("NFTs", () => {
  it("answers an address that is not an NFT contract with the platform's invalid-params error", async () => {
    const details = await getMintDetails({ contractAddress: "0x0000000000000000000000000000000000000bad", takerAddress: USDC });
    expect(details).toMatchObject({ code: "-32602", error: "Error fetching mint details" });
    expect(await getTokenDetails({ contractAddress: USDC, tokenId: "1" })).toMatchObject({ code: "-32602" });
  });

  it("reads and mints an ERC-721 deployed with viem", async () => {
    const { account, wallet } = await newWallet();
    const deployed = await deployNft(wallet);
    const details = await getMintDetails({ contractAddress: deployed, takerAddress: account.address });
    expect(details).toMatchObject({ contractType: "ERC721", isEligibleToMint: true });
    const mint = await buildMintTransaction({ mintAddress: deployed, takerAddress: account.address, quantity: 1 });
    if ("error" in mint) throw new Error(mint.error);
    const hash = await wallet.sendTransaction({ to: mint.call_data.to, data: mint.call_data.data, value: BigInt(mint.call_data.value) });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await getTokenDetails({ contractAddress: deployed, tokenId: "1" })).toMatchObject({ contractType: "ERC721", ownerAddress: account.address });
  });
});

/** Deploys a small ERC-721 (compiled with solc) and answers its address. */
async function deployNft(wallet: Awaited<ReturnType<typeof newWallet>>["wallet"]): Promise<`0x${string}`> {
  const { compileErc721 } = await import("#test/fixtures/erc721.js");
  const { abi, bytecode } = compileErc721();
  const hash = await wallet.deployContract({ abi, bytecode, account: wallet.account!, chain: baseSepolia, args: [] });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error(`the deployment ${hash} left no contract address`);
  return receipt.contractAddress;
}
