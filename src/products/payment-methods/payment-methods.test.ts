/**
 * Payment methods over HTTP: every project has the same realistic bank
 * accounts (fedwire, sepa, an expired swift), readable by list and get,
 * with ids stable per project; an expired one cannot receive a transfer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-methods", validateResponses: true });
});
afterAll(() => sandbox.close());

describe("payment methods", () => {
  it("lists the project's bank and wire methods with their rails and details", async () => {
    const res = await call(sandbox, "GET", `${P}/payment-methods`);
    expect(res.status).toBe(200);
    const methods = res.body.paymentMethods;
    expect(methods.map((m: { paymentRail: string; active: boolean }) => [m.paymentRail, m.active])).toEqual([
      ["fedwire", true],
      ["sepa", true],
      ["swift", false],
    ]);
    expect(methods[0]).toMatchObject({ fedwire: { asset: "usd", accountLast4: "6789", routingNumber: "021000021" } });
    expect(methods[1]).toMatchObject({ sepa: { asset: "eur", ibanLast4: "3000", bic: "DEUTDEFF" } });
    expect(methods[2]).toMatchObject({ swift: { asset: "usd", bic: "BARCGB22" } });
    for (const m of methods) expect(m.paymentMethodId).toMatch(/^paymentMethod_[0-9a-f-]{36}$/);
  });

  it("gets one method by id, keeps ids stable across calls, and pages", async () => {
    const first = (await call(sandbox, "GET", `${P}/payment-methods?pageSize=2`)).body;
    expect(first.paymentMethods).toHaveLength(2);
    const rest = (await call(sandbox, "GET", `${P}/payment-methods?pageSize=2&pageToken=${first.nextPageToken}`)).body;
    expect(rest.paymentMethods).toHaveLength(1);
    const one = await call(sandbox, "GET", `${P}/payment-methods/${first.paymentMethods[1].paymentMethodId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(first.paymentMethods[1]);
  });

  it("gives each project its own methods, and answers 404 for another project's or an unknown one", async () => {
    const other = await sandbox.createProject();
    const mine = (await call(sandbox, "GET", `${P}/payment-methods`)).body.paymentMethods[0].paymentMethodId;
    const theirs = (await call(sandbox, "GET", `${P}/payment-methods`, { credentials: other })).body.paymentMethods[0].paymentMethodId;
    expect(theirs).not.toBe(mine);
    const res = await call(sandbox, "GET", `${P}/payment-methods/${theirs}`);
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("not_found");
    expect((await call(sandbox, "GET", `${P}/payment-methods/paymentMethod_00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await call(sandbox, "GET", `${P}/payment-methods/pm-1`)).status).toBe(400);
  });

  it("answers payment_method_required (402) for a payout to the expired method, naming a usable one", async () => {
    const methods = (await call(sandbox, "GET", `${P}/payment-methods`)).body.paymentMethods;
    const account = await openAccount(sandbox);
    await fundAccount(sandbox, account, "usd", "500");
    const res = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: account, asset: "usd" },
        target: { paymentMethodId: methods[2].paymentMethodId, asset: "usd" },
        amount: "100",
        asset: "usd",
        execute: true,
      },
    });
    expect(res.status).toBe(402);
    expect(res.body.errorType).toBe("payment_method_required");
    expect(res.body.errorMessage).toContain(methods[0].paymentMethodId);
  });
});
