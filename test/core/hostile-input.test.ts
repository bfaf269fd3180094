/**
 * Input an attacker or a fuzzer sends: every one gets a clear 4xx in the
 * platform's error body and changes nothing, never a 500.
 *  - a malformed percent-escape in a path segment;
 *  - an id equal to a member every JavaScript object inherits ("constructor",
 *    "toString", "__proto__"): records are looked up among their own keys only;
 *  - a network named like such a member, on the node and the admin API;
 *  - a number too large for a double, an owner with a wrong checksum, a
 *    request head over 16 KB (findings of the fuzzer, docs/hardening.md).
 */
import { request as httpRequest } from "node:http";
import request from "supertest";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "hostile-input" });
});
afterAll(() => sandbox.close());

const expectClientError = (res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
};

const INHERITED = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "__defineGetter__"];

describe("hostile input", () => {
  it("answers a malformed percent-escape in a path segment with 400, on the platform API and the admin API", async () => {
    for (const segment of ["%", "%ZZ", "%E0%A4%A", "abc%"]) {
      expectClientError(await call(sandbox, "GET", `/platform/v2/evm/accounts/by-name/${segment}`), 400, "invalid_request");
      expectClientError(
        await call(sandbox, "POST", `/platform/v2/evm/accounts/export/by-name/${segment}`, { body: { exportEncryptionKey: "x" }, wallet: true }),
        400,
        "invalid_request",
      );
      expectClientError(await call(sandbox, "GET", `/_sandbox/projects/${segment}`, { anonymous: true }), 400, "invalid_request");
    }
  });

  it("finds no record under an id that every object inherits", async () => {
    for (const id of INHERITED) {
      expectClientError(await call(sandbox, "GET", `/platform/v2/evm/accounts/by-name/${id}`), 404, "not_found");
      expectClientError(await call(sandbox, "GET", `/platform/v2/solana/accounts/by-name/${id}`), 404, "not_found");
      expectClientError(await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/by-name/${id}`), 404, "not_found");
      expectClientError(await call(sandbox, "GET", `/_sandbox/projects/${id}`, { anonymous: true }), 404, "not_found");
    }
  });

  it("knows no network named like an inherited member, on the node and in admin funding", async () => {
    for (const network of INHERITED) {
      const rpc = await request(sandbox.url).post(`/rpc/v1/${network}/${sandbox.credentials.projectId}`).send({ jsonrpc: "2.0", id: 1, method: "eth_chainId" });
      expect(rpc.status).toBe(404);
      expect(rpc.body.error.code).toBe(-32001);
      const rpcToken = await request(sandbox.url).post(`/rpc/v1/base-sepolia/${network}`).send({ jsonrpc: "2.0", id: 1, method: "eth_chainId" });
      expect(rpcToken.status).toBe(401);
      const funded = await call(sandbox, "POST", "/_sandbox/balances", {
        body: { network, address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "1" },
      });
      expectClientError(funded, 400, "invalid_request");
    }
  });

  it("knows no custodial asset named like an inherited member", async () => {
    const account = await call(sandbox, "POST", "/platform/v2/accounts", { body: {} });
    expect(account.status).toBe(200);
    for (const asset of INHERITED) {
      expectClientError(await call(sandbox, "GET", `/platform/v2/accounts/${account.body.accountId}/balances/${asset}`), 404, "not_found");
    }
  });

  it("refuses a number JSON cannot hold (it would parse as Infinity) and stores nothing", async () => {
    const before = (await call(sandbox, "GET", "/platform/v2/end-users")).body.endUsers.length;
    for (const huge of ["1".repeat(400), "1e400", "-2.5E+999"]) {
      const rawBody = `{"authenticationMethods":[{"type":"email","email":"huge@example.com"},{"type":"telegram","id":${huge},"authDate":676}]}`;
      expectClientError(await call(sandbox, "POST", "/platform/v2/end-users", { rawBody, wallet: true }), 400, "invalid_request");
    }
    const after = await call(sandbox, "GET", "/platform/v2/end-users");
    expect(after.status).toBe(200);
    expect(after.body.endUsers.length).toBe(before);
  });

  it("takes a smart account owner in any case, its checksum wrong or not", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: ["0xFA01373C632E28Bd07B0A3e86e0514A0eD1ACF7d"] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.owners).toEqual(["0xFA01373C632E28Bd07B0A3e86e0514A0eD1ACF7d"]);
    const again = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", {
      body: { owners: [getAddress("0xfa01373c632e28bd07b0a3e86e0514a0ed1acf7d")] },
    });
    expect(again.body.address, "the same owner in another case is the same owner: the next address").not.toBe(res.body.address);
  });

  it("reads a query name like `__proto__[]` as a name, answering it and keeping it in the journal as sent", async () => {
    // `name[]=` is read as `name=` (axios writes lists so); `__proto__` once became the query object's prototype,
    // which cut the connection while the journal recorded the request.
    for (const query of ["__proto__[]=1", "__proto__[]=1&__proto__[]=2", "constructor[]=x&pageSize=1e309", "__proto__=1"]) {
      const res = await call(sandbox, "GET", `/platform/v2/evm/accounts?${query}`);
      expect([200, 400]).toContain(res.status);
      const detail = await call(sandbox, "GET", `/_sandbox/requests/${res.body.correlationId ?? res.headers["x-correlation-id"]}`, { anonymous: true });
      expect(detail.status).toBe(200);
      expect(new URLSearchParams(detail.body.request.query).getAll(query.startsWith("constructor") ? "constructor" : "__proto__").length).toBeGreaterThan(0);
    }
  });

  it("answers a request head over 16 KB with 431 in the platform's error body", async () => {
    for (const path of [`/platform/v2/evm/accounts/${"a".repeat(20_000)}`, "/platform/v2/evm/accounts"]) {
      const headers: Record<string, string> = path.length > 20_000 ? {} : { "X-Padding": "p".repeat(17_000) };
      const res = await rawGet(sandbox.url, path, headers);
      expect(res.status).toBe(431);
      expect(res.headers["content-type"]).toMatch(/application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({
        errorType: "invalid_request",
        errorMessage: expect.stringContaining("16 KB"),
        correlationId: expect.any(String),
      });
      // The caller's violation of HTTP itself, journaled and counted for contract coverage though no operation could be told.
      const { correlationId } = JSON.parse(res.body) as { correlationId: string };
      const entry = await call(sandbox, "GET", `/_sandbox/requests/${correlationId}`, { anonymous: true });
      expect(entry.body.entry).toMatchObject({ kind: "platform", status: 431, violation: "body" });
    }
  });
});

/** A GET with Node's own client, which (unlike supertest) hands back whatever the server writes on a refused head. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers, maxHeaderSize: 64 * 1024 }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("input that used to hold the event loop", () => {
  it("matches the contract's patterns in linear time: an adversarial amount is refused at once", async () => {
    // Backtracking took seconds for 40,000 characters and grew with the square of the length (100,000: ~30 s, with
    // this test's own server, in this process, unable to answer anything meanwhile).
    const amount = `0.${"1".repeat(100_000)}!`;
    const started = Date.now();
    const res = await call(sandbox, "POST", "/platform/v2/transfers", {
      body: {
        source: { accountId: "account_00000000-0000-4000-8000-000000000000", asset: "usd" },
        target: { accountId: "account_00000000-0000-4000-8000-000000000001", asset: "usd" },
        amount,
        asset: "usd",
      },
    });
    expectClientError(res, 400, "invalid_request");
    expect(Date.now() - started).toBeLessThan(5_000); // linear: a few ms
  });

  it("refuses a body nested deeper than 64 levels, on the platform API, the admin API and the node", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const path of ["/platform/v2/evm/accounts", "/_sandbox/balances"]) {
      const res = await request(sandbox.url).post(path).set("content-type", "application/json").send(deep);
      expectClientError(res, 400, "invalid_request");
      expect(res.body.errorMessage).toMatch(/deeper than 64/);
    }
    const rpc = await request(sandbox.url).post(`/rpc/v1/base-sepolia/${sandbox.credentials.projectId}`).set("content-type", "application/json").send(deep);
    expect(rpc.body.error).toMatchObject({ code: -32600, message: expect.stringMatching(/deeper than 64/) });
    // Brackets inside strings are text, not nesting.
    const named = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "a".repeat(10) }, wallet: true });
    expect(named.status).toBe(201);
  });
});

describe("requests without a body", () => {
  it("check a missing or null body as {}: 400 naming the required fields, or the operation with its defaults", async () => {
    // body undefined sends none; null sends the JSON literal null (and the wallet token hashes it, as a client would).
    for (const body of [undefined, null]) {
      const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body });
      expectClientError(faucet, 400, "invalid_request");
      expect(faucet.body.errorMessage).toMatch(/network/);
      expect(faucet.body.errorMessage).toMatch(/address/);
      expectClientError(await call(sandbox, "POST", "/_sandbox/balances", { body, anonymous: true }), 400, "invalid_request");
      const created = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body, wallet: true });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
  });
});
