/**
 * An EOA whose EIP-7702 delegation completed acts as a smart account for user
 * operations at its own address: it signs them with its own key, the calls run
 * from it, and its ETH pays the gas unless the request names a paymaster. The
 * same for an end user's delegated EVM account. Signatures are checked with viem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, recoverAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "delegated-accounts" });
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const GAS_PRICE = 1_000_000n; // the ledger's gas price, in wei
const TOKEN_CALL_GAS = 52_000n;
const transfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, amount] });

async function balancesOf(address: string): Promise<Record<string, string>> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
  return Object.fromEntries(
    (res.body.balances as Array<{ token: { symbol: string }; amount: { amount: string } }>).map((b) => [b.token.symbol, b.amount.amount]),
  );
}

/** A project EVM account holding ETH and USDC on Base Sepolia, with its delegation created (not yet complete). */
async function delegatingAccount() {
  const eoa = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
  await fund(sandbox, { network: "base-sepolia", address: eoa, amount: "1000000000000000" });
  await fund(sandbox, { network: "base-sepolia", address: eoa, token: "USDC", amount: "5000000" });
  const created = await call(sandbox, "POST", `/platform/v2/evm/accounts/${eoa}/eip7702/delegation`, { body: { network: "base-sepolia" }, wallet: true });
  expect(created.status).toBe(201);
  return { eoa, operationId: created.body.delegationOperationId as string };
}

describe("user operations of a delegated EOA", () => {
  it("are refused until the delegation completes, then prepared, signed by the EOA, executed from it and paid from its ETH", async () => {
    sandbox.clock.freeze(true);
    try {
      const { eoa, operationId } = await delegatingAccount();
      const base = `/platform/v2/evm/smart-accounts/${eoa}/user-operations`;
      const body = { network: "base-sepolia", calls: [{ to: USDC, value: "0", data: transfer(1_000_000n) }] };
      const early = await call(sandbox, "POST", base, { body });
      expect(early.status).toBe(404);
      expect(early.body.errorMessage).toMatch(/EIP-7702/);

      sandbox.clock.advance(2000);
      expect((await call(sandbox, "GET", `/platform/v2/evm/eip7702/delegation-operations/${operationId}`)).body.status).toBe("COMPLETED");
      const prepared = await call(sandbox, "POST", base, { body });
      expect(prepared.status).toBe(201);
      const hash = prepared.body.userOpHash as Hex;

      const foreign = await privateKeyToAccount(generatePrivateKey()).sign({ hash });
      const refused = await call(sandbox, "POST", `${base}/${hash}/send`, { body: { signature: foreign } });
      expect(refused.status).toBe(400);
      expect(refused.body.errorType).toBe("invalid_signature");

      const signed = await call(sandbox, "POST", `/platform/v2/evm/accounts/${eoa}/sign`, { body: { hash }, wallet: true });
      expect(await recoverAddress({ hash, signature: signed.body.signature })).toBe(eoa); // the EOA is its own owner
      const sent = await call(sandbox, "POST", `${base}/${hash}/send`, { body: { signature: signed.body.signature } });
      expect(sent.status).toBe(200);
      expect(["broadcast", "complete"]).toContain(sent.body.status); // complete at once when the sandbox mines automatically
      sandbox.clock.advance(4000);
      const done = await call(sandbox, "GET", `${base}/${hash}`);
      expect(done.body.status).toBe("complete");
      expect(await balancesOf(eoa)).toEqual({ ETH: String(1_000_000_000_000_000n - TOKEN_CALL_GAS * GAS_PRICE), USDC: "4000000" });
      expect((await balancesOf(TO)).USDC).toBe("1000000");
    } finally {
      sandbox.clock.freeze(false);
    }
  });

  it("are sponsored when the request names a paymaster, and prepare-and-send signs with the EOA's key", async () => {
    const { eoa } = await delegatingAccount();
    sandbox.clock.advance(2000);
    const res = await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${eoa}/user-operations/prepare-and-send`, {
      body: { network: "base-sepolia", calls: [{ to: USDC, value: "0", data: transfer(500_000n) }], paymasterUrl: "https://paymaster.example.com/rpc" },
      wallet: true,
    });
    expect(res.status).toBe(200);
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${eoa}/user-operations/${res.body.userOpHash}`)).body.status).toBe("complete");
    expect(await balancesOf(eoa)).toEqual({ ETH: "1000000000000000", USDC: "4500000" });
  });

  it("are not a smart account on a network where the account has no delegation", async () => {
    const { eoa } = await delegatingAccount();
    sandbox.clock.advance(2000);
    const res = await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${eoa}/user-operations`, {
      body: { network: "base", calls: [{ to: TO, value: "0", data: "0x" }] },
    });
    expect(res.status).toBe(404);
  });
});

describe("user operations of an end user's delegated EVM account", () => {
  it("are sent by the end user once the delegation completes, from the EOA, paying its own gas without a paymaster", async () => {
    const userId = "delegating-user";
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: "delegating@example.com" }] },
      wallet: true,
    });
    const eoa = created.body.evmAccounts[0] as string;
    await fund(sandbox, { network: "base-sepolia", address: eoa, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: eoa, token: "USDC", amount: "2000000" });
    const session = await endUserSession(sandbox, userId);
    const send = (useCdpPaymaster: boolean) =>
      call(sandbox, "POST", `/platform/v2/embedded-wallet-api/end-users/${userId}/evm/smart-accounts/${eoa}/send`, {
        body: { network: "base-sepolia", calls: [{ to: USDC, value: "0", data: transfer(250_000n) }], useCdpPaymaster },
        endUser: session,
      });
    sandbox.clock.freeze(true);
    try {
      expect((await send(false)).status).toBe(404);
      const delegation = await call(sandbox, "POST", `/platform/v2/embedded-wallet-api/end-users/${userId}/evm/eip7702/delegation`, {
        body: { address: eoa, network: "base-sepolia" },
        endUser: session,
      });
      expect(delegation.status).toBe(201);
      sandbox.clock.advance(2000);
      const own = await send(false);
      expect(own.status).toBe(200);
      const sponsored = await send(true);
      expect(sponsored.status).toBe(200);
      sandbox.clock.advance(4000);
      expect(await balancesOf(eoa)).toEqual({ ETH: String(1_000_000_000_000_000n - TOKEN_CALL_GAS * GAS_PRICE), USDC: "1500000" });
    } finally {
      sandbox.clock.freeze(false);
    }
  });
});
