/**
 * Request signing: a project that registered an RSA public key (at least 2048 bits) under a kid gets every
 * API-key request refused unless it carries X-Signature, a JWS (compact serialization) over the method, the
 * request target, the body's SHA-256, a timestamp on the sandbox clock and a one-time jti. The bearer token stays
 * mandatory. The JWS is built here with node:crypto alone, independently of the sandbox (which verifies with jose).
 */
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, type Credentials, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let project: Credentials & { projectId: string };
let other: Credentials & { projectId: string };
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "request-signing" });
  project = await sandbox.createProject("signed");
  other = await sandbox.createProject("unsigned");
});
afterAll(() => sandbox.close());

const POLICIES = "/platform/v2/policy-engine/policies";
const KEYS = () => `/_sandbox/projects/${project.projectId}/signing-keys`;
const pem = (key: KeyObject) => key.export({ type: "spki", format: "pem" }).toString();
const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");
const nowSeconds = () => Math.floor(sandbox.clock.now() / 1000);

/** A compact JWS, RS256, over exactly these claims. */
function jws(claims: Record<string, unknown>, o: { kid?: string; key?: KeyObject; alg?: string } = {}): string {
  const header = b64url(JSON.stringify({ alg: o.alg ?? "RS256", kid: o.kid ?? "server-1", typ: "JWT" }));
  const payload = b64url(JSON.stringify(claims));
  const signature = sign("sha256", Buffer.from(`${header}.${payload}`), o.key ?? privateKey);
  return `${header}.${payload}.${b64url(signature)}`;
}

/** The claims of a request as the sandbox expects them signed. */
const claimsFor = (method: string, uri: string, body?: unknown) => ({
  method,
  uri,
  bodyHash: createHash("sha256")
    .update(body === undefined ? "" : JSON.stringify(body))
    .digest("hex"),
  iat: nowSeconds(),
  jti: randomUUID(),
});

const policy = { scope: "account", rules: [{ action: "reject", operation: "signEvmHash" }] };
const createPolicy = (signature?: string, body: unknown = policy) =>
  call(sandbox, "POST", POLICIES, { body, credentials: project, headers: signature === undefined ? {} : { "X-Signature": signature } });
const policyCount = async () =>
  (await call(sandbox, "GET", POLICIES, { credentials: project, headers: { "X-Signature": jws(claimsFor("GET", POLICIES)) } })).body.policies.length;

function expectRefused(res: { status: number; body: Record<string, unknown> }, fragment: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(401);
  expect(res.body).toMatchObject({
    errorType: "unauthorized",
    errorMessage: expect.stringMatching(fragment),
    correlationId: expect.any(String),
    errorLink: expect.any(String),
  });
}

describe("registering request-signing keys", () => {
  it("takes an RSA key of at least 2048 bits under a kid, and refuses smaller, other kinds, garbage and a taken kid", async () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey;
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey;
    for (const [publicKeyPem, reason] of [
      [pem(small), /1024 bits; at least 2048/],
      [pem(ec), /must be an RSA key/],
      ["-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----", /not a PEM public key/],
    ] as const) {
      const res = await call(sandbox, "POST", KEYS(), { body: { kid: "bad", publicKey: publicKeyPem }, anonymous: true });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errorMessage).toMatch(reason);
    }
    const created = await call(sandbox, "POST", KEYS(), { body: { kid: "server-1", publicKey: pem(publicKey) }, anonymous: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ kid: "server-1", modulusLength: 2048, publicKey: pem(publicKey) });
    const again = await call(sandbox, "POST", KEYS(), { body: { kid: "server-1", publicKey: pem(stranger.publicKey) }, anonymous: true });
    expect(again.status).toBe(409);
    expect((await call(sandbox, "GET", KEYS(), { anonymous: true })).body.signingKeys.map((k: { kid: string }) => k.kid)).toEqual(["server-1"]);
  });

  it("lets a project's own key reach only its own keys", async () => {
    const res = await call(sandbox, "GET", KEYS(), { credentials: other });
    expect(res.status).toBe(404);
    const added = await call(sandbox, "POST", KEYS(), { body: { kid: "intruder", publicKey: pem(stranger.publicKey) }, credentials: other });
    expect(added.status).toBe(404);
  });
});

describe("a project with a request-signing key", () => {
  it("answers a request signed over its method, target, body, time and jti", async () => {
    const res = await createPolicy(jws(claimsFor("POST", POLICIES, policy)));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const query = `${POLICIES}?scope=account`;
    const listed = await call(sandbox, "GET", query, { credentials: project, headers: { "X-Signature": jws(claimsFor("GET", query)) } });
    expect(listed.status).toBe(200);
  });

  it("refuses, changing nothing, a request without X-Signature or with one that does not fit", async () => {
    const before = await policyCount();
    expectRefused(await createPolicy(), /X-Signature: missing.*server-1/);
    expectRefused(await createPolicy("not-a-jws"), /compact serialization/);
    expectRefused(await createPolicy(jws(claimsFor("POST", POLICIES, policy), { key: stranger.privateKey })), /bad signature/);
    expectRefused(await createPolicy(jws(claimsFor("POST", POLICIES, policy), { kid: "server-2" })), /kid "server-2" is not a request-signing key/);
    expectRefused(await createPolicy(jws(claimsFor("POST", POLICIES, policy), { alg: "HS256" })), /alg must be one of/);
    expectRefused(await createPolicy(jws(claimsFor("POST", POLICIES, { ...policy, scope: "project" }))), /bodyHash/);
    expectRefused(await createPolicy(jws(claimsFor("PUT", POLICIES, policy))), /signed for method "PUT"/);
    expectRefused(await createPolicy(jws(claimsFor("POST", `${POLICIES}?x=1`, policy))), /signed for uri/);
    expectRefused(await createPolicy(jws({ ...claimsFor("POST", POLICIES, policy), iat: nowSeconds() - 301 })), /more than 300 s from the sandbox clock/);
    expectRefused(await createPolicy(jws({ ...claimsFor("POST", POLICIES, policy), jti: undefined })), /jti must be/);
    expect(await policyCount()).toBe(before);
  });

  it("accepts a signature once: a replay within the window is refused", async () => {
    const signature = jws(claimsFor("POST", POLICIES, policy));
    expect((await createPolicy(signature)).status).toBe(201);
    expectRefused(await createPolicy(signature), /already used/);
  });

  it("judges the signature's time on the sandbox clock", async () => {
    const signature = jws(claimsFor("POST", POLICIES, policy));
    sandbox.clock.advance(10 * 60_000);
    try {
      expectRefused(await createPolicy(signature), /more than 300 s from the sandbox clock/);
      expect((await createPolicy(jws(claimsFor("POST", POLICIES, policy)))).status).toBe(201);
    } finally {
      sandbox.clock.advance(-10 * 60_000);
    }
  });

  it("still requires the bearer token", async () => {
    const res = await call(sandbox, "POST", POLICIES, { body: policy, anonymous: true, headers: { "X-Signature": jws(claimsFor("POST", POLICIES, policy)) } });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(/Authorization/);
  });

  it("leaves other projects as they were, and needs no signature once its key is removed", async () => {
    expect((await call(sandbox, "POST", POLICIES, { body: policy, credentials: other })).status).toBe(201);
    const removed = await call(sandbox, "DELETE", `${KEYS()}/server-1`, { anonymous: true });
    expect(removed.status).toBe(204);
    expect((await call(sandbox, "DELETE", `${KEYS()}/server-1`, { anonymous: true })).status).toBe(404);
    expect((await createPolicy()).status).toBe(201);
  });
});
