/**
 * cdp.policies.* against the sandbox, and a policy rejection surfacing in the
 * client as an APIError with errorType policy_violation.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, serializeTransaction } from "viem";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-policies" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const limit = {
  scope: "account" as const,
  description: "At most 1 ETH per transaction",
  rules: [
    {
      action: "reject" as const,
      operation: "signEvmTransaction" as const,
      criteria: [{ type: "ethValue" as const, ethValue: "1000000000000000000", operator: ">" as const }],
    },
    { action: "accept" as const, operation: "signEvmTransaction" as const, criteria: [{ type: "ethValue" as const, ethValue: "0", operator: ">=" as const }] },
  ],
};

describe("@coinbase/cdp-sdk policies", () => {
  it("creates, gets, lists, updates and deletes", async () => {
    const policy = await cdp.policies.createPolicy({ policy: limit });
    expect(policy.rules).toHaveLength(2);
    expect((await cdp.policies.getPolicyById({ id: policy.id })).description).toBe(limit.description);
    expect((await cdp.policies.listPolicies({ scope: "account" })).policies.map((p) => p.id)).toContain(policy.id);
    const updated = await cdp.policies.updatePolicy({ id: policy.id, policy: { description: "changed", rules: limit.rules } });
    expect(updated.description).toBe("changed");
    await cdp.policies.deletePolicy({ id: policy.id });
    await expect(cdp.policies.getPolicyById({ id: policy.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("rejects a transaction over the limit with policy_violation, and signs one under it", async () => {
    const policy = await cdp.policies.createPolicy({ policy: limit });
    const account = await cdp.evm.createAccount({ accountPolicy: policy.id });
    const tx = (value: bigint) =>
      serializeTransaction({
        type: "eip1559",
        chainId: 84532,
        to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        value,
        gas: 21000n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 8n,
        nonce: 0,
      });
    await expect(cdp.evm.signTransaction({ address: account.address, transaction: tx(parseEther("2")) })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "policy_violation",
    });
    const ok = await cdp.evm.signTransaction({ address: account.address, transaction: tx(parseEther("0.5")) });
    expect(ok.signature).toMatch(/^0x/);
    await expect(cdp.policies.deletePolicy({ id: policy.id })).rejects.toMatchObject({ statusCode: 400, errorType: "policy_in_use" });
  });
});
