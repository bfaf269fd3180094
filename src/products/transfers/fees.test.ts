/**
 * The fee table over HTTP: fees depend on the source and target assets, the
 * kind of target, the network, the bank rail and the amount; `amountType`
 * says which side `amount` fixes; conversions carry an exchange rate and an
 * estimate; crypto conversions are quoted for 10 minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
let from: string;
let to: string;
let fedwire: string;
let sepa: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "transfer-fees", validateResponses: true });
  from = await openAccount(sandbox);
  to = await openAccount(sandbox);
  for (const [asset, amount] of [
    ["usdc", "100000"],
    ["usd", "100000"],
    ["eur", "1000"],
    ["eth", "10"],
  ])
    await fundAccount(sandbox, from, asset!, amount!);
  const methods = (await call(sandbox, "GET", `${P}/payment-methods`)).body.paymentMethods;
  fedwire = methods[0].paymentMethodId;
  sepa = methods[1].paymentMethodId;
});
afterAll(() => sandbox.close());

const EVM = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
async function quote(sourceAsset: string, target: Record<string, unknown>, amount: string, asset = sourceAsset, amountType?: "source" | "target") {
  const res = await call(sandbox, "POST", `${P}/transfers`, {
    body: { source: { accountId: from, asset: sourceAsset }, target, amount, asset, execute: false, ...(amountType ? { amountType } : {}) },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("fees", () => {
  it("charges nothing between accounts in one asset, and nothing to an email", async () => {
    expect((await quote("usdc", { accountId: to, asset: "usdc" }, "10")).fees).toEqual([]);
    const email = await quote("usdc", { email: "pay@example.com", asset: "usdc" }, "10");
    expect(email).toMatchObject({ fees: [], sourceAmount: "10.00", targetAmount: "10.00" });
  });

  it("charges a network fee per network and asset for onchain targets", async () => {
    expect((await quote("usdc", { address: EVM, network: "base", asset: "usdc" }, "100")).fees).toEqual([{ type: "network", amount: "0.01", asset: "usdc" }]);
    expect((await quote("usdc", { address: EVM, network: "ethereum", asset: "usdc" }, "100")).fees).toEqual([
      { type: "network", amount: "2.00", asset: "usdc" },
    ]);
    expect((await quote("usdc", { address: EVM, network: "avacchain", asset: "usdc" }, "100")).fees).toEqual([
      { type: "network", amount: "0.02", asset: "usdc" },
    ]);
    const eth = await quote("eth", { address: EVM, network: "base", asset: "eth" }, "0.5");
    expect(eth).toMatchObject({ fees: [{ type: "network", amount: "0.000005", asset: "eth" }], sourceAmount: "0.5", targetAmount: "0.499995" });
  });

  it("charges a bank fee per rail for payouts to payment methods", async () => {
    expect(await quote("usd", { paymentMethodId: fedwire, asset: "usd" }, "100")).toMatchObject({
      fees: [{ type: "bank", amount: "15.00", asset: "usd" }],
      targetAmount: "85.00",
    });
    expect(await quote("eur", { paymentMethodId: sepa, asset: "eur" }, "100")).toMatchObject({
      fees: [{ type: "bank", amount: "0.50", asset: "eur" }],
      targetAmount: "99.50",
    });
  });

  it("converts a fiat currency into its stablecoin at 1:1 for free, and shows the rate", async () => {
    const q = await quote("usd", { accountId: to, asset: "usdc" }, "100");
    expect(q).toMatchObject({
      sourceAmount: "100.00",
      targetAmount: "100.00",
      exchangeRate: { sourceAsset: "usd", targetAsset: "usdc", rate: "1" },
      fees: [{ type: "conversion", amount: "0.00", asset: "usd" }],
    });
  });

  it("charges 0.30% to change currency below $10,000 and 0.20% from $10,000", async () => {
    const small = await quote("usdc", { accountId: to, asset: "eur" }, "100");
    expect(small).toMatchObject({ fees: [{ type: "conversion", amount: "0.30", asset: "usdc" }], targetAmount: "92.31", exchangeRate: { rate: "0.92592592" } });
    expect(small.estimate).toMatchObject({ targetAmount: "92.31", targetAsset: "eur", exchangeRate: { rate: "0.92592592" }, estimatedAt: small.createdAt });
    const large = await quote("usdc", { accountId: to, asset: "eurc" }, "20000");
    expect(large.fees).toEqual([{ type: "conversion", amount: "40.00", asset: "usdc" }]);
    expect(Date.parse(large.expiresAt) - Date.parse(large.createdAt)).toBe(15 * 60_000);
  });

  it("charges 1% to convert crypto below $10,000 and 0.50% above, quoted for 10 minutes", async () => {
    const small = await quote("eth", { accountId: to, asset: "usdc" }, "1");
    expect(small).toMatchObject({ fees: [{ type: "conversion", amount: "0.01", asset: "eth" }], targetAmount: "2970.00", exchangeRate: { rate: "3000" } });
    expect(Date.parse(small.expiresAt) - Date.parse(small.createdAt)).toBe(10 * 60_000);
    const large = await quote("eth", { accountId: to, asset: "usdc" }, "4");
    expect(large).toMatchObject({ fees: [{ type: "conversion", amount: "0.02", asset: "eth" }], targetAmount: "11940.00" });
  });

  it("with amountType target delivers exactly `amount` and takes the fees on top from the source", async () => {
    const onchain = await quote("usdc", { address: EVM, network: "base", asset: "usdc" }, "100", "usdc", "target");
    expect(onchain).toMatchObject({ sourceAmount: "100.01", targetAmount: "100.00" });
    const fx = await quote("usdc", { accountId: to, asset: "eur" }, "100", "eur", "target");
    expect(fx).toMatchObject({ sourceAmount: "108.324975", targetAmount: "100.00", fees: [{ type: "conversion", amount: "0.324975", asset: "usdc" }] });
  });

  it("takes an amount given in the target asset with amountType source from the source, converted", async () => {
    const q = await quote("usd", { accountId: to, asset: "usdc" }, "50", "usdc");
    expect(q).toMatchObject({ sourceAmount: "50.00", targetAmount: "50.00" });
  });
});
