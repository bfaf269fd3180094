/**
 * Forged and borrowed credentials, over HTTP: the attacks the bearer and
 * wallet-token tests (bearer-auth.test.ts, wallet-auth.test.ts) do not
 * already cover. Tokens are built here with jose and node:crypto,
 * independently of the sandbox's own auth code.
 */
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { SignJWT, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, hostOf, withSandbox, type Credentials } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let other: Credentials & { projectId: string };
beforeAll(async () => {
  sandbox = await withSandbox({ auth: "strict" });
  other = await sandbox.createProject("attacker");
});
afterAll(() => sandbox.close());

const LIST = "/platform/v2/evm/accounts";

/** The Ed25519 API key of `credentials` (base64 seed ‖ public key, as the sandbox issues them). */
function ed25519Key(credentials: Credentials) {
  const raw = Buffer.from(credentials.apiKeySecret, "base64");
  const x = raw.subarray(32).toString("base64url");
  return {
    jwk: { kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x },
    publicPem: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })
      .export({ type: "spki", format: "pem" })
      .toString(),
  };
}

/** A bearer token with exactly these times (no defaults), signed with the project's key. */
async function bearerWithTimes(times: { nbf: number; iat: number; exp: number }, path = LIST): Promise<string> {
  const { apiKeyId } = sandbox.credentials;
  const key = await importJWK(ed25519Key(sandbox.credentials).jwk, "EdDSA");
  return new SignJWT({ sub: apiKeyId, iss: "cdp", uris: [`GET ${hostOf(sandbox)}${path}`], ...times })
    .setProtectedHeader({ alg: "EdDSA", kid: apiKeyId, typ: "JWT" })
    .sign(key);
}

function expectUnauthorized(res: { status: number; body: any }, fragment: RegExp) {
  expect(res.status).toBe(401);
  expect(res.body.errorType).toBe("unauthorized");
  expect(res.body.errorMessage).toMatch(fragment);
  expect(res.body.correlationId).toEqual(expect.any(String));
  expect(res.body.errorLink).toMatch(/^https:\/\//);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("forged bearer tokens", () => {
  it("refuses HS256 keyed with the API key's public key (algorithm confusion)", async () => {
    const { apiKeyId } = sandbox.credentials;
    const now = nowSeconds();
    const token = await new SignJWT({ sub: apiKeyId, iss: "cdp", uris: [`GET ${hostOf(sandbox)}${LIST}`], iat: now, nbf: now, exp: now + 60 })
      .setProtectedHeader({ alg: "HS256", kid: apiKeyId, typ: "JWT" })
      .sign(new TextEncoder().encode(ed25519Key(sandbox.credentials).publicPem));
    expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true, headers: { Authorization: `Bearer ${token}` } }), /alg/i);
  });

  it("refuses a token that names another project's key (kid and sub) but is signed with this one", async () => {
    const res = await call(sandbox, "GET", LIST, { bearer: { override: { header: { kid: other.apiKeyId }, claims: { sub: other.apiKeyId } } } });
    expectUnauthorized(res, /signature/i);
  });

  it("refuses a token issued in the future that lives a day (nbf now, iat now+86300, exp now+86400)", async () => {
    const now = nowSeconds();
    const token = await bearerWithTimes({ nbf: now, iat: now + 86_300, exp: now + 86_400 });
    expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true, headers: { Authorization: `Bearer ${token}` } }), /lifetime|future|iat/i);
  });

  it("refuses a token whose nbf is long past although iat to exp is short (nbf now-1000, iat now, exp now+60)", async () => {
    const now = nowSeconds();
    const token = await bearerWithTimes({ nbf: now - 1000, iat: now, exp: now + 60 });
    expectUnauthorized(await call(sandbox, "GET", LIST, { anonymous: true, headers: { Authorization: `Bearer ${token}` } }), /lifetime|nbf/i);
  });

  it("still accepts a token of exactly 120 s, minted as the client mints it", async () => {
    const now = nowSeconds();
    const res = await call(sandbox, "GET", LIST, {
      anonymous: true,
      headers: { Authorization: `Bearer ${await bearerWithTimes({ nbf: now, iat: now, exp: now + 120 })}` },
    });
    expect(res.status).toBe(200);
  });
});

describe("another project's key", () => {
  let evm: { address: string; name: string };
  let solana: { address: string; name: string };
  beforeAll(async () => {
    const created = await call(sandbox, "POST", LIST, { body: { name: "victim-evm" }, wallet: true });
    expect(created.status).toBe(201);
    evm = created.body;
    const sol = await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: { name: "victim-sol" }, wallet: true });
    expect(sol.status).toBe(201);
    solana = sol.body;
  });

  /**
   * A 404 in the platform's error body that tells nothing the caller did not send: not the record's other
   * identifier (`unsent`: its name when asked by address, its address when asked by name), nor its project.
   */
  function expectNotFoundWithoutLeak(res: { status: number; body: any; text: string }, unsent: string) {
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("not_found");
    expect(res.text).not.toContain(unsent);
    expect(res.text).not.toContain(sandbox.credentials.projectId);
  }

  it("does not read this project's EVM account by address or by name", async () => {
    expectNotFoundWithoutLeak(await call(sandbox, "GET", `${LIST}/${evm.address}`, { credentials: other }), evm.name);
    expectNotFoundWithoutLeak(await call(sandbox, "GET", `${LIST}/by-name/${evm.name}`, { credentials: other }), evm.address);
  });

  it("does not read this project's Solana account by address or by name", async () => {
    expectNotFoundWithoutLeak(await call(sandbox, "GET", `/platform/v2/solana/accounts/${solana.address}`, { credentials: other }), solana.name);
    expectNotFoundWithoutLeak(await call(sandbox, "GET", `/platform/v2/solana/accounts/by-name/${solana.name}`, { credentials: other }), solana.address);
  });

  it("does not list this project's accounts", async () => {
    const res = await call(sandbox, "GET", LIST, { credentials: other });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(evm.address);
  });

  it("cannot sign with this project's account, even with its own wallet secret", async () => {
    const res = await call(sandbox, "POST", `${LIST}/${evm.address}/sign/message`, { credentials: other, body: { message: "steal" }, wallet: true });
    expectNotFoundWithoutLeak(res, evm.name);
  });

  it("cannot export this project's account", async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const exportEncryptionKey = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const byName = await call(sandbox, "POST", `${LIST}/export/by-name/${evm.name}`, { credentials: other, body: { exportEncryptionKey }, wallet: true });
    expectNotFoundWithoutLeak(byName, evm.address);
    const byAddress = await call(sandbox, "POST", `${LIST}/${evm.address}/export`, { credentials: other, body: { exportEncryptionKey }, wallet: true });
    expectNotFoundWithoutLeak(byAddress, evm.name);
  });
});
