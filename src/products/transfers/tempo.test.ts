/**
 * Tempo, the payment network client 1.57 adds: custodial accounts pay USDC out to an EVM address on it (network
 * fee 0.01 USDC; the payout completes with a transaction hash, as on the other networks the ledger does not
 * simulate), deposit destinations take it, and it carries nothing but USDC.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { advance, balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "tempo-network", validateResponses: true });
  await call(sandbox, "POST", "/_sandbox/clock", { body: { freeze: true }, anonymous: true });
});
afterAll(() => sandbox.close());

const EVM = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

describe("the tempo payment network", () => {
  it("quotes a 0.01 USDC network fee and pays an address on tempo to completion with a transaction hash", async () => {
    const from = await openAccount(sandbox);
    await fundAccount(sandbox, from, "usdc", "100");
    const res = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: from, asset: "usdc" },
        target: { address: EVM, network: "tempo", asset: "usdc" },
        amount: "10",
        asset: "usdc",
        execute: true,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.fees).toEqual([{ type: "network", amount: "0.01", asset: "usdc" }]);
    expect(res.body.target).toMatchObject({ network: "tempo", address: EVM });
    await advance(sandbox, "30s");
    const done = (await call(sandbox, "GET", `${P}/transfers/${res.body.transferId}`)).body;
    expect(done.status).toBe("completed");
    expect(done.details.onchainTransactions[0]).toMatchObject({ network: "tempo", transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect((await balanceOf(sandbox, from, "usdc")).available).toBe("90.00");
  });

  it("refuses another asset on tempo and a non-EVM address, changing nothing", async () => {
    const from = await openAccount(sandbox);
    await fundAccount(sandbox, from, "eurc", "100");
    await fundAccount(sandbox, from, "usdc", "100");
    const eurc = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: from, asset: "eurc" },
        target: { address: EVM, network: "tempo", asset: "eurc" },
        amount: "10",
        asset: "eurc",
        execute: true,
      },
    });
    expect(eurc.status).toBe(400);
    expect(eurc.body).toMatchObject({ errorType: "target_asset_not_supported", errorMessage: expect.stringMatching(/tempo carries usdc/) });
    const solanaAddress = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: from, asset: "usdc" },
        target: { address: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", network: "tempo", asset: "usdc" },
        amount: "10",
        asset: "usdc",
        execute: true,
      },
    });
    expect(solanaAddress.status).toBe(400);
    expect((await balanceOf(sandbox, from, "usdc")).available).toBe("100.00");
    expect((await call(sandbox, "GET", `${P}/transfers`)).body.transfers.filter((t: { source: { accountId: string } }) => t.source.accountId === from)).toEqual(
      [],
    );
  });

  it("gives a deposit destination on tempo an EVM address", async () => {
    const accountId = await openAccount(sandbox);
    const res = await call(sandbox, "POST", `${P}/deposit-destinations`, { body: { accountId, type: "crypto", crypto: { network: "tempo" } } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.crypto).toEqual({ network: "tempo", address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
  });
});
