/**
 * Customers over HTTP: create, get, list, update by PUT and by the POST
 * some clients use, delete; capabilities and requirements following what is submitted;
 * and customer_not_authorized arising from a customer's state — resolved by
 * submitting the due fields and retrying.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "customers", validateResponses: true });
});
afterAll(() => sandbox.close());

const UNKNOWN = "customer_00000000-0000-4000-8000-000000000000";
const ADDRESS = { line1: "500 Main St", city: "Boston", state: "MA", postCode: "02108", countryCode: "US" };
const TOS = { versionId: "us_individual_2026-05-29", language: "en", acceptedAt: "2026-04-10T12:00:00Z" };
const EVERYTHING = {
  individual: {
    firstName: "Jane",
    lastName: "Doe",
    address: ADDRESS,
    dateOfBirth: { day: "15", month: "1", year: "1990" },
    ssnLast4: "1234",
    sourceOfFunds: "salary",
  },
  tosAcceptances: [TOS],
  taxAttestations: [{ form: "us_w9", isExemptBackupWithholding: false, edeliveryConsent: true, acceptedAt: "2026-04-17T20:00:00Z" }],
};

const create = (body: object) => call(sandbox, "POST", `${P}/customers`, { body: { type: "individual", ...body } });

describe("customers", () => {
  it("creates a customer whose requested capabilities are pending on the fields they need", async () => {
    const res = await create({ individual: { firstName: "Jane" }, capabilities: { custodyCrypto: { requested: true }, transferCrypto: { requested: true } } });
    expect(res.status).toBe(201);
    expect(res.body.customerId).toMatch(/^customer_[0-9a-f-]{36}$/);
    expect(res.body.capabilities.custodyCrypto).toEqual({ requested: true, status: "pending" });
    expect(res.body.capabilities.transferCrypto).toEqual({ requested: true, status: "pending" });
    expect(res.body.capabilities.tradeCrypto).toEqual({ requested: false, status: "unrequested" });
    expect(res.body.requirements.firstName).toBeUndefined();
    expect(res.body.requirements.lastName).toEqual({ status: "due", impact: ["custodyCrypto", "transferCrypto"] });
    expect(res.body.requirements.ssnLast4).toEqual({ status: "due", impact: ["custodyCrypto"] });
    expect(res.body.requirements.tos).toMatchObject({
      status: "due",
      impact: ["custodyCrypto"],
      tosVersions: [{ versionId: TOS.versionId, languages: ["en", "es"] }],
    });
    expect(res.body.individual).toEqual({ firstName: "Jane" });
    expect(res.body.projectIds).toHaveLength(1);
  });

  it("shows no requirements for a customer that asked for nothing", async () => {
    const res = await create({ individual: {} });
    expect(res.body.requirements).toEqual({});
    expect(Object.values(res.body.capabilities).every((c) => (c as { status: string }).status === "unrequested")).toBe(true);
  });

  it("activates every capability once every requirement is met, and shows only contact fields back", async () => {
    const res = await create({
      ...EVERYTHING,
      individual: { ...EVERYTHING.individual, email: "jane@example.com", phoneNumber: "+14155550123" },
      capabilities: Object.fromEntries(
        ["custodyCrypto", "custodyFiat", "custodyStablecoin", "tradeCrypto", "tradeStablecoin", "transferCrypto", "transferFiat", "transferStablecoin"].map(
          (c) => [c, { requested: true }],
        ),
      ),
    });
    expect(res.status).toBe(201);
    expect(Object.values(res.body.capabilities).every((c) => (c as { status: string }).status === "active")).toBe(true);
    expect(res.body.requirements).toEqual({});
    expect(res.body.individual).toEqual({ firstName: "Jane", lastName: "Doe", email: "jane@example.com" });
    expect(res.body.tosAcceptances).toEqual([TOS]);
  });

  it("updates alike by PUT and by the POST some clients use: submitted fields clear their requirements", async () => {
    const created = await create({ capabilities: { transferStablecoin: { requested: true } } });
    const id = created.body.customerId;
    expect(Object.keys(created.body.requirements).sort()).toEqual(["address", "firstName", "lastName"]);
    const put = await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { individual: { firstName: "Ada", lastName: "Lovelace" } } });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.requirements)).toEqual(["address"]);
    const post = await call(sandbox, "POST", `${P}/customers/${id}`, { body: { individual: { address: ADDRESS } } });
    expect(post.status).toBe(200);
    expect(post.body.requirements).toEqual({});
    expect(post.body.capabilities.transferStablecoin.status).toBe("active");
    expect(post.body.individual).toEqual({ firstName: "Ada", lastName: "Lovelace" });
    expect(Date.parse(post.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    expect((await call(sandbox, "GET", `${P}/customers/${id}`)).body).toEqual(post.body);
  });

  it("requests and withdraws capabilities by update", async () => {
    const created = await create({ individual: { firstName: "A", lastName: "B", address: ADDRESS } });
    const id = created.body.customerId;
    const asked = await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { capabilities: { transferFiat: { requested: true } } } });
    expect(asked.body.capabilities.transferFiat.status).toBe("pending");
    expect(asked.body.requirements.taxAttestation).toEqual({ status: "due", impact: ["transferFiat"], taxForms: ["us_w9"] });
    const withdrawn = await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { capabilities: { transferFiat: { requested: false } } } });
    expect(withdrawn.body.capabilities.transferFiat).toEqual({ requested: false, status: "unrequested" });
    expect(withdrawn.body.requirements).toEqual({});
  });

  it("marks an SSN ending in 0000 rejected until a verifiable one is submitted", async () => {
    const created = await create({
      ...EVERYTHING,
      individual: { ...EVERYTHING.individual, ssnLast4: "0000" },
      capabilities: { custodyCrypto: { requested: true } },
    });
    expect(created.body.requirements.ssnLast4).toEqual({ status: "rejected", impact: ["custodyCrypto"] });
    expect(created.body.capabilities.custodyCrypto.status).toBe("pending");
    const fixed = await call(sandbox, "PUT", `${P}/customers/${created.body.customerId}`, { body: { individual: { ssnLast4: "6789" } } });
    expect(fixed.body.capabilities.custodyCrypto.status).toBe("active");
  });

  it("makes the capabilities of a customer under 18 inactive with nothing due, and refuses to modify it (403 forbidden)", async () => {
    const year = String(new Date(sandbox.clock.now()).getUTCFullYear() - 10);
    const created = await create({
      ...EVERYTHING,
      individual: { ...EVERYTHING.individual, dateOfBirth: { day: "01", month: "01", year } },
      capabilities: { custodyCrypto: { requested: true } },
    });
    expect(created.body.capabilities.custodyCrypto).toEqual({ requested: true, status: "inactive" });
    expect(created.body.requirements).toEqual({});
    const update = await call(sandbox, "PUT", `${P}/customers/${created.body.customerId}`, { body: { individual: { firstName: "X" } } });
    expect(update.status).toBe(403);
    expect(update.body.errorType).toBe("forbidden");
  });

  it("refuses terms in a language they are not published in (unsupported_tos_language) and an unknown terms version", async () => {
    const lang = await create({ tosAcceptances: [{ ...TOS, language: "fr" }] });
    expect(lang.status).toBe(400);
    expect(lang.body.errorType).toBe("unsupported_tos_language");
    expect(lang.body.errorMessage).toMatch(/'en', 'es'/);
    const version = await create({ tosAcceptances: [{ ...TOS, versionId: "us_individual_1999" }] });
    expect(version.status).toBe(400);
    expect(version.body.errorType).toBe("invalid_request");
  });

  it("rejects fields the contract does not know and a missing type (invalid_request)", async () => {
    expect((await call(sandbox, "POST", `${P}/customers`, { body: { individual: {} } })).status).toBe(400);
    const extra = await create({ individual: { nickname: "J" } });
    expect(extra.status).toBe(400);
    expect(extra.body.errorType).toBe("invalid_request");
  });

  it("lists the project's live customers, a page at a time", async () => {
    const project = await sandbox.createProject();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call(sandbox, "POST", `${P}/customers`, { body: { type: "individual" }, credentials: project })).body.customerId);
    const first = await call(sandbox, "GET", `${P}/customers?pageSize=2`, { credentials: project });
    expect(first.body.customers.map((c: { customerId: string }) => c.customerId)).toEqual(ids.slice(0, 2));
    const second = await call(sandbox, "GET", `${P}/customers?pageSize=2&pageToken=${first.body.nextPageToken}`, { credentials: project });
    expect(second.body.customers.map((c: { customerId: string }) => c.customerId)).toEqual(ids.slice(2));
    await call(sandbox, "DELETE", `${P}/customers/${ids[0]}`, { credentials: project });
    expect((await call(sandbox, "GET", `${P}/customers`, { credentials: project })).body.customers).toHaveLength(2);
  });

  it("deletes idempotently: 204 twice, then 404 on reads and updates; 404 for an id never seen", async () => {
    const id = (await create({})).body.customerId;
    expect((await call(sandbox, "DELETE", `${P}/customers/${id}`)).status).toBe(204);
    expect((await call(sandbox, "DELETE", `${P}/customers/${id}`)).status).toBe(204);
    expect((await call(sandbox, "GET", `${P}/customers/${id}`)).status).toBe(404);
    expect((await call(sandbox, "PUT", `${P}/customers/${id}`, { body: {} })).status).toBe(404);
    expect((await call(sandbox, "DELETE", `${P}/customers/${UNKNOWN}`)).status).toBe(404);
    expect((await call(sandbox, "GET", `${P}/customers/${UNKNOWN}`)).status).toBe(404);
  });
});

describe("customer_not_authorized comes from the customer's state", () => {
  it("refuses an account for a customer without the custody capabilities, then opens it once the due fields are submitted", async () => {
    const created = await create({
      individual: { firstName: "Jane" },
      capabilities: { custodyCrypto: { requested: true }, custodyStablecoin: { requested: true }, custodyFiat: { requested: true } },
    });
    const id = created.body.customerId;
    const refused = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: id } });
    expect(refused.status).toBe(403);
    expect(refused.body.errorType).toBe("customer_not_authorized");
    expect(refused.body.unauthorizedCapabilities).toEqual(["custodyCrypto", "custodyFiat", "custodyStablecoin"]);
    expect(refused.body.errorMessage).toMatch(/lastName \(due\)/);

    const customer = await call(sandbox, "GET", `${P}/customers/${id}`);
    const due = Object.entries(customer.body.requirements)
      .filter(([, r]) => (r as { status: string }).status === "due")
      .map(([k]) => k);
    expect(due.sort()).toEqual(["address", "dateOfBirth", "lastName", "ssnLast4", "taxAttestation", "tos"]);
    await call(sandbox, "PUT", `${P}/customers/${id}`, { body: EVERYTHING });

    const retried = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: id, name: "Jane custody" } });
    expect(retried.status).toBe(200);
    expect(retried.body.owner).toBe(id);
  });

  it("names capabilities never requested, which the developer must request first", async () => {
    const created = await create({ ...EVERYTHING, capabilities: { custodyCrypto: { requested: true } } });
    const refused = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: created.body.customerId } });
    expect(refused.status).toBe(403);
    expect(refused.body.unauthorizedCapabilities).toEqual(["custodyFiat", "custodyStablecoin"]);
    expect(refused.body.errorMessage).toMatch(/request custodyFiat, custodyStablecoin/);
  });

  it("says nothing can be done for a customer whose capabilities are inactive", async () => {
    const all = { custodyCrypto: { requested: true }, custodyStablecoin: { requested: true }, custodyFiat: { requested: true } };
    const year = String(new Date(sandbox.clock.now()).getUTCFullYear() - 12);
    const minor = await create({ ...EVERYTHING, individual: { ...EVERYTHING.individual, dateOfBirth: { day: "1", month: "1", year } }, capabilities: all });
    const refused = await call(sandbox, "POST", `${P}/accounts`, { body: { owner: minor.body.customerId } });
    expect(refused.status).toBe(403);
    expect(refused.body.errorMessage).toMatch(/no action is available/);
  });

  it("refuses a transfer out of a customer's account until the customer may transfer stablecoins, then lets it through", async () => {
    const custody = { custodyCrypto: { requested: true }, custodyStablecoin: { requested: true }, custodyFiat: { requested: true } };
    const customer = await create({ ...EVERYTHING, capabilities: custody });
    const id = customer.body.customerId;
    const account = await openAccount(sandbox, { owner: id });
    await fundAccount(sandbox, account, "usdc", "100");
    const body = {
      source: { accountId: account, asset: "usdc" },
      target: { email: "friend@example.com", asset: "usdc" },
      amount: "10",
      asset: "usdc",
      execute: false,
    };
    const refused = await call(sandbox, "POST", `${P}/transfers`, { body });
    expect(refused.status).toBe(403);
    expect(refused.body.unauthorizedCapabilities).toEqual(["transferStablecoin"]);
    const asked = await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { capabilities: { transferStablecoin: { requested: true } } } });
    expect(asked.body.capabilities.transferStablecoin.status).toBe("active");
    const retried = await call(sandbox, "POST", `${P}/transfers`, { body });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe("quoted");
  });

  it("checks again at execution: a capability withdrawn after the quote blocks the execute", async () => {
    const caps = {
      custodyCrypto: { requested: true },
      custodyStablecoin: { requested: true },
      custodyFiat: { requested: true },
      transferStablecoin: { requested: true },
    };
    const customer = await create({ ...EVERYTHING, capabilities: caps });
    const account = await openAccount(sandbox, { owner: customer.body.customerId });
    await fundAccount(sandbox, account, "usdc", "100");
    const quote = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: account, asset: "usdc" },
        target: { email: "friend@example.com", asset: "usdc" },
        amount: "10",
        asset: "usdc",
        execute: false,
      },
    });
    await call(sandbox, "PUT", `${P}/customers/${customer.body.customerId}`, { body: { capabilities: { transferStablecoin: { requested: false } } } });
    const execute = await call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`);
    expect(execute.status).toBe(403);
    expect(execute.body.unauthorizedCapabilities).toEqual(["transferStablecoin"]);
    expect((await call(sandbox, "GET", `${P}/transfers/${quote.body.transferId}`)).body.status).toBe("quoted");
  });

  it("needs the target customer's custody and the source customer's trade capabilities for a conversion into their account", async () => {
    const holder = await create({
      ...EVERYTHING,
      capabilities: { custodyCrypto: { requested: true }, custodyStablecoin: { requested: true }, custodyFiat: { requested: true } },
    });
    const account = await openAccount(sandbox, { owner: holder.body.customerId });
    const entity = await openAccount(sandbox);
    await fundAccount(sandbox, entity, "usdc", "100");
    await fundAccount(sandbox, account, "usdc", "100");
    const into = await call(sandbox, "POST", `${P}/transfers`, {
      body: { source: { accountId: entity, asset: "usdc" }, target: { accountId: account, asset: "usdc" }, amount: "5", asset: "usdc", execute: false },
    });
    expect(into.status).toBe(200);
    const convert = await call(sandbox, "POST", `${P}/transfers`, {
      body: { source: { accountId: account, asset: "usdc" }, target: { accountId: account, asset: "eth" }, amount: "50", asset: "usdc", execute: false },
    });
    expect(convert.status).toBe(403);
    expect(convert.body.unauthorizedCapabilities).toEqual(["tradeCrypto", "tradeStablecoin"]);
  });

  it("keeps the shipped customer-not-authorized scenario working", async () => {
    const res = await call(sandbox, "POST", `${P}/accounts`, { body: {}, headers: { "X-Sandbox-Scenario": "customer-not-authorized" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errorType: "customer_not_authorized", unauthorizedCapabilities: ["transferCrypto", "transferStablecoin"] });
  });
});
