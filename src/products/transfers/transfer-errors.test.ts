/**
 * Every way createTransfer refuses a transfer, each with the contract's
 * errorType and a message that says what to fix — and none of them leaves
 * a transfer behind or moves money.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
let from: string;
let to: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "transfer-errors", validateResponses: true });
  from = await openAccount(sandbox);
  to = await openAccount(sandbox);
  await fundAccount(sandbox, from, "usdc", "5000");
});
afterAll(() => sandbox.close());

const EVM = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const base = () => ({
  source: { accountId: from, asset: "usdc" },
  target: { accountId: to, asset: "usdc" } as Record<string, unknown>,
  amount: "10",
  asset: "usdc",
  execute: false,
});
const transfer = (changes: Record<string, unknown>) => call(sandbox, "POST", `${P}/transfers`, { body: { ...base(), ...changes } });

async function expectRefused(changes: Record<string, unknown>, status: number, errorType: string, message?: RegExp) {
  const res = await transfer(changes);
  expect(res.status, res.text).toBe(status);
  expect(res.body.errorType).toBe(errorType);
  if (message) expect(res.body.errorMessage).toMatch(message);
  return res;
}

describe("createTransfer refuses", () => {
  it("an asset the sandbox does not move (transfer_asset_not_supported)", () =>
    expectRefused({ asset: "doge" }, 400, "transfer_asset_not_supported", /moves usd, eur, usdc/));

  it("an unknown source account (source_account_not_found, 404)", () =>
    expectRefused(
      { source: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usdc" } },
      404,
      "source_account_not_found",
      /GET \/v2\/accounts/,
    ));

  it("a source asset accounts do not hold (source_asset_not_supported)", () =>
    expectRefused({ source: { accountId: from, asset: "doge" } }, 400, "source_asset_not_supported"));

  it("an unknown target account (target_account_not_found, 404)", () =>
    expectRefused({ target: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usdc" } }, 404, "target_account_not_found"));

  it("the source account itself in the same asset (target_account_invalid)", () =>
    expectRefused({ target: { accountId: from, asset: "usdc" } }, 400, "target_account_invalid"));

  it("a target asset that is unknown, not carried by the network, or not the bank account's currency (target_asset_not_supported)", async () => {
    await expectRefused({ target: { accountId: to, asset: "doge" } }, 400, "target_asset_not_supported");
    await expectRefused({ target: { address: EVM, network: "arbitrum", asset: "eurc" } }, 400, "target_asset_not_supported", /arbitrum carries usdc, eth/);
    const methods = (await call(sandbox, "GET", `${P}/payment-methods`)).body.paymentMethods;
    await expectRefused({ target: { paymentMethodId: methods[0].paymentMethodId, asset: "eur" } }, 400, "target_asset_not_supported", /receives usd only/);
  });

  it("an asset that is neither the source's nor the target's (asset_mismatch)", () =>
    expectRefused(
      { target: { accountId: to, asset: "eurc" }, asset: "eth", amount: "1" },
      400,
      "asset_mismatch",
      /neither the source asset \(usdc\) nor the target asset \(eurc\)/,
    ));

  it("amounts with too many decimals, under $1, or smaller than the fees (transfer_amount_invalid)", async () => {
    await expectRefused({ amount: "1.0000001" }, 400, "transfer_amount_invalid", /decimal places/);
    await expectRefused({ amount: "0.99" }, 400, "transfer_amount_invalid", /minimum of \$1/);
    await expectRefused(
      { target: { address: EVM, network: "ethereum", asset: "usdc" }, amount: "1.5" },
      400,
      "transfer_amount_invalid",
      /does not cover the fees .*network 2.00 usdc/,
    );
  });

  it("a zero or negative amount, by the contract's pattern (invalid_request)", async () => {
    await expectRefused({ amount: "0" }, 400, "invalid_request", /amount/);
    await expectRefused({ amount: "-5" }, 400, "invalid_request", /amount/);
  });

  it("addresses that are not addresses on the network (target_onchain_address_invalid)", async () => {
    await expectRefused(
      { target: { address: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", network: "base", asset: "usdc" } },
      400,
      "target_onchain_address_invalid",
      /base addresses are a 0x-prefixed 20-byte hex/,
    );
    await expectRefused(
      { target: { address: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8", network: "base", asset: "usdc" } },
      400,
      "target_onchain_address_invalid",
      /checksum/,
    );
    await expectRefused({ target: { address: EVM, network: "solana", asset: "usdc" } }, 400, "target_onchain_address_invalid", /base-58/);
    await expectRefused({ target: { address: EVM, network: "sui", asset: "usdc" } }, 400, "target_onchain_address_invalid", /32-byte hex/);
  });

  it("a malformed email, by the contract's format, with target_email_invalid", async () => {
    await expectRefused({ target: { email: "pay@localhost", asset: "usdc" } }, 400, "target_email_invalid", /^body.target.email: .*format "email"$/);
    await expectRefused({ target: { email: "a..b@example.com", asset: "usdc" } }, 400, "target_email_invalid");
    await expectRefused({ target: { email: "not an email", asset: "usdc" } }, 400, "target_email_invalid", /pattern/);
  });

  it("an unknown payment method (invalid_request)", () =>
    expectRefused(
      { target: { paymentMethodId: "paymentMethod_00000000-0000-4000-8000-000000000000", asset: "usd" } },
      400,
      "invalid_request",
      /GET \/v2\/payment-methods/,
    ));

  it("more than the available balance including fees (insufficient_balance)", async () => {
    await expectRefused({ amount: "5000.01" }, 400, "insufficient_balance", /has 5000.00 usdc available; this transfer takes 5000.01 usdc/);
    await expectRefused(
      {
        amount: "5000",
        amountType: "target",
        target: { address: EVM, network: "base", asset: "usdc" },
        travelRule: { isSelf: true, originator: { name: "A", address: { line1: "1 Main St", city: "Boston", countryCode: "US" } } },
      },
      400,
      "insufficient_balance",
      /takes 5000.01 usdc including fees/,
    );
  });

  it("metadata over the limits, each with its own errorType", async () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"]));
    await expectRefused({ metadata: many }, 400, "metadata_too_many_entries", /more than 10 properties/);
    await expectRefused({ metadata: { ["k".repeat(41)]: "v" } }, 400, "metadata_key_too_long", /at most 40/);
    await expectRefused({ metadata: { note: "x".repeat(501) } }, 400, "metadata_value_too_long", /more than 500 characters/);
  });

  it("an onchain transfer of $3,000 or more without travel-rule details (travel_rules_field_missing), and accepts it with them", async () => {
    const target = { address: EVM, network: "base", asset: "usdc" };
    await expectRefused({ target, amount: "3000" }, 400, "travel_rules_field_missing", /travelRule.originator.name, .*travelRule.beneficiary.name/);
    await expectRefused({ target, amount: "3000", travelRule: { originator: { name: "Ada" } } }, 400, "travel_rules_field_missing", /originator.address.line1/);
    const travelRule = {
      originator: { name: "Ada Lovelace", address: { line1: "1 Main St", city: "Boston", countryCode: "US" } },
      beneficiary: { name: "Bob", walletType: "self_custody" },
    };
    expect((await transfer({ target, amount: "3000", travelRule })).status).toBe(200);
    expect((await transfer({ target, amount: "2999.99" })).status).toBe(200);
  });

  it("attestVerifiedWalletOwnership without isIntermediary (invalid_request)", () =>
    expectRefused({ travelRule: { attestVerifiedWalletOwnership: true } }, 400, "invalid_request", /only when travelRule.isIntermediary is true/));

  it("a body without execute, or with two kinds of target at once (invalid_request)", async () => {
    const { execute: _execute, ...noExecute } = base();
    const res = await call(sandbox, "POST", `${P}/transfers`, { body: noExecute });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/execute/);
    await expectRefused({ target: { accountId: to, address: EVM, network: "base", asset: "usdc" } }, 400, "invalid_request");
  });

  it("leaves nothing behind after all these refusals: only the two accepted quotes exist", async () => {
    const listed = await call(sandbox, "GET", `${P}/transfers?sourceAccountId=${from}`);
    expect(listed.body.transfers.map((t: { status: string; sourceAmount: string }) => [t.status, t.sourceAmount])).toEqual([
      ["quoted", "3000.00"],
      ["quoted", "2999.99"],
    ]);
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "5000.00", total: "5000.00" });
  });
});
