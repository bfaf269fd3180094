/**
 * Email and SMS sign-in over HTTP: codes through the inbox (random, single use, expiring and locking on the sandbox
 * clock, fixed per address for tests), the refresh token in the body or an HttpOnly cookie, logout, and linking a
 * second method to the signed-in end user.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { endUserCount, inbox, signInByEmail } from "#test/helpers/embeddedWallets.js";
import { call } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in-otp", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

describe("email and SMS one-time codes", () => {
  it("records a random 6-digit code in the inbox, newest first, and signs a new end user in with it", async () => {
    const first = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "Ada@Example.com" });
    const second = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "ada@example.com" });
    expect(first.body.nextStep.type).toBe("verify-otp");
    const messages = await inbox(sandbox, "ADA@example.com");
    expect(messages.map((m) => m.flowId)).toEqual([second.body.flowId, first.body.flowId]);
    expect(messages[0]).toMatchObject({ to: "ada@example.com", channel: "email" });
    expect(messages[0]!.code).toMatch(/^\d{6}$/);
    expect(messages[0]!.code).not.toBe(messages[1]!.code);

    const verified = await request(sandbox.url).post(auth("verify/email")).send({ flowId: second.body.flowId, otp: messages[0]!.code });
    expect(verified.status).toBe(200);
    expect(verified.body.isNewEndUser).toBe(true);
    expect(verified.body.endUser.authenticationMethods).toEqual([{ type: "email", email: "ada@example.com" }]);
    expect(verified.body.refreshToken).toMatch(/^[0-9a-f]{64}$/);

    // The access token is the one the developer's server validates.
    const validated = await call(sandbox, "POST", "/platform/v2/end-users/auth/validate-token", { body: { accessToken: verified.body.accessToken } });
    expect(validated.status).toBe(200);
    expect(validated.body.userId).toBe(verified.body.endUser.userId);

    // Single use: the same code again is refused, and the same address signs the same end user in next time.
    const again = await request(sandbox.url).post(auth("verify/email")).send({ flowId: second.body.flowId, otp: messages[0]!.code });
    expect(again.status).toBe(400);
    expect(again.body.errorType).toBe("invalid_request");
    const next = await signInByEmail(sandbox, "ada@example.com");
    expect(next.body).toMatchObject({ isNewEndUser: false, endUser: { userId: verified.body.endUser.userId } });
  });

  it("counts wrong codes and locks the flow at the fifth, even for the right code afterwards", async () => {
    const init = await request(sandbox.url).post(auth("init")).send({ type: "sms", phoneNumber: "+14155550100" });
    const [message] = await inbox(sandbox, "+14155550100");
    expect(message!.channel).toBe("sms");
    const wrong = message!.code === "000000" ? "000001" : "000000";
    const before = await endUserCount(sandbox);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const res = await request(sandbox.url).post(auth("verify/sms")).send({ flowId: init.body.flowId, otp: wrong });
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toContain(`${5 - attempt} attempt`);
      expect(res.body.correlationId).toBeTruthy();
    }
    const fifth = await request(sandbox.url).post(auth("verify/sms")).send({ flowId: init.body.flowId, otp: wrong });
    expect(fifth.status).toBe(429);
    const right = await request(sandbox.url).post(auth("verify/sms")).send({ flowId: init.body.flowId, otp: message!.code });
    expect(right.status).toBe(429);
    expect(await endUserCount(sandbox)).toBe(before);
  });

  it("expires codes after 10 minutes of sandbox time", async () => {
    const init = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "late@example.com" });
    const [message] = await inbox(sandbox, "late@example.com");
    sandbox.clock.advance(10 * 60_000);
    const res = await request(sandbox.url).post(auth("verify/email")).send({ flowId: init.body.flowId, otp: message!.code });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toContain("expired");
  });

  it("sends a project's fixed test code to its address", async () => {
    const patched = await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: { testCodes: { "fixed@example.com": "424242" } } } });
    expect(patched.status).toBe(200);
    const init = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "fixed@example.com" });
    const res = await request(sandbox.url).post(auth("verify/email")).send({ flowId: init.body.flowId, otp: "424242" });
    expect(res.status).toBe(200);
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${projectId}`)
      .send({ settings: { embeddedWallets: {} } });
  });

  it("answers malformed sign-in requests with the platform's 400 and sends nothing", async () => {
    const before = (await request(sandbox.url).get("/_sandbox/messages")).body.messages.length;
    for (const body of [
      { type: "email", email: "not-an-address" },
      { type: "sms", phoneNumber: "555-0100" },
      { type: "google" },
      { type: "siwe", address: "0x1234", chainId: 1, domain: "localhost", uri: "http://localhost/" },
      { type: "fax", number: "1" },
    ]) {
      const res = await request(sandbox.url).post(auth("init")).send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request" });
      expect(res.body.errorLink).toBeTruthy();
    }
    const broken = await request(sandbox.url).post(auth("init")).set("content-type", "application/json").send("{not json");
    expect(broken.status).toBe(400);
    expect((await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: "x", signature: "zz" })).status).toBe(400);
    expect((await request(sandbox.url).get("/_sandbox/messages")).body.messages).toHaveLength(before);
  });

  it("refuses an unknown flow with 404 and an unknown project with 404", async () => {
    const unknownFlow = await request(sandbox.url).post(auth("verify/email")).send({ flowId: "nope", otp: "123456" });
    expect(unknownFlow.status).toBe(404);
    const otherProject = await request(sandbox.url)
      .post("/platform/v2/embedded-wallet-api/projects/00000000-0000-4000-8000-000000000000/auth/init")
      .send({ type: "email", email: "x@example.com" });
    expect(otherProject.status).toBe(404);
    expect(otherProject.body.errorType).toBe("not_found");
  });
});

describe("refresh and logout", () => {
  it("refreshes with the body's refresh token and refuses it after logout", async () => {
    const signedIn = await signInByEmail(sandbox, "refresh@example.com");
    const refreshToken = signedIn.body.refreshToken as string;
    const refreshed = await request(sandbox.url).post(auth("refresh")).send({ grantType: "refresh_token", refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.endUser.userId).toBe(signedIn.body.endUser.userId);
    expect(refreshed.body.accessToken).toBeTruthy();
    const out = await request(sandbox.url).post(auth("logout")).send({ refreshToken });
    expect(out.status).toBe(204);
    const after = await request(sandbox.url).post(auth("refresh")).send({ grantType: "refresh_token", refreshToken });
    expect(after.status).toBe(401);
    const none = await request(sandbox.url).post(auth("refresh")).send({ grantType: "refresh_token" });
    expect(none.status).toBe(401);
  });

  it("gives a Chromium browser its refresh token as an HttpOnly cookie and refreshes from the cookie", async () => {
    const chrome = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36" };
    const signedIn = await signInByEmail(sandbox, "cookie@example.com", chrome);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.refreshToken).toBeUndefined();
    const cookie = String(signedIn.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Max-Age=604800/);
    const pair = cookie.split(";")[0]!;
    const refreshed = await request(sandbox.url).post(auth("refresh")).set(chrome).set("cookie", pair).send({ grantType: "refresh_token" });
    expect(refreshed.status).toBe(200);
    // Seven days later the refresh token is over.
    sandbox.clock.advance(7 * 24 * 3600_000);
    const late = await request(sandbox.url).post(auth("refresh")).set(chrome).set("cookie", pair).send({ grantType: "refresh_token" });
    expect(late.status).toBe(401);
  });
});

describe("linking", () => {
  it("links a method verified while signed in to the same end user, and refuses one another end user has", async () => {
    const ada = await signInByEmail(sandbox, "link-a@example.com");
    const bearer = { authorization: `Bearer ${ada.body.accessToken}` };
    const init = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "sms", phoneNumber: "+14155550111" });
    const [message] = await inbox(sandbox, "+14155550111");
    const linked = await request(sandbox.url).post(auth("verify/sms")).set(bearer).send({ flowId: init.body.flowId, otp: message!.code });
    expect(linked.status).toBe(200);
    expect(linked.body.isNewEndUser).toBe(false);
    expect(linked.body.endUser.userId).toBe(ada.body.endUser.userId);
    expect(linked.body.endUser.authenticationMethods).toEqual([
      { type: "email", email: "link-a@example.com" },
      { type: "sms", phoneNumber: "+14155550111" },
    ]);
    await signInByEmail(sandbox, "link-b@example.com");
    const steal = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "email", email: "link-b@example.com" });
    const [code] = await inbox(sandbox, "link-b@example.com");
    const refused = await request(sandbox.url).post(auth("verify/email")).set(bearer).send({ flowId: steal.body.flowId, otp: code!.code });
    expect(refused.status).toBe(409);
    const twice = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "email", email: "link-a@example.com" });
    const [own] = await inbox(sandbox, "link-a@example.com");
    const already = await request(sandbox.url).post(auth("verify/email")).set(bearer).send({ flowId: twice.body.flowId, otp: own!.code });
    expect(already.status).toBe(409);
    expect(already.body.errorMessage).toContain("This end user already signs in");
  });
});
