/**
 * Custodial accounts over HTTP: create (entity- and customer-owned), get,
 * list with owner/type filters and pages, balances per asset (available and
 * total, with their USD value) and the sandbox-only funding endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "accounts", validateResponses: true });
});
afterAll(() => sandbox.close());

const UNKNOWN = "account_00000000-0000-4000-8000-000000000000";

describe("creating and reading custodial accounts", () => {
  it("opens an account for the project's entity, with an account_ id, type cdp and the name given", async () => {
    const res = await call(sandbox, "POST", `${P}/accounts`, { body: { name: "Treasury" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: "cdp", name: "Treasury" });
    expect(res.body.accountId).toMatch(/^account_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.body.owner).toMatch(/^entity_/);
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    const got = await call(sandbox, "GET", `${P}/accounts/${res.body.accountId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("gives every account of a project the same entity owner", async () => {
    const a = await call(sandbox, "POST", `${P}/accounts`, { body: {} });
    const b = await call(sandbox, "POST", `${P}/accounts`, { body: {} });
    expect(a.body.owner).toBe(b.body.owner);
    const other = await sandbox.createProject();
    const c = await call(sandbox, "POST", `${P}/accounts`, { body: {}, credentials: other });
    expect(c.body.owner).not.toBe(a.body.owner);
  });

  it("refuses another entity as owner and an unknown customer as owner (400)", async () => {
    const entity = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: "entity_00000000-0000-4000-8000-000000000000" } });
    expect(entity.status).toBe(400);
    expect(entity.body.errorMessage).toMatch(/not this project's entity/);
    const customer = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: "customer_00000000-0000-4000-8000-000000000000" } });
    expect(customer.status).toBe(400);
    expect(customer.body.errorMessage).toMatch(/not a customer of this project/);
  });

  it("answers 404 for an account that does not exist or belongs to another project", async () => {
    expect((await call(sandbox, "GET", `${P}/accounts/${UNKNOWN}`)).status).toBe(404);
    const other = await sandbox.createProject();
    const theirs = await openAccount(sandbox, {}, other);
    const res = await call(sandbox, "GET", `${P}/accounts/${theirs}`);
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("not_found");
  });

  it("rejects a malformed account id with invalid_request", async () => {
    const res = await call(sandbox, "GET", `${P}/accounts/acct-1`);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});

describe("listing accounts", () => {
  it("lists by owner kind, by exact owner and by type, a page at a time", async () => {
    const project = await sandbox.createProject();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await openAccount(sandbox, { name: `A${i}` }, project));
    const customer = await call(sandbox, "POST", `${P}/customers`, { body: { type: "individual" }, credentials: project });
    const all = await call(sandbox, "GET", `${P}/accounts?pageSize=2`, { credentials: project });
    expect(all.status).toBe(200);
    expect(all.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual(ids.slice(0, 2));
    const rest = await call(sandbox, "GET", `${P}/accounts?pageSize=2&pageToken=${all.body.nextPageToken}`, { credentials: project });
    expect(rest.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual(ids.slice(2));
    expect(rest.body.nextPageToken).toBeUndefined();
    const owner = all.body.accounts[0].owner;
    expect((await call(sandbox, "GET", `${P}/accounts?owner=entity`, { credentials: project })).body.accounts).toHaveLength(3);
    expect((await call(sandbox, "GET", `${P}/accounts?owner=${owner}`, { credentials: project })).body.accounts).toHaveLength(3);
    expect((await call(sandbox, "GET", `${P}/accounts?owner=customer`, { credentials: project })).body.accounts).toHaveLength(0);
    expect((await call(sandbox, "GET", `${P}/accounts?owner=${customer.body.customerId}`, { credentials: project })).body.accounts).toHaveLength(0);
    expect((await call(sandbox, "GET", `${P}/accounts?type=cdp`, { credentials: project })).body.accounts).toHaveLength(3);
    expect((await call(sandbox, "GET", `${P}/accounts?type=prime`, { credentials: project })).body.accounts).toHaveLength(0);
  });

  it("rejects an owner filter that is neither entity nor customer", async () => {
    const res = await call(sandbox, "GET", `${P}/accounts?owner=someone`);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});

describe("balances", () => {
  it("starts empty, and funding shows up as available and total, with the USD value of crypto", async () => {
    const id = await openAccount(sandbox);
    const empty = await call(sandbox, "GET", `${P}/accounts/${id}/balances`);
    expect(empty.status).toBe(200);
    expect(empty.body.balances).toEqual([]);
    const funded = await fundAccount(sandbox, id, "usdc", "125.5");
    expect(funded).toEqual({
      asset: { symbol: "usdc", type: "crypto", name: "USD Coin", decimals: 6 },
      amount: { usdc: { available: "125.50", total: "125.50" }, usd: { available: "125.50", total: "125.50" } },
    });
    await fundAccount(sandbox, id, "eth", "0.5");
    await fundAccount(sandbox, id, "usd", "10");
    const list = await call(sandbox, "GET", `${P}/accounts/${id}/balances`);
    expect(list.body.balances.map((b: { asset: { symbol: string } }) => b.asset.symbol)).toEqual(["usd", "usdc", "eth"]);
    const eth = list.body.balances[2];
    expect(eth.amount).toEqual({ eth: { available: "0.5", total: "0.5" }, usd: { available: "1500.00", total: "1500.00" } });
    expect(list.body.balances[0].amount).toEqual({ usd: { available: "10.00", total: "10.00" } });
    expect(list.body.balances[0].asset.type).toBe("fiat");
  });

  it("pages balances", async () => {
    const id = await openAccount(sandbox);
    for (const asset of ["usd", "eur", "usdc"]) await fundAccount(sandbox, id, asset, "1");
    const first = await call(sandbox, "GET", `${P}/accounts/${id}/balances?pageSize=2`);
    expect(first.body.balances).toHaveLength(2);
    const second = await call(sandbox, "GET", `${P}/accounts/${id}/balances?pageSize=2&pageToken=${first.body.nextPageToken}`);
    expect(second.body.balances.map((b: { asset: { symbol: string } }) => b.asset.symbol)).toEqual(["usdc"]);
  });

  it("reads one asset's balance, zero for an asset never held, 404 for an asset the sandbox does not know", async () => {
    const id = await openAccount(sandbox);
    await fundAccount(sandbox, id, "eurc", "3");
    expect(await balanceOf(sandbox, id, "eurc")).toEqual({ available: "3.00", total: "3.00" });
    expect(await balanceOf(sandbox, id, "btc")).toEqual({ available: "0", total: "0" });
    const unknown = await call(sandbox, "GET", `${P}/accounts/${id}/balances/doge`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorMessage).toMatch(/usdc/);
  });

  it("answers 404 for the balances of an unknown account", async () => {
    expect((await call(sandbox, "GET", `${P}/accounts/${UNKNOWN}/balances`)).status).toBe(404);
    expect((await call(sandbox, "GET", `${P}/accounts/${UNKNOWN}/balances/usdc`)).status).toBe(404);
  });

  it("funding refuses an unknown account (404), an unknown asset and a bad amount (400), and changes nothing", async () => {
    const id = await openAccount(sandbox);
    expect((await call(sandbox, "POST", `/_sandbox/accounts/${UNKNOWN}/fund`, { body: { asset: "usdc", amount: "1" } })).status).toBe(404);
    expect((await call(sandbox, "POST", `/_sandbox/accounts/${id}/fund`, { body: { asset: "doge", amount: "1" } })).status).toBe(400);
    const tooPrecise = await call(sandbox, "POST", `/_sandbox/accounts/${id}/fund`, { body: { asset: "usd", amount: "1.001" } });
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body.errorMessage).toMatch(/at most 2 decimals/);
    expect((await call(sandbox, "POST", `/_sandbox/accounts/${id}/fund`, { body: { asset: "usd", amount: "-1" } })).status).toBe(400);
    expect((await call(sandbox, "GET", `${P}/accounts/${id}/balances`)).body.balances).toEqual([]);
  });
});
