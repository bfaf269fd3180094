/**
 * Deposit destinations over HTTP: crypto addresses in each network's
 * notation, US bank accounts pending for their first minute, filters and
 * pages, the metadata limits; and deposits played through the sandbox-only
 * endpoint landing in the account — after travel-rule details when large.
 */
import { getBase58Encoder } from "@solana/kit";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { advance, balanceOf, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "deposit-destinations", validateResponses: true });
  await call(sandbox, "POST", "/_sandbox/clock", { body: { freeze: true }, anonymous: true });
});
afterAll(() => sandbox.close());

const create = (body: Record<string, unknown>) => call(sandbox, "POST", `${P}/deposit-destinations`, { body });
const deposit = (id: string, body: Record<string, unknown>) => call(sandbox, "POST", `/_sandbox/deposit-destinations/${id}/deposit`, { body });

describe("creating deposit destinations", () => {
  it("gives a crypto destination an EIP-55 address on an EVM network, active, crediting the account in usdc by default", async () => {
    const accountId = await openAccount(sandbox);
    const res = await create({ accountId, type: "crypto", crypto: { network: "base" }, metadata: { purpose: "payroll" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      accountId,
      type: "crypto",
      status: "active",
      crypto: { network: "base" },
      target: { accountId, asset: "usdc" },
      metadata: { purpose: "payroll" },
    });
    expect(res.body.depositDestinationId).toMatch(/^depositDestination_[0-9a-f-]{36}$/);
    expect(getAddress(res.body.crypto.address)).toBe(res.body.crypto.address);
    const got = await call(sandbox, "GET", `${P}/deposit-destinations/${res.body.depositDestinationId}`);
    expect(got.body).toEqual(res.body);
  });

  it("gives Solana a base-58 32-byte address and Sui a 32-byte hex one", async () => {
    const accountId = await openAccount(sandbox);
    const sol = await create({ accountId, type: "crypto", crypto: { network: "solana" } });
    expect(getBase58Encoder().encode(sol.body.crypto.address)).toHaveLength(32);
    const sui = await create({ accountId, type: "crypto", crypto: { network: "sui" } });
    expect(sui.body.crypto.address).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("credits another account or asset when target says so, and refuses an unknown target account (404) or asset (400)", async () => {
    const accountId = await openAccount(sandbox);
    const other = await openAccount(sandbox);
    const res = await create({ accountId, type: "crypto", crypto: { network: "base" }, target: { accountId: other, asset: "usd" } });
    expect(res.body.target).toEqual({ accountId: other, asset: "usd" });
    expect(
      (
        await create({
          accountId,
          type: "crypto",
          crypto: { network: "base" },
          target: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usdc" },
        })
      ).status,
    ).toBe(404);
    const asset = await create({ accountId, type: "crypto", crypto: { network: "base" }, target: { asset: "doge" } });
    expect(asset.status).toBe(400);
    expect(asset.body.errorMessage).toMatch(/doge/);
  });

  it("gives a fiat destination a US bank account, pending for a minute of sandbox time, then active", async () => {
    const accountId = await openAccount(sandbox, { name: "Payroll" });
    const res = await create({ accountId, type: "fiat", fiat: { currency: "usd", paymentRail: "fedwire" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: "fiat",
      status: "pending",
      target: { accountId, asset: "usd" },
      fiat: { accountType: "us_bank", currency: "usd", routingNumber: "123456780", supportedRails: ["fedwire"], beneficiaryName: "Payroll" },
    });
    expect(res.body.fiat.accountNumber).toMatch(/^[0-9]{12}$/);
    const early = await deposit(res.body.depositDestinationId, { amount: "10" });
    expect(early.status).toBe(400);
    expect(early.body.errorMessage).toMatch(/still pending/);
    await advance(sandbox, "1m");
    expect((await call(sandbox, "GET", `${P}/deposit-destinations/${res.body.depositDestinationId}`)).body.status).toBe("active");
  });

  it("refuses an unknown account (404) and metadata over the limits with the metadata errorTypes", async () => {
    expect((await create({ accountId: "account_00000000-0000-4000-8000-000000000000", type: "crypto", crypto: { network: "base" } })).status).toBe(404);
    const accountId = await openAccount(sandbox);
    const crypto = { accountId, type: "crypto", crypto: { network: "base" } };
    const many = await create({ ...crypto, metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])) });
    expect([many.status, many.body.errorType]).toEqual([400, "metadata_too_many_entries"]);
    const key = await create({ ...crypto, metadata: { ["k".repeat(41)]: "v" } });
    expect([key.status, key.body.errorType]).toEqual([400, "metadata_key_too_long"]);
    const value = await create({ ...crypto, metadata: { k: "v".repeat(501) } });
    expect([value.status, value.body.errorType]).toEqual([400, "metadata_value_too_long"]);
    expect(value.body.errorMessage).toBe("body.metadata.k: Request body property metadata.k must NOT have more than 500 characters");
    expect((await call(sandbox, "GET", `${P}/deposit-destinations?accountId=${accountId}`)).body.depositDestinations).toEqual([]);
  });

  it("refuses a network the contract does not list (invalid_request)", async () => {
    const accountId = await openAccount(sandbox);
    const res = await create({ accountId, type: "crypto", crypto: { network: "dogechain" } });
    expect([res.status, res.body.errorType]).toEqual([400, "invalid_request"]);
  });

  it("needs the custody capabilities of a customer-owned account's customer", async () => {
    const customer = await call(sandbox, "POST", `${P}/customers`, {
      body: {
        type: "individual",
        capabilities: { custodyCrypto: { requested: true }, custodyStablecoin: { requested: true }, custodyFiat: { requested: true } },
        individual: {
          firstName: "A",
          lastName: "B",
          address: { line1: "1 Main St", city: "Boston", state: "MA", postCode: "02108", countryCode: "US" },
          dateOfBirth: { day: "1", month: "1", year: "1980" },
          ssnLast4: "1234",
        },
        tosAcceptances: [{ versionId: "us_individual_2026-05-29", language: "en", acceptedAt: "2026-01-01T00:00:00Z" }],
        taxAttestations: [{ form: "us_w9", isExemptBackupWithholding: false, edeliveryConsent: true, acceptedAt: "2026-01-01T00:00:00Z" }],
      },
    });
    const id = customer.body.customerId;
    const accountId = await openAccount(sandbox, { owner: id });
    await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { capabilities: { custodyStablecoin: { requested: false } } } });
    const refused = await create({ accountId, type: "crypto", crypto: { network: "base" } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ errorType: "customer_not_authorized", unauthorizedCapabilities: ["custodyStablecoin"] });
    expect((await create({ accountId, type: "fiat", fiat: { currency: "usd" } })).status).toBe(201);
  });
});

describe("listing and reading", () => {
  it("filters by account, type, network and address (any case), a page at a time", async () => {
    const project = await sandbox.createProject();
    const a = await openAccount(sandbox, {}, project);
    const b = await openAccount(sandbox, {}, project);
    const post = async (body: object) => (await call(sandbox, "POST", `${P}/deposit-destinations`, { body, credentials: project })).body;
    const d1 = await post({ accountId: a, type: "crypto", crypto: { network: "base" } });
    const d2 = await post({ accountId: a, type: "crypto", crypto: { network: "solana" } });
    const d3 = await post({ accountId: b, type: "fiat", fiat: { currency: "usd" } });
    const ids = async (q: string) =>
      (await call(sandbox, "GET", `${P}/deposit-destinations${q}`, { credentials: project })).body.depositDestinations.map(
        (d: { depositDestinationId: string }) => d.depositDestinationId,
      );
    expect(await ids("")).toEqual([d1.depositDestinationId, d2.depositDestinationId, d3.depositDestinationId]);
    expect(await ids(`?accountId=${a}`)).toEqual([d1.depositDestinationId, d2.depositDestinationId]);
    expect(await ids("?type=fiat")).toEqual([d3.depositDestinationId]);
    expect(await ids("?network=solana")).toEqual([d2.depositDestinationId]);
    expect(await ids(`?address=${d1.crypto.address.toLowerCase()}`)).toEqual([d1.depositDestinationId]);
    const page = await call(sandbox, "GET", `${P}/deposit-destinations?pageSize=2`, { credentials: project });
    expect(await ids(`?pageSize=2&pageToken=${page.body.nextPageToken}`)).toEqual([d3.depositDestinationId]);
  });

  it("answers 404 for an unknown destination and for another project's", async () => {
    expect((await call(sandbox, "GET", `${P}/deposit-destinations/depositDestination_00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const accountId = await openAccount(sandbox);
    const mine = (await create({ accountId, type: "crypto", crypto: { network: "base" } })).body.depositDestinationId;
    const other = await sandbox.createProject();
    expect((await call(sandbox, "GET", `${P}/deposit-destinations/${mine}`, { credentials: other })).status).toBe(404);
  });
});

describe("deposits (sandbox-only endpoint)", () => {
  it("credits the account at once and records a completed deposit transfer with the onchain transaction", async () => {
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "base" } })).body;
    const res = await deposit(dest.depositDestinationId, { amount: "250.5", from: "0x90F79bf6EB2c4f870365E785982E1f101E93b906" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: "completed",
      source: { address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", network: "base", asset: "usdc" },
      target: { accountId, asset: "usdc" },
      sourceAmount: "250.50",
      targetAmount: "250.50",
      details: { depositDestination: { id: dest.depositDestinationId }, onchainTransactions: [{ network: "base" }] },
    });
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "250.50", total: "250.50" });
    const listed = await call(sandbox, "GET", `${P}/transfers?targetAccountId=${accountId}&sourceAddress=0x90f79bf6eb2c4f870365e785982e1f101e93b906`);
    expect(listed.body.transfers.map((t: { transferId: string }) => t.transferId)).toEqual([res.body.transferId]);
    const execute = await call(sandbox, "POST", `${P}/transfers/${res.body.transferId}/execute`);
    expect(execute.status).toBe(400);
  });

  it("converts a deposit into the target asset, and takes USD by ACH into a fiat destination", async () => {
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "ethereum" }, target: { asset: "usd" } })).body;
    const eth = await deposit(dest.depositDestinationId, { amount: "0.1", asset: "eth" });
    expect(eth.body).toMatchObject({ sourceAmount: "0.1", targetAmount: "297.00", fees: [{ type: "conversion", amount: "0.001", asset: "eth" }] });
    const bank = (await create({ accountId, type: "fiat", fiat: { currency: "usd" } })).body;
    await advance(sandbox, "1m");
    const ach = await deposit(bank.depositDestinationId, { amount: "1000", originatorName: "Acme Payroll" });
    expect(ach.body).toMatchObject({
      status: "completed",
      source: { currency: "usd", companyName: "Acme Payroll", companyEntryDescription: "DEPOSIT" },
      targetAmount: "1000.00",
    });
    const wire = await deposit(bank.depositDestinationId, { amount: "5", rail: "fedwire" });
    expect(wire.body.source).toMatchObject({ currency: "usd", originatorName: "Sandbox Depositor", accountNumber: "89770098" });
    expect(await balanceOf(sandbox, accountId, "usd")).toEqual({ available: "1302.00", total: "1302.00" });
  });

  it("refuses an unknown destination (404), an asset the network does not carry and a bad amount (400)", async () => {
    expect((await deposit("depositDestination_00000000-0000-4000-8000-000000000000", { amount: "1" })).status).toBe(404);
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "solana" } })).body;
    const asset = await deposit(dest.depositDestinationId, { amount: "1", asset: "eth" });
    expect(asset.status).toBe(400);
    expect(asset.body.errorMessage).toMatch(/usdc, sol/);
    expect((await deposit(dest.depositDestinationId, { amount: "0" })).status).toBe(400);
    expect((await deposit(dest.depositDestinationId, { amount: "1", from: "0xnot" })).body.errorType).toBe("target_onchain_address_invalid");
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "0.00", total: "0.00" });
  });

  it("forwards a deposit to an onchain target on the ledger", async () => {
    const accountId = await openAccount(sandbox);
    const forwardTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "base" }, target: { address: forwardTo, network: "base", asset: "usdc" } }))
      .body;
    const res = await deposit(dest.depositDestinationId, { amount: "20" });
    expect(res.body).toMatchObject({ status: "completed", target: { address: forwardTo, network: "base", asset: "usdc" }, targetAmount: "19.99" });
    const balances = (await call(sandbox, "GET", `${P}/evm/token-balances/base/${forwardTo}`)).body.balances;
    expect(balances[0].amount).toEqual({ amount: "19990000", decimals: 6 });
  });
});

describe("travel rule for large deposits", () => {
  it("holds a crypto deposit of $3,000 or more until the originator's details are complete, then credits it", async () => {
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "base" } })).body;
    const held = await deposit(dest.depositDestinationId, { amount: "5000" });
    expect(held.body).toMatchObject({ status: "processing", details: { travelRule: { status: "incomplete" } } });
    expect(held.body.details.travelRule.statusMessage).toMatch(/originator.walletType, originator.name, originator.address.countryCode/);
    await advance(sandbox, "1h");
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "0.00", total: "0.00" });

    const url = `${P}/transfers/${held.body.transferId}/travel-rule`;
    const partial = await call(sandbox, "POST", url, { body: { originator: { name: "Ada Lovelace", walletType: "custodial" } } });
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual({ status: "incomplete", missingFields: ["originator.address.countryCode", "originator.virtualAssetServiceProvider.name"] });
    expect((await call(sandbox, "GET", `${P}/transfers/${held.body.transferId}`)).body.details.travelRule.statusMessage).toMatch(
      /originator.address.countryCode/,
    );

    const rest = await call(sandbox, "POST", url, {
      body: { originator: { address: { countryCode: "GB" }, virtualAssetServiceProvider: { name: "Example Exchange Ltd" } } },
    });
    expect(rest.body).toEqual({ status: "completed", missingFields: [] });
    const done = (await call(sandbox, "GET", `${P}/transfers/${held.body.transferId}`)).body;
    expect(done).toMatchObject({ status: "completed", details: { travelRule: { status: "completed" } } });
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "5000.00", total: "5000.00" });

    const again = await call(sandbox, "POST", url, { body: { isSelf: true } });
    expect(again.status).toBe(400);
    expect(again.body.errorMessage).toMatch(/not a deposit held for travel-rule information/);
  });

  it("accepts a self-transfer attestation with the wallet type only", async () => {
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "solana" } })).body;
    const held = await deposit(dest.depositDestinationId, { amount: "3000" });
    const res = await call(sandbox, "POST", `${P}/transfers/${held.body.transferId}/travel-rule`, {
      body: { isSelf: true, originator: { walletType: "self_custody" } },
    });
    expect(res.body).toEqual({ status: "completed", missingFields: [] });
    expect(await balanceOf(sandbox, accountId, "usdc")).toEqual({ available: "3000.00", total: "3000.00" });
  });

  it("refuses travel-rule details for a transfer that is not a held deposit (400) and an unknown transfer (404), and attestVerifiedWalletOwnership without isIntermediary", async () => {
    const accountId = await openAccount(sandbox);
    const dest = (await create({ accountId, type: "crypto", crypto: { network: "base" } })).body;
    const small = await deposit(dest.depositDestinationId, { amount: "10" });
    expect((await call(sandbox, "POST", `${P}/transfers/${small.body.transferId}/travel-rule`, { body: { isSelf: true } })).status).toBe(400);
    expect((await call(sandbox, "POST", `${P}/transfers/transfer_00000000-0000-4000-8000-000000000000/travel-rule`, { body: { isSelf: true } })).status).toBe(
      404,
    );
    const held = await deposit(dest.depositDestinationId, { amount: "4000" });
    const attest = await call(sandbox, "POST", `${P}/transfers/${held.body.transferId}/travel-rule`, { body: { attestVerifiedWalletOwnership: true } });
    expect(attest.status).toBe(400);
    expect(attest.body.errorMessage).toMatch(/isIntermediary/);
  });
});
