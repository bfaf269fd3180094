/**
 * Swap prices and quotes over HTTP: the documented price table, fees,
 * slippage, the issues a taker's ledger raises, liquidityAvailable: false, and
 * every refusal. Execution on the ledger is in settlement.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashTypedData, type Hex } from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "swaps", validateResponses: true });
});
afterAll(() => sandbox.close());

const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"; // Base
const WETH = "0x4200000000000000000000000000000000000006";
const EURC = "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42";
const CBBTC = "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf";
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const SETTLER = "0xD759B42e707Dba26bB99f64492671f66773d775C";
const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const price = (q: Record<string, string>) =>
  call(sandbox, "GET", `/platform/v2/evm/swaps/quote?${new URLSearchParams({ network: "base", taker: TAKER, ...q })}`);
const quote = (b: Record<string, unknown>) => call(sandbox, "POST", "/platform/v2/evm/swaps", { body: { network: "base", taker: TAKER, ...b } });

describe("swap prices", () => {
  it("prices 1 ETH at $3,000 of USDC, less the 0.1 % protocol fee, with a 1 % slippage floor by default", async () => {
    const res = await price({ fromToken: ETH, toToken: USDC, fromAmount: "1000000000000000000" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      liquidityAvailable: true,
      fromToken: ETH,
      fromAmount: "1000000000000000000",
      toToken: USDC,
      toAmount: "2997000000",
      minToAmount: "2967030000",
      fees: { gasFee: { amount: "200000000000", token: ETH }, protocolFee: { amount: "3000000", token: USDC } },
      gas: "200000",
      gasPrice: "1000000",
    });
    expect(Number(res.body.blockNumber)).toBeGreaterThan(0);
  });

  it("honours slippageBps and gasPrice, and prices across decimals (USDC → cbBTC)", async () => {
    const res = await price({ fromToken: USDC, toToken: CBBTC, fromAmount: "1000000000", slippageBps: "0", gasPrice: "5000000" });
    // $1,000 buys 0.01 cbBTC = 1,000,000 sats, less 0.1 %.
    expect(res.body).toMatchObject({
      toAmount: "999000",
      minToAmount: "999000",
      gasPrice: "5000000",
      fees: { gasFee: { amount: "1000000000000" }, protocolFee: { amount: "1000" } },
    });
  });

  it("reports the taker's missing balance and Permit2 allowance; funding the taker clears the balance issue", async () => {
    const before = await price({ fromToken: USDC, toToken: WETH, fromAmount: "5000000" });
    expect(before.body.issues).toEqual({
      allowance: { currentAllowance: "0", spender: PERMIT2 },
      balance: { token: USDC, currentBalance: "0", requiredBalance: "5000000" },
      simulationIncomplete: true,
    });
    const native = await price({ fromToken: ETH, toToken: USDC, fromAmount: "1000000000000000" });
    expect(native.body.issues.allowance).toBeNull(); // native ETH needs no allowance
    const taker = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as string;
    await fund(sandbox, { network: "base", address: taker, token: "USDC", amount: "5000000" });
    const funded = await price({ fromToken: USDC, toToken: WETH, fromAmount: "5000000", taker });
    expect(funded.body.issues).toEqual({ allowance: { currentAllowance: "0", spender: PERMIT2 }, balance: null, simulationIncomplete: false });
  });

  it("answers liquidityAvailable: false for the pair without liquidity, above the $1,000,000 cap, and for dust", async () => {
    expect((await price({ fromToken: EURC, toToken: CBBTC, fromAmount: "1000000" })).body).toEqual({ liquidityAvailable: false });
    expect((await price({ fromToken: CBBTC, toToken: EURC, fromAmount: "1000" })).body).toEqual({ liquidityAvailable: false });
    expect((await price({ fromToken: USDC, toToken: WETH, fromAmount: "1000000000001" })).body).toEqual({ liquidityAvailable: false });
    expect((await price({ fromToken: USDC, toToken: WETH, fromAmount: "1000000000000" })).body.liquidityAvailable).toBe(true);
    expect((await price({ fromToken: ETH, toToken: CBBTC, fromAmount: "1" })).body).toEqual({ liquidityAvailable: false });
    expect((await quote({ fromToken: EURC, toToken: CBBTC, fromAmount: "1000000" })).body).toEqual({ liquidityAvailable: false });
  });
});

describe("swap quotes", () => {
  it("returns the settler transaction and Permit2 typed data whose hash viem recomputes", async () => {
    const res = await quote({ fromToken: USDC, toToken: WETH, fromAmount: "3000000", slippageBps: 50 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ liquidityAvailable: true, fromToken: USDC, toToken: WETH, toAmount: "999000000000000", minToAmount: "994005000000000" });
    expect(res.body.transaction).toMatchObject({ to: SETTLER, gas: "200000", gasPrice: "1000000", value: "0" });
    expect(res.body.transaction.data).toMatch(/^0x[0-9a-f]+$/);
    const { eip712, hash } = res.body.permit2;
    expect(eip712.domain).toEqual({ name: "Permit2", chainId: 8453, verifyingContract: PERMIT2 });
    expect(eip712.primaryType).toBe("PermitTransferFrom");
    expect(eip712.message).toMatchObject({ permitted: { token: USDC, amount: "3000000" }, spender: SETTLER });
    expect(Number(eip712.message.deadline)).toBe(Math.floor(sandbox.clock.now() / 1000) + 600);
    expect(hashTypedData(eip712)).toBe(hash as Hex);
  });

  it("asks for no Permit2 signature when selling native ETH: the transaction's value pays", async () => {
    const res = await quote({ fromToken: ETH, toToken: USDC, fromAmount: "1000000000000000" });
    expect(res.body.permit2).toBeNull();
    expect(res.body.transaction.value).toBe("1000000000000000");
    expect(res.body.toAmount).toBe("2997000");
  });

  it("gives each quote its own Permit2 nonce", async () => {
    const a = await quote({ fromToken: USDC, toToken: WETH, fromAmount: "1000000" });
    const b = await quote({ fromToken: USDC, toToken: WETH, fromAmount: "1000000" });
    expect(a.body.permit2.eip712.message.nonce).not.toBe(b.body.permit2.eip712.message.nonce);
    expect(a.body.transaction.data).not.toBe(b.body.transaction.data);
  });
});

describe("swap refusals", () => {
  it("refuses a token the sandbox cannot swap, naming the tokens it can", async () => {
    const res = await price({ fromToken: "0x6B175474E89094C44Da98b954EedeAC495271d0F", toToken: USDC, fromAmount: "1" });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toContain("USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
  });

  it("refuses the same token on both sides and a zero amount", async () => {
    expect((await quote({ fromToken: USDC, toToken: USDC.toLowerCase(), fromAmount: "1" })).body.errorMessage).toContain("same token");
    const zero = await quote({ fromToken: USDC, toToken: WETH, fromAmount: "0" });
    expect(zero.status).toBe(400);
    expect(zero.body.errorMessage).toContain("greater than 0");
  });

  it("refuses networks without swaps and malformed inputs through the contract", async () => {
    expect((await quote({ network: "base-sepolia", fromToken: USDC, toToken: WETH, fromAmount: "1" })).status).toBe(400);
    expect((await quote({ fromToken: USDC, toToken: WETH, fromAmount: "1.5" })).status).toBe(400);
    expect((await price({ fromToken: USDC, toToken: WETH, fromAmount: "1", slippageBps: "10001" })).status).toBe(400);
  });

  it("forbids a protocol or token contract as the taker (403)", async () => {
    for (const taker of [PERMIT2, SETTLER, USDC]) {
      const res = await quote({ fromToken: ETH, toToken: USDC, fromAmount: "1000", taker });
      expect(res.status).toBe(403);
      expect(res.body.errorType).toBe("forbidden");
    }
  });
});
