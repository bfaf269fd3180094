import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox();
});
afterAll(() => sandbox.close());

function expectErrorBody(res: { headers: any; body: any }, _status: number, errorType: string) {
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
  expect(res.body.correlationId).toBe(res.headers["x-correlation-id"]);
}

describe("routing", () => {
  it("answers an unknown path with 404 not_found in the platform's error body", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/no/such/thing");
    expect(res.status).toBe(404);
    expectErrorBody(res, 404, "not_found");
  });

  it("answers a known path with the wrong method with not_found naming the allowed methods", async () => {
    const res = await call(sandbox, "PATCH", "/platform/v2/evm/accounts");
    expect(res.status).toBe(404);
    expectErrorBody(res, 404, "not_found");
    expect(res.body.errorMessage).toMatch(/GET/);
    expect(res.body.errorMessage).toMatch(/POST/);
  });

  it("answers paths outside /platform in the same error body", async () => {
    const res = await call(sandbox, "GET", "/v2/evm/accounts", { anonymous: true });
    expect(res.status).toBe(404);
    expectErrorBody(res, 404, "not_found");
  });

  it("prefers a literal path segment over a parameter", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/my-account");
    expect(res.status).not.toBe(400);
    const journal = await call(sandbox, "GET", "/_sandbox/requests");
    expect(journal.body.requests.at(-1).operationId).toBe("getEvmAccountByName");
  });
});

describe("request validation", () => {
  it("names the field and the rule that failed", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "not a valid name!" }, wallet: true });
    expect(res.status).toBe(400);
    expectErrorBody(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/name/);
    expect(res.body.errorMessage).toMatch(/pattern/);
  });

  it("rejects a bad path parameter", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/evm/accounts/0x123");
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/address/);
  });

  it("rejects a query parameter of the wrong type", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/evm/accounts?pageSize=lots");
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/pageSize/);
  });

  it("rejects malformed JSON with 400, not 500", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", { rawBody: '{"name": ', wallet: { withReqHash: false } });
    expect(res.status).toBe(400);
    expectErrorBody(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/JSON/);
  });

  it("rejects a missing required field", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts/0x742d35Cc6634C0532925a3b844Bc454e4438f44e/sign/message", {
      body: {},
      wallet: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/message/);
  });

  it("records validation problems in the journal", async () => {
    await call(sandbox, "GET", "/platform/v2/evm/accounts?pageSize=lots");
    const journal = await call(sandbox, "GET", "/_sandbox/requests");
    const last = journal.body.requests.at(-1);
    expect(last.status).toBe(400);
    expect(last.problems[0].location).toMatch(/pageSize/);
  });
});
