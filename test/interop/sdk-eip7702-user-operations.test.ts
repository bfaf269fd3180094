/**
 * The official client's EIP-7702 flow: delegate a server account, wait for
 * the delegation, then `toEvmDelegatedAccount(account).sendUserOperation(...)`
 * at the EOA's own address, the transfer landing on the ledger.
 */
import { type CdpClient, toEvmDelegatedAccount } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, parseEther } from "viem";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-eip7702-user-operations", validateResponses: true });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;

async function balancesOf(address: `0x${string}`): Promise<Record<string, bigint>> {
  const { balances } = await cdp.evm.listTokenBalances({ address, network: "base-sepolia" });
  return Object.fromEntries(balances.map((b) => [b.token.symbol, b.amount.amount]));
}

describe("@coinbase/cdp-sdk EIP-7702 delegated accounts", () => {
  it("sends a user operation from the delegated EOA once its delegation completes", async () => {
    const account = await cdp.evm.createAccount();
    await fund(sandbox, { network: "base-sepolia", address: account.address, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "2000000" });
    const { delegationOperationId } = await cdp.evm.createEvmEip7702Delegation({ address: account.address, network: "base-sepolia" });
    sandbox.clock.advance(2000);
    const delegation = await cdp.evm.waitForEvmEip7702DelegationOperationStatus({ delegationOperationId });
    expect(delegation.status).toBe("COMPLETED");

    const delegated = toEvmDelegatedAccount(account);
    expect(delegated.address).toBe(account.address);
    const sent = await delegated.sendUserOperation({
      network: "base-sepolia",
      calls: [
        { abi: erc20Abi, functionName: "transfer", to: USDC, args: [TO, 750_000n] },
        { to: TO, value: parseEther("0.0001"), data: "0x" },
      ],
    });
    expect(sent.smartAccountAddress).toBe(account.address);
    sandbox.clock.advance(4000);
    const done = await delegated.waitForUserOperation({ userOpHash: sent.userOpHash });
    expect(done.status).toBe("complete");
    const after = await balancesOf(account.address);
    expect(after.USDC).toBe(1_250_000n);
    // The value sent, and the gas of both calls (a token call and a plain transfer, at the ledger's gas price of 1,000,000 wei) from its own ETH.
    expect(after.ETH).toBe(1_000_000_000_000_000n - parseEther("0.0001") - (52_000n + 21_000n) * 1_000_000n);
    expect((await balancesOf(TO)).USDC).toBe(750_000n);
  });
});
