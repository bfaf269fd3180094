/**
 * One paymaster rule set for every way a user operation arrives (paymaster.ts): an end user's user operation and a
 * project's prepared one refuse a contradictory choice (both `useCdpPaymaster` and `paymasterUrl`, or
 * `paymasterContext` without a paymaster) with 400, as borrowing and end users' asset sends do;
 * the bundler's ERC-7677 methods hand out the same paymaster the EntryPoint sponsors.
 */
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, endUserSession, withSandbox } from "#test/helpers/sandbox.js";
import { SANDBOX_PAYMASTER } from "./paymaster.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "paymaster-rules" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
const calls = [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0", data: "0x" }];

describe("the paymaster rules of platform user operations", () => {
  it("an end user's user operation: one paymaster at most, and a context only with one", async () => {
    const userId = "paymaster-rules-1";
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
      wallet: true,
    });
    const smart = created.body.evmSmartAccounts[0] as string;
    const session = await endUserSession(sandbox, userId);
    const send = (body: Record<string, unknown>) =>
      call(sandbox, "POST", `${EW}/${userId}/evm/smart-accounts/${smart}/send`, { body: { network: "base-sepolia", calls, ...body }, endUser: session });

    const both = await send({ useCdpPaymaster: true, paymasterUrl: "https://paymaster.example.com" });
    expect(both.status).toBe(400);
    expect(both.body.errorMessage).toMatch(/cannot be used together/);
    const contextAlone = await send({ useCdpPaymaster: false, paymasterContext: { policy: "p" } });
    expect(contextAlone.status).toBe(400);
    expect(contextAlone.body.errorMessage).toMatch(/paymasterContext is only valid with a paymaster/);

    const sponsored = await send({ useCdpPaymaster: true, paymasterContext: { policy: "p" } });
    expect(sponsored.status, sponsored.text).toBe(200);
  });

  it("a project's prepared user operation: a context only with a paymaster URL", async () => {
    const owner = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true });
    const smart = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.body.address] }, wallet: true });
    const prepare = (body: Record<string, unknown>) =>
      call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart.body.address}/user-operations`, { body: { network: "base-sepolia", calls, ...body } });
    const refused = await prepare({ paymasterContext: { policy: "p" } });
    expect(refused.status).toBe(400);
    expect(refused.body.errorType).toBe("invalid_request");
    expect((await prepare({ paymasterUrl: "https://paymaster.example.com", paymasterContext: { policy: "p" } })).status).toBe(201);
  });
});

describe("the bundler's paymaster", () => {
  it("pm_getPaymasterStubData names the paymaster the EntryPoint sponsors, with its v0.7 gas limits", async () => {
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const rpc = async (method: string, params: unknown[]) =>
      (await call(sandbox, "POST", `/rpc/v1/base-sepolia/${token}`, { body: { jsonrpc: "2.0", id: 1, method, params }, anonymous: true })).body;
    const v07 = await rpc("pm_getPaymasterStubData", [{}, "0x0000000071727De22E5E9d8BAf0edAc6f37da032", "0x14a34", {}]);
    expect(v07.result).toEqual({
      paymaster: SANDBOX_PAYMASTER,
      paymasterData: "0x",
      paymasterVerificationGasLimit: "0xc350",
      paymasterPostOpGasLimit: "0x0",
      sponsor: { name: "CDP Sandbox" },
    });
    const v06 = await rpc("pm_getPaymasterData", [{}, "0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789", "0x14a34", {}]);
    expect(v06.result).toEqual({ paymasterAndData: SANDBOX_PAYMASTER, sponsor: { name: "CDP Sandbox" } });
    const otherChain = await rpc("pm_getPaymasterData", [{}, "0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789", "0x1", {}]);
    expect(otherChain.error.code).toBe(-32602);
  });
});
