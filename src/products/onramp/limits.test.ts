/**
 * A guest buyer's limits and their upgrade: remaining capacity from the
 * buyer's orders, the upgrade's review on the sandbox clock (active, resubmit,
 * inactive from documented inputs), the embedded upgrade page, and the errors.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { createOrder, freshPhone, orderBody } from "#test/helpers/onramp.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-limits", validateResponses: true });
});
afterAll(() => sandbox.close());

const FIELDS = { ssnLast4: "5678", dateOfBirth: { day: "15", month: "08", year: "1990" } };
const getLimits = (userId: string) =>
  call(sandbox, "POST", "/platform/v2/onramp/limits", { body: { paymentMethodType: "GUEST_CHECKOUT_APPLE_PAY", userId, userIdType: "phone_number" } });
const upgrade = (body: Record<string, unknown>) =>
  call(sandbox, "POST", "/platform/v2/onramp/limits/upgrade", { body: { userIdType: "phone_number", ...body } });
const REVIEW = 5 * 60_000;

/** A buyer who has placed one $20 order. */
async function buyer(): Promise<string> {
  const phoneNumber = freshPhone();
  expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber }))).status).toBe(201);
  return phoneNumber;
}

describe("a buyer's limits", () => {
  it("shows $500 a week and 15 orders, less what the buyer's orders used, and the upgrade on offer", async () => {
    const phone = await buyer();
    const res = await getLimits(phone);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      limits: [
        { limitType: "weekly_spending", currency: "USD", limit: "500", remaining: "480" },
        { limitType: "lifetime_transactions", limit: "15", remaining: "14" },
      ],
      limitUpgradeOptions: [
        {
          status: "unrequested",
          fields: ["ssnLast4", "dateOfBirth"],
          limitUpgrades: [
            { limitType: "weekly_spending", maxUpgrade: "2500" },
            { limitType: "lifetime_transactions", maxUpgrade: "2147483647" },
          ],
        },
      ],
    });
  });

  it("frees weekly capacity as orders leave the 168-hour window, but not lifetime count", async () => {
    const phone = await buyer();
    sandbox.clock.advance(168 * 3600_000);
    expect((await getLimits(phone)).body.limits).toEqual([
      { limitType: "weekly_spending", currency: "USD", limit: "500", remaining: "500" },
      { limitType: "lifetime_transactions", limit: "15", remaining: "14" },
    ]);
  });

  it("refuses a phone number the project has never verified, and one not in E.164 form, with 400 invalid_request", async () => {
    const unknown = await getLimits(freshPhone());
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorMessage).toMatch(/has not been verified with this project/);
    const malformed = await getLimits("4155550100");
    expect(malformed.status).toBe(400);
    expect(malformed.body.errorMessage).toMatch(/E\.164/);
  });
});

describe("a limit upgrade by API", () => {
  it("is accepted (202), pending for 5 minutes of review, then active with the raised limits", async () => {
    const phone = await buyer();
    const res = await upgrade({ userId: phone, fields: FIELDS });
    expect(res.status).toBe(202);
    expect(res.text).toBe("");
    expect((await getLimits(phone)).body.limitUpgradeOptions[0]).toMatchObject({ status: "pending", fields: [] });
    sandbox.clock.advance(REVIEW);
    const after = (await getLimits(phone)).body;
    expect(after.limitUpgradeOptions[0].status).toBe("active");
    expect(after.limits).toEqual([
      { limitType: "weekly_spending", currency: "USD", limit: "2500", remaining: "2480" },
      { limitType: "lifetime_transactions", limit: "2147483647", remaining: "2147483646" },
    ]);
    expect((await createOrder(sandbox, orderBody(sandbox, { phoneNumber: phone, paymentAmount: "1000.00" }))).status).toBe(201);
  });

  it("asks to resubmit the SSN when ssnLast4 is 0000 (a serial never issued), and takes the corrected fields", async () => {
    const phone = await buyer();
    expect((await upgrade({ userId: phone, fields: { ...FIELDS, ssnLast4: "0000" } })).status).toBe(202);
    sandbox.clock.advance(REVIEW);
    expect((await getLimits(phone)).body.limitUpgradeOptions[0]).toMatchObject({ status: "resubmit", fields: ["ssnLast4"] });
    expect((await upgrade({ userId: phone, fields: FIELDS })).status).toBe(202);
    sandbox.clock.advance(REVIEW);
    expect((await getLimits(phone)).body.limitUpgradeOptions[0].status).toBe("active");
  });

  it("rejects a buyer under 18 for good (inactive), and refuses to resubmit", async () => {
    const phone = await buyer();
    const year = String(new Date(sandbox.clock.now()).getUTCFullYear() - 17);
    expect((await upgrade({ userId: phone, fields: { ...FIELDS, dateOfBirth: { day: "01", month: "01", year } } })).status).toBe(202);
    sandbox.clock.advance(REVIEW);
    expect((await getLimits(phone)).body.limitUpgradeOptions[0].status).toBe("inactive");
    const again = await upgrade({ userId: phone, fields: FIELDS });
    expect(again.status).toBe(400);
    expect(again.body.errorMessage).toMatch(/rejected and cannot be resubmitted/);
  });

  it.each([
    ["no fields", {}, /fields\.ssnLast4 must be the last 4 digits/],
    ["a malformed ssnLast4", { fields: { ...FIELDS, ssnLast4: "56-78" } }, /ssnLast4/],
    [
      "a date of birth that does not exist",
      { fields: { ...FIELDS, dateOfBirth: { day: "31", month: "02", year: "1990" } } },
      /dateOfBirth must be a real date/,
    ],
    ["a date of birth in the future", { fields: { ...FIELDS, dateOfBirth: { day: "01", month: "01", year: "2999" } } }, /in the future/],
  ])("refuses %s with 400 invalid_request", async (_case, body, message) => {
    const phone = await buyer();
    const res = await upgrade({ userId: phone, ...body });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(message);
  });

  it("refuses a second request while the first is under review, and one after it is active", async () => {
    const phone = await buyer();
    await upgrade({ userId: phone, fields: FIELDS });
    expect((await upgrade({ userId: phone, fields: FIELDS })).body.errorMessage).toMatch(/already under review/);
    sandbox.clock.advance(REVIEW);
    expect((await upgrade({ userId: phone, fields: FIELDS })).body.errorMessage).toMatch(/already active/);
  });

  it("refuses a buyer the project has never verified", async () => {
    const res = await upgrade({ userId: freshPhone(), fields: FIELDS });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/has not been verified/);
  });
});

describe("a limit upgrade on the hosted page (embedded mode)", () => {
  const pageOf = (url: string) => new URL(url).pathname + new URL(url).search;

  it("returns a page valid for an hour, where the buyer submits the fields once", async () => {
    const phone = await buyer();
    const res = await upgrade({ userId: phone, interactionMode: "embedded" });
    expect(res.status).toBe(200);
    expect(res.body.upgradeUrl).toMatch(new RegExp(`^${sandbox.url}/_sandbox/onramp/limits-upgrade\\?token=`));
    expect(Date.parse(res.body.expiresAt) - sandbox.clock.now()).toBeGreaterThan(3_590_000);
    const form = await request(sandbox.url).get(pageOf(res.body.upgradeUrl));
    expect(form.body).toMatchObject({ page: "limits-upgrade", userId: phone, fields: ["ssnLast4", "dateOfBirth"] });
    const submitted = await request(sandbox.url).post(pageOf(res.body.upgradeUrl)).send(FIELDS);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({ userId: phone, status: "pending" });
    expect((await getLimits(phone)).body.limitUpgradeOptions[0].status).toBe("pending");
    const twice = await request(sandbox.url).post(pageOf(res.body.upgradeUrl)).send(FIELDS);
    expect(twice.status).toBe(403);
    expect(twice.body.errorMessage).toMatch(/already submitted/);
  });

  it("expires after an hour, and checks the buyer's fields like the API does", async () => {
    const phone = await buyer();
    const url = (await upgrade({ userId: phone, interactionMode: "embedded" })).body.upgradeUrl as string;
    const bad = await request(sandbox.url).post(pageOf(url)).send({ ssnLast4: "12" });
    expect(bad.status).toBe(400);
    sandbox.clock.advance(3_600_001);
    expect((await request(sandbox.url).get(pageOf(url))).status).toBe(403);
  });

  it("refuses fields in the request: the buyer enters them on the page", async () => {
    const phone = await buyer();
    const res = await upgrade({ userId: phone, interactionMode: "embedded", fields: FIELDS });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/buyer enters the identity fields on the upgrade page/);
  });
});
