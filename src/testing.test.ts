/**
 * cdp-sandbox/testing over HTTP: an end user signs in through the sandbox's sign-in endpoints with the code from the
 * inbox; the access token is one the platform accepts, the cookie is the refresh token the auth/refresh path takes.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { readCode, SandboxRefusedError, signInEndUser } from "cdp-sandbox/testing";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "testing-entry" });
});
afterAll(() => sandbox.close());

describe("cdp-sandbox/testing", () => {
  it("signs an end user in by email and hands back tokens and the refresh cookie", async () => {
    const signedIn = await signInEndUser({ sandbox, email: "helper@example.com" });
    const users = await call(sandbox, "GET", `/platform/v2/end-users/${signedIn.endUser.userId}`);
    expect(users.body.authenticationMethods).toEqual([{ type: "email", email: "helper@example.com" }]);
    const valid = await call(sandbox, "POST", "/platform/v2/end-users/auth/validate-token", { body: { accessToken: signedIn.accessToken } });
    expect(valid.status).toBe(200);
    expect(valid.body.userId).toBe(signedIn.endUser.userId);
    const { projectId } = sandbox.credentials;
    expect(signedIn.cookie).toMatchObject({
      name: "cdp_refresh_token",
      value: signedIn.refreshToken,
      domain: "127.0.0.1",
      path: `/platform/v2/embedded-wallet-api/projects/${projectId}/auth`,
      httpOnly: true,
      sameSite: "Lax",
    });
    // The cookie is what the browser presents on load: the refresh path answers the same end user with it.
    const refreshed = await request(sandbox.url)
      .post(`${signedIn.cookie.path}/refresh`)
      .set("Cookie", `${signedIn.cookie.name}=${signedIn.cookie.value}`)
      .send({ grantType: "refresh_token" });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.endUser.userId).toBe(signedIn.endUser.userId);
  });

  it("reads the newest code sent to an address, and says when there is none", async () => {
    const auth = `/platform/v2/embedded-wallet-api/projects/${sandbox.credentials.projectId}/auth`;
    await request(sandbox.url).post(`${auth}/init`).send({ type: "email", email: "reader@example.com" });
    const second = await request(sandbox.url).post(`${auth}/init`).send({ type: "email", email: "reader@example.com" });
    const code = await readCode("reader@example.com", { url: sandbox.url });
    expect(code).toMatch(/^\d{6}$/);
    const verified = await request(sandbox.url).post(`${auth}/verify/email`).send({ flowId: second.body.flowId, otp: code });
    expect(verified.status).toBe(200);
    await expect(readCode("nobody@example.com", { sandbox })).rejects.toThrow(/has sent no code to nobody@example.com/);
  });

  it("rejects a sign-in the sandbox refuses with its error body: an email sign-in in a project that does not exist", async () => {
    const refused = await signInEndUser({ url: sandbox.url, projectId: "no-such-project", email: "lost@example.com" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxRefusedError);
    const { call: step, status, body } = refused as SandboxRefusedError;
    expect(step).toBe("auth/init");
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(body).toMatchObject({ errorType: expect.any(String), errorMessage: expect.any(String), correlationId: expect.any(String) });
  });
});
