/**
 * The sandbox's Morpho Blue contract through its JSON-RPC node, driven by
 * viem as a wallet would drive the real one: approve, supplyCollateral,
 * borrow, repay and withdrawCollateral with Morpho's own ABI and market
 * parameters read from the borrow-product catalogue. A borrow past the
 * liquidation LTV is included and reverts, changing no balance.
 */
import type { Sandbox } from "cdp-sandbox";
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbi, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";

const MORPHO = "0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb";
const morphoAbi = parseAbi([
  "struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }",
  "function supplyCollateral(MarketParams marketParams, uint256 assets, address onBehalf, bytes data)",
  "function withdrawCollateral(MarketParams marketParams, uint256 assets, address onBehalf, address receiver)",
  "function borrow(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver) returns (uint256, uint256)",
  "function repay(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data) returns (uint256, uint256)",
]);

let sandbox: Sandbox;
let node: PublicClient;
let nodeUrl: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "viem-morpho" });
  sandbox.clock.freeze(true); // no interest between the calls: repaying 500 repays everything
  nodeUrl = await nodeUrlFor(sandbox, "base");
  node = createPublicClient({ chain: base, transport: http(nodeUrl) }) as PublicClient;
});
afterAll(() => sandbox.close());

describe("Morpho Blue on the sandbox's node", () => {
  it("takes collateral, lends, is repaid and returns the collateral, and reverts an unhealthy borrow", async () => {
    const product = (await call(sandbox, "GET", "/platform/v2/embedded-wallet-api/evm/borrow-products")).body.borrowProducts[0];
    const mp = product.protocolDetails.marketParams;
    const params = {
      loanToken: mp.loanToken.address,
      collateralToken: mp.collateralToken.address,
      oracle: mp.oracleAddress,
      irm: mp.interestRateModelAddress,
      lltv: BigInt(mp.lltvBps) * 10n ** 14n,
    };
    const account = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base", address: account.address, amount: "10000000000000000" });
    await fund(sandbox, { network: "base", address: account.address, token: mp.collateralToken.symbol, amount: "1000000" }); // 0.01 cbBTC
    const wallet = createWalletClient({ account, chain: base, transport: http(nodeUrl) });
    const gas = 300_000n;
    const sent = async (hash: `0x${string}`) => (await node.getTransactionReceipt({ hash })).status;
    const balance = (token: `0x${string}`, who: `0x${string}`) => node.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });

    expect(
      await sent(await wallet.writeContract({ address: mp.collateralToken.address, abi: erc20Abi, functionName: "approve", args: [MORPHO, 1_000_000n], gas })),
    ).toBe("success");
    expect(
      await sent(
        await wallet.writeContract({
          address: MORPHO,
          abi: morphoAbi,
          functionName: "supplyCollateral",
          args: [params, 1_000_000n, account.address, "0x"],
          gas,
        }),
      ),
    ).toBe("success");
    // 0.01 cbBTC is worth 1,000 USDC; 86 % of it is the most the position may owe.
    const tooMuch = await wallet.writeContract({
      address: MORPHO,
      abi: morphoAbi,
      functionName: "borrow",
      args: [params, 860_000_000n, 0n, account.address, account.address],
      gas,
    });
    expect(await sent(tooMuch)).toBe("reverted");
    expect(await balance(mp.loanToken.address, account.address)).toBe(0n);
    const borrow = await wallet.writeContract({
      address: MORPHO,
      abi: morphoAbi,
      functionName: "borrow",
      args: [params, 500_000_000n, 0n, account.address, account.address],
      gas,
    });
    expect(await sent(borrow)).toBe("success");
    expect(await balance(mp.loanToken.address, account.address)).toBe(500_000_000n);
    expect(await balance(mp.collateralToken.address, MORPHO)).toBe(1_000_000n);

    // Without the debt repaid the collateral stays.
    const early = await wallet.writeContract({
      address: MORPHO,
      abi: morphoAbi,
      functionName: "withdrawCollateral",
      args: [params, 1_000_000n, account.address, account.address],
      gas,
    });
    expect(await sent(early)).toBe("reverted");
    await wallet.writeContract({ address: mp.loanToken.address, abi: erc20Abi, functionName: "approve", args: [MORPHO, 500_000_000n], gas });
    const repay = await wallet.writeContract({
      address: MORPHO,
      abi: morphoAbi,
      functionName: "repay",
      args: [params, 500_000_000n, 0n, account.address, "0x"],
      gas,
    });
    expect(await sent(repay)).toBe("success");
    const back = await wallet.writeContract({
      address: MORPHO,
      abi: morphoAbi,
      functionName: "withdrawCollateral",
      args: [params, 1_000_000n, account.address, account.address],
      gas,
    });
    expect(await sent(back)).toBe("success");
    expect(await balance(mp.collateralToken.address, account.address)).toBe(1_000_000n);
    expect(await balance(mp.loanToken.address, account.address)).toBe(0n);
  });
});
