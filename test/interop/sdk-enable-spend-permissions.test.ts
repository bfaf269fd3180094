/**
 * The official client's `enableSpendPermissions`: createSmartAccount sends
 * the owner and the SpendPermissionManager as owners, and the account then
 * grants and honours a spend permission; an end user's smart account made
 * with the flag lists the manager as its second owner.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-enable-spend-permissions", validateResponses: true });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const MANAGER = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad";

async function usdcOf(address: `0x${string}`): Promise<bigint> {
  const { balances } = await cdp.evm.listTokenBalances({ address, network: "base-sepolia" });
  return balances.find((b) => b.token.symbol === "USDC")?.amount.amount ?? 0n;
}

describe("@coinbase/cdp-sdk enableSpendPermissions", () => {
  it("creates a smart account owned by the owner and the SpendPermissionManager, which grants a permission the spender uses", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner, enableSpendPermissions: true });
    expect((await cdp.evm.getSmartAccount({ address: smart.address, owner })).address).toBe(smart.address);
    const plain = await cdp.evm.createSmartAccount({ owner });
    expect(plain.address).not.toBe(smart.address); // the address follows the owners

    await fund(sandbox, { network: "base-sepolia", address: smart.address, token: "USDC", amount: "3000000" });
    const spender = await cdp.evm.createAccount();
    await fund(sandbox, { network: "base-sepolia", address: spender.address, amount: "1000000000000000000" });
    const granted = await cdp.evm.createSpendPermission({
      network: "base-sepolia",
      spendPermission: {
        account: smart.address,
        spender: spender.address,
        token: "usdc",
        allowance: 1_000_000n,
        periodInDays: 1,
        start: new Date(sandbox.clock.now()),
      },
    });
    sandbox.clock.advance(4000);
    expect((await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: granted.userOpHash })).status).toBe("complete");
    const { spendPermissions } = await cdp.evm.listSpendPermissions({ address: smart.address });
    expect(spendPermissions).toHaveLength(1);

    const used = await spender.useSpendPermission({ spendPermission: spendPermissions[0]!.permission, value: 400_000n, network: "base-sepolia" });
    sandbox.clock.advance(4000);
    expect((await (await spender.useNetwork("base-sepolia")).waitForTransactionReceipt({ hash: used.transactionHash })).status).toBe("success");
    expect(await usdcOf(spender.address)).toBe(400_000n);
    expect(await usdcOf(smart.address)).toBe(2_600_000n);
  });

  it("gives an end user's smart account the SpendPermissionManager as second owner", async () => {
    const user = await cdp.endUser.createEndUser({
      authenticationMethods: [{ type: "email", email: "spends@example.com" }],
      evmAccount: { createSmartAccount: true, enableSpendPermissions: true },
    });
    expect(user.evmSmartAccountObjects?.[0]?.ownerAddresses).toEqual([user.evmAccounts[0], MANAGER]);
  });
});
