/**
 * The official client's spend-permission flows against the sandbox:
 * cdp.evm.createSpendPermission / listSpendPermissions / revokeSpendPermission,
 * and using a permission from a server account (account.useSpendPermission, a
 * transaction) and from a smart account (smartAccount.useSpendPermission, a
 * user operation) — within the allowance, and past it.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-spend-permissions", validateResponses: true });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"; // Base Sepolia

async function usdcOf(address: `0x${string}`): Promise<bigint> {
  const { balances } = await cdp.evm.listTokenBalances({ address, network: "base-sepolia" });
  return balances.find((b) => b.token.symbol === "USDC")?.amount.amount ?? 0n;
}

/** A smart account holding 5 USDC that granted `spender` 1 USDC a day. */
async function grant(spender: `0x${string}`) {
  const smart = await cdp.evm.createSmartAccount({ owner: await cdp.evm.createAccount() });
  await fund(sandbox, { network: "base-sepolia", address: smart.address, token: "USDC", amount: "5000000" });
  const op = await cdp.evm.createSpendPermission({
    network: "base-sepolia",
    spendPermission: { account: smart.address, spender, token: "usdc", allowance: 1_000_000n, periodInDays: 1, start: new Date(sandbox.clock.now()) },
  });
  expect(op.calls[0]!.to).toBe("0xf85210B21cC50302F477BA56686d2019dC9b67Ad");
  sandbox.clock.advance(4000);
  expect((await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: op.userOpHash })).status).toBe("complete");
  const { spendPermissions } = await cdp.evm.listSpendPermissions({ address: smart.address });
  expect(spendPermissions).toHaveLength(1);
  return { smart, permission: spendPermissions[0]! };
}

describe("@coinbase/cdp-sdk spend permissions", () => {
  it("creates and lists a permission, and a server account spends it up to the allowance; past it the transaction reverts", async () => {
    const spender = await cdp.evm.createAccount();
    await fund(sandbox, { network: "base-sepolia", address: spender.address, amount: "1000000000000000000" });
    const { smart, permission } = await grant(spender.address);
    expect(permission).toMatchObject({
      revoked: false,
      network: "base-sepolia",
      permission: { account: smart.address, spender: spender.address, token: USDC, allowance: 1_000_000n, period: 86_400 },
    });

    const scoped = await spender.useNetwork("base-sepolia");
    const ok = await spender.useSpendPermission({ spendPermission: permission.permission, value: 700_000n, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await scoped.waitForTransactionReceipt({ hash: ok.transactionHash })).status).toBe("success");
    const over = await spender.useSpendPermission({ spendPermission: permission.permission, value: 700_000n, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await scoped.waitForTransactionReceipt({ hash: over.transactionHash })).status).toBe("reverted");
    expect(await usdcOf(spender.address)).toBe(700_000n);
    expect(await usdcOf(smart.address)).toBe(4_300_000n);
  });

  it("a smart account spends through a user operation; after revokeSpendPermission its operation fails", async () => {
    const spender = await cdp.evm.createSmartAccount({ owner: await cdp.evm.createAccount() });
    const { smart, permission } = await grant(spender.address);
    const used = await spender.useSpendPermission({ spendPermission: permission.permission, value: 250_000n, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await spender.waitForUserOperation({ userOpHash: used.userOpHash })).status).toBe("complete");
    expect(await usdcOf(spender.address)).toBe(250_000n);

    const revoked = await cdp.evm.revokeSpendPermission({ address: smart.address, permissionHash: permission.permissionHash, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: revoked.userOpHash })).status).toBe("complete");
    const { spendPermissions } = await cdp.evm.listSpendPermissions({ address: smart.address });
    expect(spendPermissions[0]).toMatchObject({ permissionHash: permission.permissionHash, revoked: true });

    const refused = await spender.useSpendPermission({ spendPermission: permission.permission, value: 1n, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await spender.waitForUserOperation({ userOpHash: refused.userOpHash })).status).toBe("failed");
    expect(await usdcOf(spender.address)).toBe(250_000n);
  });
});
