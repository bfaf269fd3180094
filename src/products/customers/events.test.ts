/**
 * customers.* webhooks over HTTP: each change of a customer's capability
 * statuses is announced once (only the capabilities that changed), then the
 * deletion; refused requests and other projects send nothing.
 */
import { describe, expect, it } from "vitest";
import { P } from "#test/helpers/money.js";
import { call } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const ALL = ["customers.capability.changed", "customers.customer.deleted"];
const ADDRESS = { line1: "500 Main St", city: "Boston", state: "MA", postCode: "02108", countryCode: "US" };

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "customer-events", validateResponses: true });

const create = (body: object) => call(sandbox, "POST", `${P}/customers`, { body: { type: "individual", ...body } });
const update = (id: string, body: object) => call(sandbox, "PUT", `${P}/customers/${id}`, { body });

describe("customer webhooks", () => {
  it("announce each capability change once, listing only what changed, then the deletion", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const t0 = sandbox.clock.now();
    const id = (await create({ individual: { firstName: "Ada" }, capabilities: { transferStablecoin: { requested: true } } })).body.customerId as string;
    sandbox.clock.advance(1000);
    await update(id, { individual: { lastName: "Lovelace" } }); // still pending: no change, no event
    await update(id, { individual: { address: ADDRESS }, capabilities: { transferCrypto: { requested: true } } });
    sandbox.clock.advance(1000);
    expect((await call(sandbox, "DELETE", `${P}/customers/${id}`)).status).toBe(204);
    expect((await call(sandbox, "DELETE", `${P}/customers/${id}`)).status).toBe(204); // deleting again changes nothing
    await flush(sandbox);

    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([
      "customers.capability.changed",
      "customers.capability.changed",
      "customers.capability.changed",
      "customers.customer.deleted",
    ]);
    for (const e of got) expect(e.body).toEqual({ eventId: e.eventId, eventType: e.eventType, timestamp: expect.any(String), data: expect.any(Object) });
    expect(got.map((e) => e.body.timestamp)).toEqual([t0, t0 + 1000, t0 + 2000, t0 + 2000].map((ms) => new Date(ms).toISOString()));
    expect(got[0]!.body.data).toEqual({ customerId: id, capabilities: [{ code: "transferStablecoin", status: "pending" }] });
    expect(got[1]!.body.data).toEqual({
      customerId: id,
      capabilities: [
        { code: "transferCrypto", status: "active" },
        { code: "transferStablecoin", status: "active" },
      ],
    });
    expect(got[2]!.body.data).toEqual({
      customerId: id,
      capabilities: [
        { code: "transferCrypto", status: "inactive" },
        { code: "transferStablecoin", status: "inactive" },
      ],
    });
    expect(got[3]!.body.data).toEqual({ customerId: id });
  });

  it("announce a customer turning 18 on the sandbox clock, at the time it happened", async () => {
    const sub = await subscribe(sandbox, receiver, ["customers.capability.changed"]);
    const now = new Date(sandbox.clock.now());
    const birthday = Date.UTC(now.getUTCFullYear() - 18, now.getUTCMonth(), now.getUTCDate() + 2);
    const dob = new Date(birthday);
    const individual = {
      firstName: "Kim",
      lastName: "Young",
      address: ADDRESS,
      dateOfBirth: { day: String(dob.getUTCDate()), month: String(dob.getUTCMonth() + 1), year: String(dob.getUTCFullYear()) },
    };
    const id = (await create({ individual, capabilities: { transferStablecoin: { requested: true } } })).body.customerId as string;
    sandbox.clock.advance(5 * 24 * 3600_000);
    await call(sandbox, "GET", `${P}/accounts`);
    await call(sandbox, "GET", `${P}/accounts`);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.body.data.capabilities)).toEqual([
      [{ code: "transferStablecoin", status: "inactive" }],
      [{ code: "transferStablecoin", status: "active" }],
    ]);
    expect(got[1]!.body.timestamp).toBe(new Date(Date.UTC(dob.getUTCFullYear() + 18, dob.getUTCMonth(), dob.getUTCDate())).toISOString());
    expect((await call(sandbox, "GET", `${P}/customers/${id}`)).body.capabilities.transferStablecoin.status).toBe("active");
  });

  it("send nothing for a refused update, nor to a subscription of other event types, nor to another project", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const other = await subscribe(sandbox, receiver, ["payments.transfers.completed"]);
    const project = await sandbox.createProject("customers-elsewhere");
    const theirs = await subscribe(sandbox, receiver, ALL, project);
    const id = (await create({ individual: { firstName: "Ann" } })).body.customerId as string;
    const refused = await update(id, {
      capabilities: { custodyFiat: { requested: true } },
      tosAcceptances: [{ versionId: "us_individual_2026-05-29", language: "fr", acceptedAt: "2026-04-10T12:00:00Z" }],
    });
    expect(refused.body.errorType).toBe("unsupported_tos_language");
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(0);
    await call(sandbox, "DELETE", `${P}/customers/${id}`);
    await flush(sandbox);
    expect((await deliveredTo(sandbox, receiver, sub)).map((e) => e.eventType)).toEqual(["customers.customer.deleted"]);
    expect(receiver.received(other.path)).toHaveLength(0);
    expect(receiver.received(theirs.path)).toHaveLength(0);
  });
});
