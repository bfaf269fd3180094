/**
 * The admin API is routed and validated from admin-openapi.yaml like the
 * platform API: a request the document does not allow is refused with 400
 * invalid_request naming the field, in the platform's error body, and
 * changes nothing; an unknown route is a 404 in the same body.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "admin-api" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const expectPlatformError = (res: request.Response, status: number, errorType: string) => {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.stringMatching(/-SBX$/) });
  expect(res.headers["x-correlation-id"]).toBe(res.body.correlationId);
};

describe("the admin API", () => {
  it("refuses a clock change the document does not allow, names the field, and leaves the clock as it was", async () => {
    const before = (await request(sandbox.url).get("/_sandbox/clock")).body.now;
    for (const body of [{ advance: true }, { advance: 1.5 }, { advance: "soon" }, { set: "yesterday" }, { freeze: "yes" }]) {
      const res = await request(sandbox.url).post("/_sandbox/clock").send(body);
      expectPlatformError(res, 400, "invalid_request");
      expect(res.body.errorMessage).toMatch(new RegExp(`body\\.${Object.keys(body)[0]}`));
    }
    expect((await request(sandbox.url).get("/_sandbox/clock")).body.now).toBe(before);
  });

  it("takes a duration or a whole number of milliseconds", async () => {
    const before = Date.parse((await request(sandbox.url).get("/_sandbox/clock")).body.now);
    expect(Date.parse((await request(sandbox.url).post("/_sandbox/clock").send({ advance: "1m" })).body.now)).toBe(before + 60_000);
    expect(Date.parse((await request(sandbox.url).post("/_sandbox/clock").send({ advance: 500 })).body.now)).toBe(before + 60_500);
  });

  it("names the missing fields of a body with required ones, and a body that is not JSON", async () => {
    const missing = await request(sandbox.url).post("/_sandbox/balances").send({ network: "base" });
    expectPlatformError(missing, 400, "invalid_request");
    expect(missing.body.errorMessage).toMatch(/address/);
    expect(missing.body.errorMessage).toMatch(/amount/);
    const empty = await request(sandbox.url).post("/_sandbox/balances");
    expectPlatformError(empty, 400, "invalid_request");
    const broken = await request(sandbox.url).post("/_sandbox/balances").set("content-type", "application/json").send("{nope");
    expectPlatformError(broken, 400, "invalid_request");
  });

  it("checks path parameters against the document", async () => {
    const res = await request(sandbox.url).post("/_sandbox/accounts/not-an-account/fund").send({ asset: "usdc", amount: "1" });
    expectPlatformError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/accountId/);
  });

  it("answers an unknown route or method with 404 in the platform's error body", async () => {
    expectPlatformError(await request(sandbox.url).get("/_sandbox/nothing-here"), 404, "not_found");
    const wrongMethod = await request(sandbox.url).put("/_sandbox/clock").send({});
    expectPlatformError(wrongMethod, 404, "not_found");
    expect(wrongMethod.body.errorMessage).toMatch(/GET, POST/);
  });
});
