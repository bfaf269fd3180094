/**
 * The client-side cdp_ methods as raw JSON-RPC: the platform's error codes for bad parameters (-32602) and for a
 * charge that cannot be paid (-32601, which OnchainKit shows as an invalid charge), no charge created by a refused
 * checkout, a charge expiring on the sandbox clock, and a superseded payment intent reverting.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "client-rpc" });
});
afterAll(() => sandbox.close());

const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

async function rpc(method: string, params: unknown) {
  const res = await request(sandbox.url).post(`/rpc/v1/base-sepolia/${sandbox.credentials.clientApiKey}`).send({ jsonrpc: "2.0", id: 7, method, params });
  expect(res.status).toBe(200);
  return res.body as { id: number; result?: unknown; error?: { code: number; message: string } };
}

describe("client-side cdp_ methods", () => {
  it.each([
    ["cdp_listSwapAssets", [{ limit: "0" }]],
    ["cdp_listSwapAssets", ["not an object"]],
    ["cdp_getSwapQuote", [{ from: "ETH", to: USDC, amount: "1.5" }]],
    ["cdp_getSwapQuote", [{ from: "ETH", to: "0x0000000000000000000000000000000000000001", amount: "1" }]],
    ["cdp_getSwapQuote", [{ from: "ETH", to: USDC, amount: "1", amountReference: "to" }]],
    ["cdp_getSwapQuote", [{ from: "ETH", to: USDC, amount: "1", slippagePercentage: "101" }]],
    ["cdp_getSwapTrade", [{ from: "ETH", to: USDC, amount: "1000", fromAddress: "0x1234" }]],
    ["cdp_getTokensForAddresses", [{ addresses: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }]],
    ["cdp_getTokensForAddresses", [{ addresses: [] }]],
    ["cdp_getPriceQuote", [{ tokens: [] }]],
    ["cdp_getMintDetails", [{ contractAddress: "nope" }]],
    ["cdp_mintToken", [{ mintAddress: USDC, takerAddress: TAKER, quantity: 0 }]],
    ["cdp_hydrateCharge", [{ sender: "0x1", chargeId: "x" }]],
    ["cdp_createProductCharge", [{ sender: TAKER, productId: "" }]],
  ])("refuses %s with %j as invalid params (-32602)", async (method, params) => {
    const out = await rpc(method, params);
    expect(out.error?.code, JSON.stringify(out)).toBe(-32602);
    expect(out.error?.message).toMatch(/^invalid params: /);
  });

  it("answers a charge that does not exist with -32601, and an unknown method as the node always has", async () => {
    expect((await rpc("cdp_hydrateCharge", [{ sender: TAKER, chargeId: "00000000-0000-0000-0000-000000000000" }])).error?.code).toBe(-32601);
    expect((await rpc("cdp_noSuchMethod", [])).error).toEqual({ code: -32601, message: "the method cdp_noSuchMethod does not exist/is not available" });
  });

  it("creates no charge for a refused product checkout, and one for an accepted one", async () => {
    await call(sandbox, "PUT", "/_sandbox/commerce-products/mug", { body: { network: "base-sepolia", name: "Mug", amount: "12000000", recipient: TAKER } });
    const total = async () => (await call(sandbox, "GET", "/_sandbox/charges")).body.total as number;
    const before = await total();
    expect((await rpc("cdp_createProductCharge", [{ sender: "0x12", productId: "mug" }])).error?.code).toBe(-32602);
    expect(await total()).toBe(before);
    const made = await rpc("cdp_createProductCharge", [{ sender: TAKER, productId: "mug" }]);
    expect(made.result).toMatchObject({ callData: { recipientAmount: "11880000", feeAmount: "120000", refundDestination: TAKER } });
    expect(await total()).toBe(before + 1);
  });

  it("answers a firm trade for the taker: the settler call, its value, the quote", async () => {
    const trade = (await rpc("cdp_getSwapTrade", [{ from: "ETH", to: USDC, amount: "1000000000000000", fromAddress: TAKER }])).result;
    expect(trade).toMatchObject({ chainId: "84532", tx: { value: "1000000000000000", from: TAKER }, quote: { toAmount: "2997000" } });
  });

  it("lets a charge expire on the sandbox clock: no longer payable, listed EXPIRED", async () => {
    const created = await call(sandbox, "POST", "/_sandbox/charges", { body: { network: "base-sepolia", name: "Late", amount: "1000000", recipient: TAKER } });
    expect((await rpc("cdp_hydrateCharge", [{ sender: TAKER, chargeId: created.body.chargeId }])).result).toMatchObject({ id: created.body.chargeId });
    sandbox.clock.advance(61 * 60 * 1000);
    expect((await rpc("cdp_hydrateCharge", [{ sender: TAKER, chargeId: created.body.chargeId }])).error?.code).toBe(-32601);
    const listed = await call(sandbox, "GET", "/_sandbox/charges");
    expect(listed.body.items.find((c: { chargeId: string }) => c.chargeId === created.body.chargeId).status).toBe("EXPIRED");
  });

  it("hydrates a charge on its own network only", async () => {
    const created = await call(sandbox, "POST", "/_sandbox/charges", { body: { network: "base", name: "Mainnet", amount: "1000000", recipient: TAKER } });
    expect((await rpc("cdp_hydrateCharge", [{ sender: TAKER, chargeId: created.body.chargeId }])).error?.code).toBe(-32601);
  });
});
