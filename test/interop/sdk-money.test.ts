/**
 * The official client's custodial APIs against the sandbox: every method of
 * cdp.accounts, cdp.transfers, cdp.depositDestinations and
 * cdp.paymentMethods, through a quote → execute → settle → balance flow, a
 * deposit with travel-rule details, and the errors the client surfaces.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-money", validateResponses: true });
  cdp = cdpClientFor(sandbox);
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const fund = (accountId: string, asset: string, amount: string) => call(sandbox, "POST", `/_sandbox/accounts/${accountId}/fund`, { body: { asset, amount } });

describe("@coinbase/cdp-sdk custodial APIs", () => {
  it("cdp.accounts: createAccount, getAccountById, listAccounts, listBalances, getBalanceByAsset", async () => {
    const created = await cdp.accounts.createAccount({ name: "SDK Treasury", idempotencyKey: "sdk-acct-1" });
    expect(created.accountId).toMatch(/^account_/);
    expect(await cdp.accounts.createAccount({ name: "SDK Treasury", idempotencyKey: "sdk-acct-1" })).toEqual(created);
    expect(await cdp.accounts.getAccountById({ accountId: created.accountId })).toEqual(created);
    const listed = await cdp.accounts.listAccounts({ owner: created.owner, type: "cdp", pageSize: 50 });
    expect(listed.accounts.map((a) => a.accountId)).toContain(created.accountId);
    await fund(created.accountId, "usdc", "75");
    const { balances } = await cdp.accounts.listBalances({ accountId: created.accountId });
    expect(balances).toEqual([
      {
        asset: { symbol: "usdc", type: "crypto", name: "USD Coin", decimals: 6 },
        amount: { usdc: { available: "75.00", total: "75.00" }, usd: { available: "75.00", total: "75.00" } },
      },
    ]);
    const one = await cdp.accounts.getBalanceByAsset({ accountId: created.accountId, asset: "usdc" });
    expect(one.amount.usdc).toEqual({ available: "75.00", total: "75.00" });
  });

  it("cdp.paymentMethods: listPaymentMethods, getPaymentMethod", async () => {
    const { paymentMethods } = await cdp.paymentMethods.listPaymentMethods({});
    expect(paymentMethods.map((m) => m.paymentRail)).toEqual(["fedwire", "sepa", "swift"]);
    const one = await cdp.paymentMethods.getPaymentMethod({ paymentMethodId: paymentMethods[0]!.paymentMethodId });
    expect(one).toEqual(paymentMethods[0]);
  });

  it("cdp.transfers: createTransfer (quote), executeFundTransfer, getTransferById, listTransfers; balances move once the clock passes", async () => {
    const from = await cdp.accounts.createAccount({});
    const to = await cdp.accounts.createAccount({});
    await fund(from.accountId, "usdc", "100");
    const quote = await cdp.transfers.createTransfer({
      source: { accountId: from.accountId, asset: "usdc" },
      target: { accountId: to.accountId, asset: "usdc" },
      amount: "40",
      asset: "usdc",
      execute: false,
      metadata: { ref: "sdk" },
    });
    expect(quote).toMatchObject({ status: "quoted", sourceAmount: "40.00", targetAmount: "40.00", fees: [], metadata: { ref: "sdk" } });
    const executed = await cdp.transfers.executeFundTransfer({ transferId: quote.transferId!, idempotencyKey: "sdk-exec-1" });
    expect(executed.status).toBe("processing");
    expect(await cdp.transfers.executeFundTransfer({ transferId: quote.transferId!, idempotencyKey: "sdk-exec-1" })).toEqual(executed);
    sandbox.clock.advance(5000);
    const done = await cdp.transfers.getTransferById({ transferId: quote.transferId! });
    expect(done.status).toBe("completed");
    expect((await cdp.accounts.getBalanceByAsset({ accountId: to.accountId, asset: "usdc" })).amount.usdc).toEqual({ available: "40.00", total: "40.00" });
    expect((await cdp.accounts.getBalanceByAsset({ accountId: from.accountId, asset: "usdc" })).amount.usdc).toEqual({ available: "60.00", total: "60.00" });
    const { transfers } = await cdp.transfers.listTransfers({ sourceAccountId: from.accountId, status: "completed" });
    expect(transfers.map((t) => t.transferId)).toEqual([quote.transferId]);
  });

  it("surfaces transfer errors as the client's error classes with the platform's body", async () => {
    const from = await cdp.accounts.createAccount({});
    await fund(from.accountId, "usdc", "10");
    const target = { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", network: "base" as const, asset: "usdc" };
    await expect(
      cdp.transfers.createTransfer({ source: { accountId: from.accountId, asset: "usdc" }, target, amount: "50", asset: "usdc", execute: true }),
    ).rejects.toMatchObject({
      statusCode: 400,
      body: { errorType: "insufficient_balance" },
    });
    const quote = await cdp.transfers.createTransfer({
      source: { accountId: from.accountId, asset: "usdc" },
      target,
      amount: "5",
      asset: "usdc",
      execute: false,
    });
    sandbox.clock.advance(16 * 60_000);
    await expect(cdp.transfers.executeFundTransfer({ transferId: quote.transferId! })).rejects.toMatchObject({
      statusCode: 400,
      body: { errorType: "transfer_quote_expired" },
    });
    await expect(cdp.transfers.getTransferById({ transferId: "transfer_00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("cdp.depositDestinations: createDepositDestination, getDepositDestinationById, listDepositDestinations; a deposit with travel-rule details (submitDepositTravelRule)", async () => {
    const account = await cdp.accounts.createAccount({});
    const dest = await cdp.depositDestinations.createDepositDestination({
      accountId: account.accountId,
      type: "crypto",
      crypto: { network: "base" },
      metadata: { source: "sdk" },
    });
    expect(dest).toMatchObject({ type: "crypto", status: "active", accountId: account.accountId });
    expect(await cdp.depositDestinations.getDepositDestinationById({ depositDestinationId: dest.depositDestinationId })).toEqual(dest);
    const { depositDestinations } = await cdp.depositDestinations.listDepositDestinations({ accountId: account.accountId });
    expect(depositDestinations).toEqual([dest]);

    const held = await call(sandbox, "POST", `/_sandbox/deposit-destinations/${dest.depositDestinationId}/deposit`, { body: { amount: "3500" } });
    expect(held.body.status).toBe("processing");
    const partial = await cdp.transfers.submitDepositTravelRule({ transferId: held.body.transferId, originator: { name: "Ada Lovelace" } });
    expect(partial).toEqual({ status: "incomplete", missingFields: ["originator.walletType", "originator.address.countryCode"] });
    const complete = await cdp.transfers.submitDepositTravelRule({
      transferId: held.body.transferId,
      originator: { walletType: "self_custody", address: { countryCode: "US" } },
    });
    expect(complete.status).toBe("completed");
    expect((await cdp.accounts.getBalanceByAsset({ accountId: account.accountId, asset: "usdc" })).amount.usdc).toEqual({
      available: "3500.00",
      total: "3500.00",
    });
    await expect(
      cdp.depositDestinations.createDepositDestination({
        accountId: account.accountId,
        type: "crypto",
        crypto: { network: "base" },
        metadata: { ["k".repeat(41)]: "v" },
      }),
    ).rejects.toMatchObject({
      statusCode: 400,
      body: { errorType: "metadata_key_too_long" },
    });
  });
});
