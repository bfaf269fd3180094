/**
 * Every swap flow of the official client against the sandbox, unchanged:
 * getSwapPrice, createSwapQuote + execute, account.quoteSwap / account.swap
 * (the client signs the Permit2 typed data and appends it to the calldata),
 * a network-scoped account, and smart accounts swapping through user
 * operations with the owner's wrapped signature. Balances are read back with
 * the client's listTokenBalances.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, parseUnits } from "viem";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-swaps", validateResponses: true });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE" as const;
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const WETH = "0x4200000000000000000000000000000000000006" as const;
const EURC = "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42" as const;
const CBBTC = "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf" as const;
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as const;
const approvePermit2 = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, amount] });

async function balances(address: `0x${string}`): Promise<Record<string, bigint>> {
  const { balances } = await cdp.evm.listTokenBalances({ address, network: "base" });
  return Object.fromEntries(balances.map((b) => [b.token.symbol ?? b.token.contractAddress, b.amount.amount]));
}

/** A server account with gas and 10 USDC on Base, Permit2 approved for `approved` USDC. */
async function fundedAccount(approved: bigint) {
  const account = await cdp.evm.createAccount();
  await fund(sandbox, { network: "base", address: account.address, amount: "1000000000000000000" });
  await fund(sandbox, { network: "base", address: account.address, token: "USDC", amount: "10000000" });
  if (approved > 0n) await account.sendTransaction({ network: "base", transaction: { to: USDC, data: approvePermit2(approved) } });
  return account;
}

describe("@coinbase/cdp-sdk swaps", () => {
  it("getSwapPrice answers the documented table, and liquidityAvailable: false for a pair without liquidity", async () => {
    const price = await cdp.evm.getSwapPrice({
      network: "base",
      fromToken: ETH,
      toToken: USDC,
      fromAmount: parseUnits("1", 18),
      taker: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(price).toMatchObject({ liquidityAvailable: true, toAmount: 2_997_000_000n, minToAmount: 2_967_030_000n, gas: 200_000n });
    if (price.liquidityAvailable) expect(price.fees.protocolFee).toEqual({ amount: 3_000_000n, token: USDC });
    const none = await cdp.evm.getSwapPrice({
      network: "base",
      fromToken: EURC,
      toToken: CBBTC,
      fromAmount: 1_000_000n,
      taker: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(none).toEqual({ liquidityAvailable: false });
  });

  it("cdp.evm.createSwapQuote then quote.execute(): Permit2 signed and appended by the client, both tokens moved", async () => {
    const account = await fundedAccount(10_000_000n);
    const quote = await cdp.evm.createSwapQuote({ network: "base", fromToken: USDC, toToken: WETH, fromAmount: 3_000_000n, taker: account.address });
    if (!quote.liquidityAvailable) throw new Error("expected liquidity");
    expect(quote.permit2?.eip712.primaryType).toBe("PermitTransferFrom");
    expect(quote.issues.allowance).toBeUndefined();
    const { transactionHash } = await quote.execute();
    expect(transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    const scoped = await account.useNetwork("base");
    expect((await scoped.waitForTransactionReceipt({ hash: transactionHash! })).status).toBe("success");
    expect(await balances(account.address)).toMatchObject({ USDC: 7_000_000n, WETH: 999_000_000_000_000n });
  });

  it("account.quoteSwap + execute and account.swap (all-in-one) settle; native ETH sells need no Permit2", async () => {
    const account = await fundedAccount(10_000_000n);
    const quote = await account.quoteSwap({ network: "base", fromToken: USDC, toToken: CBBTC, fromAmount: 1_000_000n });
    if (!quote.liquidityAvailable) throw new Error("expected liquidity");
    await quote.execute();
    await account.swap({ network: "base", fromToken: USDC, toToken: WETH, fromAmount: 3_000_000n, slippageBps: 50 });
    await account.swap({ network: "base", fromToken: ETH, toToken: USDC, fromAmount: parseUnits("0.001", 18) });
    sandbox.clock.advance(4000);
    expect(await balances(account.address)).toMatchObject({ USDC: 6_000_000n + 2_997_000n, cbBTC: 999n, WETH: 999_000_000_000_000n });
  });

  it("a network-scoped account swaps without naming the network", async () => {
    const scoped = await (await fundedAccount(2_000_000n)).useNetwork("base");
    const { transactionHash } = await scoped.swap({ fromToken: USDC, toToken: WETH, fromAmount: 2_000_000n });
    sandbox.clock.advance(4000);
    expect((await scoped.waitForTransactionReceipt({ hash: transactionHash })).status).toBe("success");
  });

  it("account.swap refuses, as the client does, a quote with an allowance issue or without liquidity", async () => {
    const account = await fundedAccount(0n);
    await expect(account.swap({ network: "base", fromToken: USDC, toToken: WETH, fromAmount: 1_000_000n })).rejects.toThrow(
      /Insufficient token allowance.*Current allowance: 0.*0x000000000022D473030F116dDEE9F6B43aC78BA3/,
    );
    await expect(account.swap({ network: "base", fromToken: EURC, toToken: CBBTC, fromAmount: 1_000_000n })).rejects.toThrow(/Insufficient liquidity/);
  });

  it("a smart account swaps through user operations: smartAccount.swap and smartAccount.quoteSwap + execute", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner });
    await fund(sandbox, { network: "base", address: smart.address, token: "USDC", amount: "10000000" });
    const approval = await smart.sendUserOperation({ network: "base", calls: [{ to: USDC, value: 0n, data: approvePermit2(10_000_000n) }] });
    sandbox.clock.advance(4000);
    expect((await smart.waitForUserOperation({ userOpHash: approval.userOpHash })).status).toBe("complete");

    const { userOpHash } = await smart.swap({ network: "base", fromToken: USDC, toToken: WETH, fromAmount: 3_000_000n });
    sandbox.clock.advance(4000);
    expect((await smart.waitForUserOperation({ userOpHash })).status).toBe("complete");

    const quote = await smart.quoteSwap({ network: "base", fromToken: USDC, toToken: CBBTC, fromAmount: 1_000_000n });
    if (!quote.liquidityAvailable) throw new Error("expected liquidity");
    const executed = await quote.execute();
    sandbox.clock.advance(4000);
    expect((await smart.waitForUserOperation({ userOpHash: executed.userOpHash! })).status).toBe("complete");
    expect(await balances(smart.address)).toEqual({ USDC: 6_000_000n, WETH: 999_000_000_000_000n, cbBTC: 999n });
  });
});
