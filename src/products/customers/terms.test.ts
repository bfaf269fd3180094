/**
 * Terms of Service with deadlines over HTTP: a version published with a deadline is a non-blocking `due`
 * until the sandbox clock passes it, then `past_due` and blocking (announced by webhook at that time); and
 * GET /v2/customers/requirements, the preview of the Terms of Service requirement before any customer exists.
 */
import { describe, expect, it } from "vitest";
import { P } from "#test/helpers/money.js";
import { call } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "customer-terms", validateResponses: true });

const ADDRESS = { line1: "500 Main St", city: "Boston", state: "MA", postCode: "02108", countryCode: "US" };
const FIRST_TOS = "us_individual_2026-05-29";
const accepted = (versionId: string) => ({ versionId, language: "en", acceptedAt: "2026-04-10T12:00:00Z" });
const READY = {
  individual: { firstName: "Jane", lastName: "Doe", address: ADDRESS, dateOfBirth: { day: "15", month: "1", year: "1990" }, ssnLast4: "1234" },
  tosAcceptances: [accepted(FIRST_TOS)],
};
const DAY = 24 * 60 * 60 * 1000;

async function newProject() {
  const p = await sandbox.createProject();
  return { apiKeyId: p.apiKeyId, apiKeySecret: p.apiKeySecret, walletSecret: p.walletSecret };
}
type Credentials = Awaited<ReturnType<typeof newProject>>;

const publish = (body: object, credentials: Credentials) => call(sandbox, "POST", "/_sandbox/terms-of-service", { body, credentials });
const preview = (query: string, credentials?: Credentials) => call(sandbox, "GET", `${P}/customers/requirements?${query}`, { credentials });

describe("Terms of Service deadlines", () => {
  it("keep a new version due without blocking until its deadline passes, then past_due and blocking, announced at that time", async () => {
    const credentials = await newProject();
    const sub = await subscribe(sandbox, receiver, ["customers.capability.changed"], credentials);
    const created = await call(sandbox, "POST", `${P}/customers`, {
      body: { type: "individual", capabilities: { custodyCrypto: { requested: true } }, ...READY },
      credentials,
    });
    expect(created.body.capabilities.custodyCrypto.status).toBe("active");
    const id = created.body.customerId as string;

    const deadline = new Date(sandbox.clock.now() + DAY).toISOString();
    const published = await publish({ versionId: "us_individual_2026-12-01", deadline }, credentials);
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ versionId: "us_individual_2026-12-01", deadline, languages: ["en"] });

    const during = (await call(sandbox, "GET", `${P}/customers/${id}`, { credentials })).body;
    expect(during.capabilities.custodyCrypto.status).toBe("active");
    expect(during.requirements.tos).toEqual({
      status: "due",
      deadline,
      impact: ["custodyCrypto"],
      tosVersions: [{ versionId: "us_individual_2026-12-01", deadline, languages: ["en"], url: expect.any(String) }],
    });

    sandbox.clock.advance(DAY + 1000);
    const after = (await call(sandbox, "GET", `${P}/customers/${id}`, { credentials })).body;
    expect(after.requirements.tos).toMatchObject({ status: "past_due", deadline });
    expect(after.capabilities.custodyCrypto.status).toBe("pending");

    const fixed = await call(sandbox, "PUT", `${P}/customers/${id}`, { body: { tosAcceptances: [accepted("us_individual_2026-12-01")] }, credentials });
    expect(fixed.body.requirements.tos).toBeUndefined();
    expect(fixed.body.capabilities.custodyCrypto.status).toBe("active");

    await flush(sandbox);
    const got = (await deliveredTo(sandbox, receiver, sub, credentials)).filter((e) => e.body.data.customerId === id);
    expect(got.map((e) => [e.body.timestamp, e.body.data.capabilities])).toEqual([
      [created.body.createdAt, [{ code: "custodyCrypto", status: "active" }]],
      [deadline, [{ code: "custodyCrypto", status: "pending" }]],
      [fixed.body.updatedAt, [{ code: "custodyCrypto", status: "active" }]],
    ]);
  });

  it("block at once for a version published without a deadline, with due and no deadline", async () => {
    const credentials = await newProject();
    const id = (
      await call(sandbox, "POST", `${P}/customers`, { body: { type: "individual", capabilities: { custodyFiat: { requested: true } }, ...READY }, credentials })
    ).body.customerId;
    expect((await publish({ versionId: "now-or-never", languages: ["en", "fr"] }, credentials)).status).toBe(201);
    const body = (await call(sandbox, "GET", `${P}/customers/${id}`, { credentials })).body;
    expect(body.requirements.tos).toEqual({
      status: "due",
      impact: ["custodyFiat"],
      tosVersions: [{ versionId: "now-or-never", languages: ["en", "fr"], url: expect.any(String) }],
    });
    expect(body.capabilities.custodyFiat.status).toBe("pending");
    const french = await call(sandbox, "PUT", `${P}/customers/${id}`, {
      body: { tosAcceptances: [{ versionId: "now-or-never", language: "fr", acceptedAt: "2026-04-10T12:00:00Z" }] },
      credentials,
    });
    expect(french.status).toBe(200);
    expect(french.body.requirements.tos).toBeUndefined();
  });

  it("refuses a version published twice or a deadline that is no time, changing nothing", async () => {
    const credentials = await newProject();
    expect((await publish({ versionId: FIRST_TOS }, credentials)).status).toBe(400);
    expect((await publish({ versionId: "v2", deadline: "tomorrow" }, credentials)).status).toBe(400);
    expect((await preview("customerType=individual&capabilities=custodyFiat&countryCode=US", credentials)).body.tos.tosVersions).toHaveLength(1);
  });
});

describe("GET /v2/customers/requirements", () => {
  it("previews the Terms of Service requirement of the requested capabilities for a US individual", async () => {
    const res = await preview("customerType=individual&capabilities=transferFiat&capabilities=custodyCrypto&capabilities=transferCrypto&countryCode=US");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tos: {
        status: "due",
        impact: ["custodyCrypto", "transferFiat"],
        tosVersions: [{ versionId: FIRST_TOS, languages: ["en", "es"], url: expect.any(String) }],
      },
    });
    const journal = (await call(sandbox, "GET", "/_sandbox/requests")).body.requests as Array<{ operationId: string; path: string }>;
    expect(journal.filter((r) => r.path.includes("/customers/requirements")).at(-1)?.operationId).toBe("getCustomerRequirements");
  });

  it("reads capabilities[]=… as the official client's HTTP library (axios) writes an array", async () => {
    const res = await preview("customerType=individual&capabilities%5B%5D=custodyFiat&capabilities%5B%5D=transferCrypto&countryCode=US");
    expect(res.status, res.text).toBe(200);
    expect(res.body.tos.impact).toEqual(["custodyFiat"]);
  });

  it("shows nothing for capabilities the terms do not gate, and takes citizenship when no country of residence is given", async () => {
    expect((await preview("customerType=individual&capabilities=transferCrypto&capabilities=transferStablecoin&citizenship=US")).body).toEqual({});
  });

  it("refuses other countries, a missing country and a missing capability with 400 invalid_request", async () => {
    for (const query of [
      "customerType=individual&capabilities=custodyCrypto&countryCode=FR",
      "customerType=individual&capabilities=custodyCrypto&countryCode=FR&citizenship=US",
      "customerType=individual&capabilities=custodyCrypto",
      "customerType=individual&countryCode=US",
      "customerType=business&capabilities=custodyCrypto&countryCode=US",
      "customerType=individual&capabilities=flying&countryCode=US",
    ]) {
      const res = await preview(query);
      expect(res.status, query).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
  });
});
