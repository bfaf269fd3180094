import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  // Interval mining: these tests watch user operations wait for their block (broadcast, then complete).
  sandbox = await withSandbox({ seed: "user-operations", mining: "interval" });
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

describe("user operations", () => {
  it("prepares, takes the owner's signature, executes the calls and completes on the sandbox clock", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] } })).body.address;
    await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "3000000" });
    const base = `/platform/v2/evm/smart-accounts/${smart}/user-operations`;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, 1_000_000n] });
    const prepared = await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls: [{ to: USDC, value: "0", data }] } });
    expect(prepared.status).toBe(201);
    expect(prepared.body.status).toBe("pending");
    const bad = await call(sandbox, "POST", `${base}/${prepared.body.userOpHash}/send`, {
      body: { signature: await privateKeyToAccount(generatePrivateKey()).sign({ hash: prepared.body.userOpHash }) },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errorType).toBe("invalid_signature");
    const sent = await call(sandbox, "POST", `${base}/${prepared.body.userOpHash}/send`, {
      body: { signature: await owner.sign({ hash: prepared.body.userOpHash as Hex }) },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe("broadcast");
    sandbox.clock.advance(4000);
    const done = await call(sandbox, "GET", `${base}/${prepared.body.userOpHash}`);
    expect(done.body.status).toBe("complete");
    expect(done.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const balances = (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${TO}`)).body.balances;
    expect(balances.find((b: { token: { symbol: string } }) => b.token.symbol === "USDC").amount.amount).toBe("1000000");
    const again = await call(sandbox, "POST", `${base}/${prepared.body.userOpHash}/send`, { body: { signature: sent.body.userOpHash } });
    expect(again.status).toBe(400);
  });

  it("refuses calls whose gas limits add up to more than a block holds, or a gas limit that is no number: 400 invalid_request", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] } })).body.address;
    const base = `/platform/v2/evm/smart-accounts/${smart}/user-operations`;
    const over = await call(sandbox, "POST", base, {
      body: {
        network: "base-sepolia",
        calls: [
          { to: TO, value: "0", data: "0x" },
          { to: TO, value: "0", data: "0x", overrideGasLimit: "29900001" },
        ],
      },
    });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringContaining("exceed the block gas limit of 30000000") });
    expect(over.body.correlationId).toBeTruthy();
    // 151 calls at the default 200,000 each.
    const wide = await call(sandbox, "POST", base, {
      body: { network: "base-sepolia", calls: Array.from({ length: 151 }, () => ({ to: TO, value: "0", data: "0x" })) },
    });
    expect(wide.status).toBe(400);
    const notANumber = await call(sandbox, "POST", base, {
      body: { network: "base-sepolia", calls: [{ to: TO, value: "0", data: "0x", overrideGasLimit: "lots" }] },
    });
    expect(notANumber.status).toBe(400);
    expect(notANumber.body.errorMessage).toContain("overrideGasLimit");
    const fits = await call(sandbox, "POST", base, {
      body: {
        network: "base-sepolia",
        calls: [
          { to: TO, value: "0", data: "0x" },
          { to: TO, value: "0", data: "0x", overrideGasLimit: "29800000" },
        ],
      },
    });
    expect(fits.status).toBe(201);
  });

  it("runs its calls as one batch: when one reverts, the operation fails and none of them moved funds", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] } })).body.address;
    await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "3000000" });
    await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000" });
    const first = privateKeyToAccount(generatePrivateKey()).address;
    const second = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as Hex, amount] });
    const base = `/platform/v2/evm/smart-accounts/${smart}/user-operations`;
    const calls = [
      { to: USDC, value: "0", data: transfer(first, 1_000_000n) },
      { to: first, value: "400", data: "0x" },
      { to: USDC, value: "0", data: transfer(second, 5_000_000n) }, // more USDC than is left: reverts
    ];
    const prepared = await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls } });
    expect(prepared.status).toBe(201);
    const sent = await call(sandbox, "POST", `${base}/${prepared.body.userOpHash}/send`, {
      body: { signature: await owner.sign({ hash: prepared.body.userOpHash as Hex }) },
    });
    expect(sent.status).toBe(200);
    sandbox.clock.advance(4000);
    const done = await call(sandbox, "GET", `${base}/${prepared.body.userOpHash}`);
    expect(done.body.status).toBe("failed");
    const balancesOf = async (address: string) =>
      Object.fromEntries(
        (
          (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`)).body.balances as Array<{
            token: { symbol: string };
            amount: { amount: string };
          }>
        ).map((b) => [b.token.symbol, b.amount.amount]),
      );
    expect(await balancesOf(smart)).toEqual({ ETH: "1000", USDC: "3000000" });
    expect(await balancesOf(first)).toEqual({});
    expect(await balancesOf(second)).toEqual({});

    // The same first two calls alone complete, and both take effect.
    const ok = await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls: calls.slice(0, 2) } });
    await call(sandbox, "POST", `${base}/${ok.body.userOpHash}/send`, { body: { signature: await owner.sign({ hash: ok.body.userOpHash as Hex }) } });
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "GET", `${base}/${ok.body.userOpHash}`)).body.status).toBe("complete");
    expect(await balancesOf(first)).toEqual({ ETH: "400", USDC: "1000000" });
  });

  it("prepares and sends in one call for a smart account owned by a project account", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner] } })).body.address;
    await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000" });
    const res = await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/user-operations/prepare-and-send`, {
      body: { network: "base-sepolia", calls: [{ to: TO, value: "10", data: "0x" }] },
      wallet: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("broadcast");
  });

  it("404s for an unknown operation or smart account, and refuses empty calls", async () => {
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [TO] } })).body.address;
    expect((await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${smart}/user-operations/0x${"ab".repeat(32)}`)).status).toBe(404);
    expect(
      (await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/0x${"cd".repeat(20)}/user-operations`, { body: { network: "base-sepolia", calls: [] } }))
        .status,
    ).toBe(404);
    expect(
      (await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/user-operations`, { body: { network: "base-sepolia", calls: [] } })).status,
    ).toBe(400);
  });

  it("applies project policies to user operations", async () => {
    const project = await sandbox.createProject("uo-policy");
    await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: {
        scope: "project",
        rules: [
          { action: "reject", operation: "prepareUserOperation", criteria: [{ type: "ethValue", ethValue: "100", operator: ">" }] },
          { action: "accept", operation: "prepareUserOperation", criteria: [] },
          { action: "accept", operation: "sendUserOperation", criteria: [] },
        ],
      },
      credentials: project,
    });
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [TO] }, credentials: project })).body.address;
    const base = `/platform/v2/evm/smart-accounts/${smart}/user-operations`;
    expect(
      (await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls: [{ to: TO, value: "1000", data: "0x" }] }, credentials: project })).status,
    ).toBe(403);
    expect(
      (await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls: [{ to: TO, value: "1", data: "0x" }] }, credentials: project })).status,
    ).toBe(201);
  });
});
