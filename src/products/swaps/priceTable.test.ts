/**
 * The price table agrees with the token table: on every swap network, every
 * token the ledger knows can be priced over HTTP against the network's USDC,
 * in both directions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { evmTokenBySymbol, evmTokensOf } from "../../chain/tokens.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "price-table", validateResponses: true });
});
afterAll(() => sandbox.close());

const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** The contract's EvmSwapsNetwork. */
const SWAP_NETWORKS = ["base", "ethereum", "arbitrum", "optimism", "polygon"];

const price = (network: string, fromToken: string, toToken: string, fromAmount: string) =>
  call(sandbox, "GET", `/platform/v2/evm/swaps/quote?${new URLSearchParams({ network, fromToken, toToken, fromAmount, taker: TAKER })}`);

describe("the swap price table", () => {
  it.each(SWAP_NETWORKS)("prices every token of %s's token table against its USDC, both ways", async (network) => {
    const usdc = evmTokenBySymbol(network, "USDC")!;
    const tokens = evmTokensOf(network).filter((t) => t.symbol !== "USDC");
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    for (const token of tokens) {
      const sell = await price(network, token.address, usdc.address, (10n ** BigInt(token.decimals)).toString());
      expect(sell.status, `${network} ${token.symbol} → USDC: ${sell.text}`).toBe(200);
      expect(sell.body.liquidityAvailable, `${network} ${token.symbol} → USDC`).toBe(true);
      const buy = await price(network, usdc.address, token.address, "100000000");
      expect(buy.body.liquidityAvailable, `${network} USDC → ${token.symbol}`).toBe(true);
    }
  });

  it("prices DAI on Optimism at $1", async () => {
    const res = await price("optimism", "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1", "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", "10000000000000000");
    expect(res.body).toMatchObject({ liquidityAvailable: true, toAmount: "9990" });
  });
});
