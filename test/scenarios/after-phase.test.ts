/**
 * The shipped "5xx after the operation did succeed" scenarios: the client sees
 * a 500, yet the state changed — the platform's "status unknown after a 5xx".
 * Each is switched on per request with X-Sandbox-Scenario.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeTransaction } from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "after-phase" });
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const scenario = (name: string) => ({ headers: { "X-Sandbox-Scenario": name } });

describe("5xx after success", () => {
  it("create-succeeds-then-500: the account exists although the client saw a 500", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", {
      body: { name: "created-anyway" },
      wallet: true,
      ...scenario("create-succeeds-then-500"),
    });
    expect(res.status).toBe(500);
    expect(res.body.errorType).toBe("internal_server_error");
    const found = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/created-anyway");
    expect(found.status).toBe(200);
    expect(found.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("send-succeeds-then-500: the transaction was applied to the ledger although the client saw a 500", async () => {
    const account = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body;
    await fund(sandbox, { network: "base-sepolia", address: account.address, amount: "1000000000000000" });
    const transaction = serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 12345n });
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${account.address}/send/transaction`, {
      body: { network: "base-sepolia", transaction },
      wallet: true,
      ...scenario("send-succeeds-then-500"),
    });
    expect(res.status).toBe(500);
    sandbox.clock.advance(4000);
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
    const count = await call(sandbox, "POST", `/rpc/v1/base-sepolia/${token}`, {
      body: { jsonrpc: "2.0", id: 1, method: "eth_getTransactionCount", params: [account.address, "latest"] },
      anonymous: true,
    });
    expect(BigInt(count.body.result)).toBe(1n);
  });
});
