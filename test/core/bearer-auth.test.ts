import { generateKeyPairSync } from "node:crypto";
import { randomEd25519Secret } from "#test/helpers/tokens.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ auth: "strict" });
});
afterAll(() => sandbox.close());

const LIST = "/platform/v2/evm/accounts";

async function expectUnauthorized(res: { status: number; body: any; headers: any }, fragment: RegExp) {
  expect(res.status).toBe(401);
  expect(res.headers["content-type"]).toMatch(/application\/json/);
  expect(res.body.errorType).toBe("unauthorized");
  expect(res.body.errorMessage).toMatch(fragment);
  expect(res.body.correlationId).toEqual(expect.any(String));
  expect(res.body.errorLink).toMatch(/^https:\/\//);
}

describe("bearer tokens are checked the way the platform checks them", () => {
  it("accepts an Ed25519 token minted like the official client", async () => {
    const res = await call(sandbox, "GET", LIST);
    expect(res.status).toBe(200);
  });

  it("accepts an ES256 token from a registered PKCS#8 EC key", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const created = await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: { apiKeyId: "ec-key-1", apiKeySecret: pem } });
    expect(created.status).toBe(201);
    const res = await call(sandbox, "GET", LIST, { credentials: created.body });
    expect(res.status).toBe(200);
  });

  it("rejects a request without an Authorization header", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true }), /missing.*authorization/i);
  });

  it("rejects a malformed token", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true, headers: { Authorization: "Bearer not.a-jwt" } }), /malformed/i);
  });

  it("rejects alg none", async () => {
    const header = Buffer.from(JSON.stringify({ alg: "none", kid: sandbox.credentials.apiKeyId, typ: "JWT" })).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const payload = Buffer.from(
      JSON.stringify({ sub: sandbox.credentials.apiKeyId, iss: "cdp", nbf: now, iat: now, exp: now + 60, uris: ["GET x/y"] }),
    ).toString("base64url");
    await expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true, headers: { Authorization: `Bearer ${header}.${payload}.` } }), /alg/i);
  });

  it("rejects a token signed by another key with the same kid", async () => {
    const other = randomEd25519Secret();
    const res = await call(sandbox, "GET", LIST, { credentials: { ...sandbox.credentials, apiKeySecret: other } });
    await expectUnauthorized(res, /signature/i);
  });

  it("rejects an expired token", async () => {
    const past = Math.floor(Date.now() / 1000) - 600;
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { now: past } }), /expired/i);
  });

  it("rejects a token that is not valid yet", async () => {
    const future = Math.floor(Date.now() / 1000) + 600;
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { now: future } }), /not (yet )?valid|future/i);
  });

  it("rejects a token that lives longer than 120 s", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { expiresIn: 3600 } }), /120/);
  });

  it("bounds the lifetime from nbf and from iat alike, and refuses an iat in the future", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = (c: Record<string, unknown>) => ({ bearer: { override: { claims: c } } });
    // A far iat made the lifetime look short while the token lived a day.
    await expectUnauthorized(await call(sandbox, "GET", LIST, claims({ nbf: now, iat: now + 86300, exp: now + 86400 })), /120/);
    // An old nbf behind a fresh iat made an expired-looking window valid for 1,060 s.
    await expectUnauthorized(await call(sandbox, "GET", LIST, claims({ nbf: now - 1000, iat: now, exp: now + 60 })), /120/);
    await expectUnauthorized(await call(sandbox, "GET", LIST, claims({ nbf: now, iat: now + 600, exp: now + 100 })), /issued in the future/);
    await expectUnauthorized(await call(sandbox, "GET", LIST, claims({ iat: "now" })), /iat/);
    expect((await call(sandbox, "GET", LIST, claims({ iat: now - 10, nbf: now - 10, exp: now + 110 }))).status).toBe(200);
  });

  it("rejects uris for another method", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { method: "POST" } }), /method/i);
  });

  it("rejects uris for another host", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { host: "api.cdp.coinbase.com" } }), /host/i);
  });

  it("rejects uris for another path", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { path: "/platform/v2/solana/accounts" } }), /path/i);
  });

  it("rejects sub different from kid", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { override: { claims: { sub: "someone-else" } } } }), /sub/i);
  });

  it("rejects a wrong issuer", async () => {
    await expectUnauthorized(await call(sandbox, "GET", LIST, { bearer: { override: { claims: { iss: "coinbase-cloud" } } } }), /iss/i);
  });

  it("rejects unknown keys in strict mode", async () => {
    const stranger = { apiKeyId: "stranger", apiKeySecret: randomEd25519Secret(), walletSecret: "" };
    await expectUnauthorized(await call(sandbox, "GET", LIST, { credentials: stranger }), /unknown|not known/i);
  });

  it("ignores the query string when matching uris", async () => {
    const res = await call(sandbox, "GET", `${LIST}?pageSize=5&note=tok+a%2Fb`);
    expect(res.status).toBe(200);
  });
});

describe("--auth verify", () => {
  let verify: Sandbox;
  beforeAll(async () => {
    verify = await withSandbox({ auth: "verify" });
  });
  afterAll(() => verify.close());

  it("gives an unknown key a project of its own and says the check was claims-only", async () => {
    const stranger = { apiKeyId: "my-prod-key", apiKeySecret: randomEd25519Secret(), walletSecret: "" };
    const res = await call(verify, "GET", LIST, { credentials: stranger });
    expect(res.status).toBe(200);
    expect(res.headers["x-sandbox-auth"]).toBe("unverified");
    const known = await call(verify, "GET", LIST);
    expect(known.headers["x-sandbox-auth"]).toBeUndefined();
  });

  it("still checks the claims of an unknown key", async () => {
    const stranger = { apiKeyId: "my-prod-key-2", apiKeySecret: randomEd25519Secret(), walletSecret: "" };
    const res = await call(verify, "GET", LIST, { credentials: stranger, bearer: { path: "/platform/v2/other" } });
    await expectUnauthorized(res, /path/i);
  });
});

describe("--auth none", () => {
  it("accepts requests without credentials", async () => {
    const open = await withSandbox({ auth: "none" });
    try {
      const res = await call(open, "GET", LIST, { anonymous: true });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
