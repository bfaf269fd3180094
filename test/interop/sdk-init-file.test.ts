/**
 * The official client against a sandbox seeded by an init file, as its end-to-end suite expects: named accounts,
 * a smart account with its owner, funded in token units, found by name with their balances.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

const OWNER_KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    seed: "sdk-init-file",
    init: {
      evmAccounts: [{ name: "E2EServerAccount2", privateKey: OWNER_KEY, balances: { "base-sepolia": { ETH: "0.5", USDC: "25" } } }],
      evmSmartAccounts: [{ name: "E2ESmartAccount2", owner: "E2EServerAccount2", balances: { "base-sepolia": { USDC: "3.25" } } }],
      solanaAccounts: [{ name: "E2ESolanaAccount", balances: { "solana-devnet": { SOL: "2" } } }],
    },
  });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const amountOf = (balances: Array<{ token: { symbol?: string }; amount: { amount: bigint } }>, symbol: string) =>
  balances.find((b) => b.token.symbol === symbol)?.amount.amount;

describe("@coinbase/cdp-sdk with an init file", () => {
  it("finds the named EVM account at the address of its fixed key, with its balances", async () => {
    const account = await cdp.evm.getAccount({ name: "E2EServerAccount2" });
    expect(account.address).toBe(privateKeyToAccount(OWNER_KEY).address);
    const { balances } = await cdp.evm.listTokenBalances({ address: account.address, network: "base-sepolia" });
    expect(amountOf(balances, "ETH")).toBe(parseEther("0.5"));
    expect(amountOf(balances, "USDC")).toBe(parseUnits("25", 6));
  });

  it("finds the smart account by name with its owner, funded", async () => {
    const owner = await cdp.evm.getAccount({ name: "E2EServerAccount2" });
    const smart = await cdp.evm.getSmartAccount({ name: "E2ESmartAccount2", owner });
    expect(smart.owners.map((o) => o.address)).toEqual([owner.address]);
    const { balances } = await cdp.evm.listTokenBalances({ address: smart.address, network: "base-sepolia" });
    expect(amountOf(balances, "USDC")).toBe(parseUnits("3.25", 6));
  });

  it("finds the named Solana account with its SOL", async () => {
    const account = await cdp.solana.getAccount({ name: "E2ESolanaAccount" });
    const { balances } = await cdp.solana.listTokenBalances({ address: account.address, network: "solana-devnet" });
    expect(amountOf(balances, "SOL")).toBe(2_000_000_000n);
  });

  it("getOrCreateAccount returns the seeded account instead of making another", async () => {
    const again = await cdp.evm.getOrCreateAccount({ name: "E2EServerAccount2" });
    expect(again.address).toBe(privateKeyToAccount(OWNER_KEY).address);
  });
});
