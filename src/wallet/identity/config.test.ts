/** The project's embedded-wallet configuration, CORS for browser apps, and the simulated iOS App Attest. */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in-config", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

describe("configuration and CORS", () => {
  it("answers config and auth/mfa from the project's settings", async () => {
    const config = await request(sandbox.url).get(`/platform/v2/embedded-wallet-api/projects/${projectId}/config`);
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ projectId, delegatedSigningEnabled: true });
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { delegationEnabled: false, embeddedWallets: { mfa: { enabled: true, verificationWindowSeconds: 600 } } } });
    const after = await request(sandbox.url).get(`/platform/v2/embedded-wallet-api/projects/${projectId}/config`);
    expect(after.body.delegatedSigningEnabled).toBe(false);
    const mfa = await request(sandbox.url).get(auth("mfa"));
    expect(mfa.body).toMatchObject({ enabled: true, verificationWindowSeconds: 600, totpConfig: { enabled: true } });
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { mfaVerificationWindowSeconds: 120 } });
    expect((await request(sandbox.url).get(auth("mfa"))).body.verificationWindowSeconds).toBe(120);
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { delegationEnabled: true, mfaVerificationWindowSeconds: null, embeddedWallets: {} } });
  });

  it("refuses a sign-in method the project turned off", async () => {
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: { signInMethods: ["email"] } } });
    const sms = await request(sandbox.url).post(auth("init")).send({ type: "sms", phoneNumber: "+14155550199" });
    expect(sms.status).toBe(403);
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: {} } });
  });

  it("answers a localhost page's preflight with its exact origin and credentials, and other origins per the allow-list", async () => {
    const preflight = await request(sandbox.url)
      .options(auth("init"))
      .set("origin", "http://localhost:3000")
      .set("access-control-request-method", "POST")
      .set("access-control-request-headers", "content-type,authorization,x-wallet-auth");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect(preflight.headers["access-control-allow-credentials"]).toBe("true");
    expect(preflight.headers["access-control-allow-headers"]).toContain("x-wallet-auth");

    const stranger = await request(sandbox.url).options(auth("init")).set("origin", "https://app.example").set("access-control-request-method", "POST");
    expect(stranger.status).toBe(403);
    expect(stranger.headers["access-control-allow-origin"]).toBeUndefined();
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: { allowedOrigins: ["https://app.example"] } } });
    const listed = await request(sandbox.url).post(auth("init")).set("origin", "https://app.example").send({ type: "email", email: "cors@example.com" });
    expect(listed.headers["access-control-allow-origin"]).toBe("https://app.example");
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: {} } });

    // Never on the API-key operations.
    const apiKeyOp = await request(sandbox.url)
      .options("/platform/v2/evm/accounts")
      .set("origin", "http://localhost:3000")
      .set("access-control-request-method", "POST");
    expect(apiKeyOp.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("iOS App Attest (simulated)", () => {
  it("registers a key once per challenge, within the challenge's 5 minutes", async () => {
    const path = `/platform/v2/embedded-wallet-api/projects/${projectId}/attestation`;
    const { body: challenge } = await request(sandbox.url).post(`${path}/challenge`);
    expect(Buffer.from(challenge.challenge, "base64")).toHaveLength(32);
    const registration = { challenge: challenge.challenge, ios: { keyId: "key-1", attestation: "o2NmbXQ=", bundleId: "com.example.app" } };
    const ok = await request(sandbox.url).post(`${path}/register`).send(registration);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ keyId: "key-1", platform: "ios", appId: "com.example.app" });
    expect((await request(sandbox.url).post(`${path}/register`).send(registration)).status).toBe(409);
    const { body: late } = await request(sandbox.url).post(`${path}/challenge`);
    sandbox.clock.advance(5 * 60_000);
    expect(
      (
        await request(sandbox.url)
          .post(`${path}/register`)
          .send({ ...registration, challenge: late.challenge })
      ).status,
    ).toBe(409);
  });
});
