/**
 * The attacks of the third hardening pass on sign-in and the evidence files, over HTTP (MFA has a file of its own,
 * attacks-mfa.test.ts, as it runs the embedded-wallet client). Each was let through once: a sandbox off loopback
 * made anyone who reached its consent page any OAuth identity; `--seed` made sign-in codes, refresh tokens, TOTP
 * secrets and the key of end users' access tokens computable by whoever knew the seed, off loopback too.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

const expectRefused = (res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
  expect([res.status, res.body.errorType], JSON.stringify(res.body)).toEqual([status, errorType]);
  expect(res.body).toMatchObject({ errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
};

describe("off loopback, the pages that hand out an identity", () => {
  let exposed: Sandbox;
  let opened: Sandbox;
  beforeAll(async () => {
    [exposed, opened] = await Promise.all([
      withSandbox({ host: "0.0.0.0", seed: "third-pass-exposed" }),
      withSandbox({ host: "0.0.0.0", seed: "third-pass-opened", openSignInPages: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([exposed.close(), opened.close()]);
  });

  const startOAuth = async (sandbox: Sandbox) => {
    const projectId = sandbox.credentials.projectId;
    const init = await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/projects/${projectId}/auth/init`)
      .send({ type: "google", redirectUrl: "http://localhost:3000/callback" });
    expect(init.status, init.text).toBe(200);
    const authUrl = new URL(init.body.authUrl);
    return { projectId, flowId: init.body.flowId as string, page: authUrl.pathname + authUrl.search };
  };
  const consent = (f: { projectId: string; flowId: string }) =>
    `/_sandbox/oauth/consent?projectId=${f.projectId}&flowId=${f.flowId}&sub=victim-sub&email=victim@example.com`;

  it("need the admin token: the consent page and its answer refuse a caller without it (401), binding no identity", async () => {
    const flow = await startOAuth(exposed);
    expectRefused(await request(exposed.url).get(flow.page), 401, "unauthorized");
    expectRefused(await request(exposed.url).get(consent(flow)), 401, "unauthorized");
    expectRefused(await request(exposed.url).get(consent(flow)).set("X-Sandbox-Admin-Token", "guess"), 401, "unauthorized");
    // The inbox of one-time codes, as before.
    expectRefused(await request(exposed.url).get("/_sandbox/messages?to=victim@example.com"), 401, "unauthorized");

    const admin = { "X-Sandbox-Admin-Token": exposed.adminToken! };
    expect((await request(exposed.url).get(flow.page).set(admin)).status).toBe(200);
    const granted = await request(exposed.url).get(consent(flow)).set(admin);
    expect(granted.status).toBe(302);
    expect(new URL(granted.headers.location!).searchParams.get("code")).toBeTruthy();
    expect(exposed.optIns).toEqual([]);
  });

  it("stay open with --open-sign-in-pages, listed among the opt-ins", async () => {
    expect(opened.optIns).toEqual(["open-sign-in-pages"]);
    const flow = await startOAuth(opened);
    expect((await request(opened.url).get(flow.page)).status).toBe(200);
    expect((await request(opened.url).get(consent(flow))).status).toBe(302);
    // Only those pages: the rest of /_sandbox keeps its token.
    expectRefused(await request(opened.url).get("/_sandbox/messages"), 401, "unauthorized");
  });
});

describe("--seed and the secrets handed out", () => {
  /** What one sign-in by email and one TOTP enrolment hand out, the code read from the inbox. */
  async function secretsOf(sandbox: Sandbox) {
    const admin = sandbox.adminToken ? { "X-Sandbox-Admin-Token": sandbox.adminToken } : {};
    const projectId = sandbox.credentials.projectId;
    const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;
    const email = "seeded@example.com";
    const { flowId } = (await request(sandbox.url).post(auth("init")).send({ type: "email", email })).body;
    const code = (await request(sandbox.url).get(`/_sandbox/messages?to=${email}`).set(admin)).body.messages[0].code as string;
    const signedIn = await request(sandbox.url).post(auth("verify/email")).send({ flowId, otp: code });
    expect(signedIn.status, signedIn.text).toBe(200);
    const { accessToken, refreshToken, endUser } = signedIn.body;
    const totp = await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/end-users/${endUser.userId}/mfa/enroll/totp/init`)
      .set("Authorization", `Bearer ${accessToken}`);
    expect(totp.status, totp.text).toBe(200);
    // More one-time codes: three of another address (one pair of codes may match by chance, three in a row do not).
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      await request(sandbox.url).post(auth("init")).send({ type: "email", email: "more@example.com" });
      codes.push((await request(sandbox.url).get("/_sandbox/messages?to=more@example.com").set(admin)).body.messages[0].code);
    }
    return {
      userId: endUser.userId as string,
      codes: [code, ...codes].join(","),
      refreshToken: refreshToken as string,
      accessToken: accessToken as string,
      totpSecret: totp.body.secret as string,
    };
  }
  const accepts = async (sandbox: Sandbox, accessToken: string) =>
    (await call(sandbox, "POST", "/platform/v2/end-users/auth/validate-token", { body: { accessToken } })).status === 200;

  it("off loopback, come from the operating system: two sandboxes of one seed hand out different ones, and refuse each other's tokens", async () => {
    const [a, b] = await Promise.all([withSandbox({ host: "0.0.0.0", seed: "shared-seed" }), withSandbox({ host: "0.0.0.0", seed: "shared-seed" })]);
    try {
      a.clock.freeze(true);
      b.clock.freeze(true);
      b.clock.set(a.clock.now());
      const [sa, sb] = [await secretsOf(a), await secretsOf(b)];
      // Ids may stay seeded: the same user id in both.
      expect(sb.userId).toBe(sa.userId);
      expect(sb.codes).not.toBe(sa.codes);
      expect(sb.refreshToken).not.toBe(sa.refreshToken);
      expect(sb.totpSecret).not.toBe(sa.totpSecret);
      // The key of end users' access tokens differs: a token of one is not accepted by the other.
      expect(await accepts(a, sa.accessToken)).toBe(true);
      expect(await accepts(b, sa.accessToken)).toBe(false);
      const refreshed = await request(b.url)
        .post(`/platform/v2/embedded-wallet-api/projects/${b.credentials.projectId}/auth/refresh`)
        .send({ grantType: "refresh_token", refreshToken: sa.refreshToken });
      expectRefused(refreshed, 401, "unauthorized");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("on loopback, stay reproducible from the seed, as tests rely on", async () => {
    const [a, b] = await Promise.all([withSandbox({ seed: "shared-seed" }), withSandbox({ seed: "shared-seed" })]);
    try {
      a.clock.freeze(true);
      b.clock.freeze(true);
      b.clock.set(a.clock.now());
      const [sa, sb] = [await secretsOf(a), await secretsOf(b)];
      expect(sb).toEqual(sa);
      expect(await accepts(b, sa.accessToken)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
