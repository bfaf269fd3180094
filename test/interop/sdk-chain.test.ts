/**
 * The official client's chain flows on the simulated ledger: faucet, token
 * balances, sendTransaction, transfer of ETH and USDC, and a network-scoped
 * account (`useNetwork`) waiting for a receipt through the sandbox's node.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, parseUnits } from "viem";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-chain" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

describe("@coinbase/cdp-sdk on the simulated chain", () => {
  it("requests faucet funds and lists token balances", async () => {
    const account = await cdp.evm.createAccount();
    await cdp.evm.requestFaucet({ address: account.address, network: "base-sepolia", token: "eth" });
    await account.requestFaucet({ network: "base-sepolia", token: "usdc" });
    const { balances } = await cdp.evm.listTokenBalances({ address: account.address, network: "base-sepolia" });
    const bySymbol = Object.fromEntries(balances.map((b) => [b.token.symbol, b.amount.amount]));
    expect(bySymbol).toEqual({ ETH: 100000000000000n, USDC: 1000000n });
  });

  it("transfers ETH and USDC, and a network-scoped account waits for the receipt through the node", async () => {
    const account = await cdp.evm.createAccount();
    for (let i = 0; i < 3; i++) await account.requestFaucet({ network: "base-sepolia", token: "eth" });
    await account.requestFaucet({ network: "base-sepolia", token: "usdc" });
    const scoped = await account.useNetwork("base-sepolia");

    const eth = await scoped.transfer({ to: TO, amount: parseEther("0.0001"), token: "eth" });
    sandbox.clock.advance(4000);
    const ethReceipt = await scoped.waitForTransactionReceipt(eth);
    expect(ethReceipt.status).toBe("success");

    const usdc = await scoped.transfer({ to: TO, amount: parseUnits("0.5", 6), token: "usdc" });
    sandbox.clock.advance(4000);
    expect((await scoped.waitForTransactionReceipt(usdc)).status).toBe("success");

    const { balances } = await cdp.evm.listTokenBalances({ address: TO, network: "base-sepolia" });
    const bySymbol = Object.fromEntries(balances.map((b) => [b.token.symbol, b.amount.amount]));
    expect(bySymbol.USDC).toBe(500000n);
    expect(bySymbol.ETH).toBeGreaterThanOrEqual(100000000000000n);
  });

  it("sends a transaction and rejects one it cannot pay for", async () => {
    const account = await cdp.evm.createAccount();
    await expect(cdp.evm.sendTransaction({ address: account.address, network: "base-sepolia", transaction: { to: TO, value: 1n } })).rejects.toMatchObject({
      statusCode: 400,
      errorType: "insufficient_balance",
    });
    await account.requestFaucet({ network: "base-sepolia", token: "eth" });
    const { transactionHash } = await cdp.evm.sendTransaction({ address: account.address, network: "base-sepolia", transaction: { to: TO, value: 1000n } });
    expect(transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
