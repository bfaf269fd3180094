/**
 * POST /_sandbox/balances: funds any address on any network's ledger, in the
 * network's own native token unless a token is named, and refuses bad input
 * without changing a balance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

const HOLDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());

describe("funding through the admin API", () => {
  it.each([
    ["base", "ETH"],
    ["ethereum", "ETH"],
    ["world", "ETH"],
    ["polygon", "POL"],
    ["avalanche", "AVAX"],
  ])("credits %s in its native token (%s) when no token is named", async (network, symbol) => {
    const funded = await fund(sandbox, { network, address: HOLDER, amount: "7" });
    expect(funded).toMatchObject({ network, token: symbol, contractAddress: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", decimals: 18, balance: "7" });
  });

  it("credits a named token of the table, by symbol or by contract address", async () => {
    expect(await fund(sandbox, { network: "avalanche", address: HOLDER, amount: "5", token: "usdc" })).toMatchObject({
      token: "USDC",
      decimals: 6,
      balance: "5",
    });
    const byAddress = await fund(sandbox, { network: "avalanche", address: HOLDER, amount: "5", token: "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e" });
    expect(byAddress).toMatchObject({ token: "USDC", contractAddress: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", balance: "10" });
  });

  it.each([
    [{ network: "avalanche", address: HOLDER, amount: "1", token: "WETH" }, /token WETH is not in the sandbox's token table for avalanche/],
    [{ network: "no-such-net", address: HOLDER, amount: "1" }, /network must be one of/],
    [{ network: "avalanche", address: "0x1234", amount: "1" }, /address must be a 0x-prefixed 20-byte hex address/],
    // Checked by admin-openapi.yaml's pattern before the handler runs: the message names the field and the rule.
    [{ network: "avalanche", address: HOLDER, amount: "1.5" }, /body\.amount: .*must match pattern/],
  ])("refuses %j with a clear 400 and changes nothing", async (body, message) => {
    const res = await call(sandbox, "POST", "/_sandbox/balances", { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringMatching(message) });
    expect(res.body.correlationId).toEqual(expect.any(String));
    expect((await fund(sandbox, { network: "avalanche", address: HOLDER, amount: "0" })).balance).toBe("7");
  });
});
