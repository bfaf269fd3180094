/**
 * Tokens the official client minted for the production host, on requests the
 * register hook redirected: the hook names that host in
 * X-Sandbox-Original-Host, and the sandbox lets `uris` name it instead of the
 * Host header — on loopback connections only, and only the host named.
 */
import type { IncomingMessage } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { redirectedFrom } from "../../src/pipeline/exchange.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

const PRODUCTION = "api.cdp.coinbase.com";
const path = "/platform/v2/evm/accounts";

describe("a token signed for the production host on a redirected request", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "redirected-host" });
  });
  afterAll(() => sandbox.close());

  const signedForProduction = (headers: Record<string, string>) =>
    call(sandbox, "POST", path, {
      body: { name: `redirected-${Object.keys(headers).length}` },
      bearer: { host: PRODUCTION },
      wallet: { override: { claims: { uris: [`POST ${PRODUCTION}${path}`] } } },
      headers,
    });

  it("is accepted, bearer and wallet token alike, when the request names that host in X-Sandbox-Original-Host", async () => {
    const res = await signedForProduction({ "X-Sandbox-Original-Host": PRODUCTION });
    expect(res.status, res.text).toBe(201);
  });

  it("is refused without the header, naming the host it was signed for", async () => {
    const res = await signedForProduction({});
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toContain(`uris[0] was signed for host ${PRODUCTION}, but the request's Host header is 127.0.0.1:`);
  });

  it("is refused when the header names another host than the token", async () => {
    const res = await signedForProduction({ "X-Sandbox-Original-Host": "api.example.org" });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(
      /signed for host api\.cdp\.coinbase\.com, but the request's Host header is \S+ and it was redirected from api\.example\.org/,
    );
  });

  it("opens the node token endpoint too, as the client's own node calls need", async () => {
    const nodePath = "/apikeys/v1/tokens/active";
    const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: PRODUCTION, path: nodePath });
    const refused = await request(sandbox.url).get(nodePath).set("Authorization", `Bearer ${token}`);
    expect(refused.status).toBe(401);
    const accepted = await request(sandbox.url).get(nodePath).set("Authorization", `Bearer ${token}`).set("X-Sandbox-Original-Host", PRODUCTION);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ id: sandbox.credentials.clientApiKey });
  });
});

describe("X-Sandbox-Original-Host is believed", () => {
  const req = (remoteAddress: string, host: string) =>
    ({ headers: { "x-sandbox-original-host": host }, socket: { remoteAddress } }) as unknown as IncomingMessage;

  it("from loopback connections, IPv4, IPv6 and IPv4-mapped", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(redirectedFrom(req(address, PRODUCTION)), address).toBe(PRODUCTION);
  });

  it("never from another machine, and never when it is not a host name", () => {
    for (const address of ["192.0.2.7", "10.0.0.1", "::ffff:192.0.2.7", "fe80::1"]) expect(redirectedFrom(req(address, PRODUCTION)), address).toBeUndefined();
    for (const host of ["", "api.cdp.coinbase.com/platform", "a b", "user@host"]) expect(redirectedFrom(req("127.0.0.1", host)), host).toBeUndefined();
  });
});
