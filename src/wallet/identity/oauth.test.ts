/** OAuth sign-in over HTTP through the sandbox's consent page, and Telegram's PUT verification. */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in-oauth", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

describe("OAuth through the sandbox's consent page", () => {
  it("redirects back with code, flow_id and provider_type, and the code signs the chosen identity in", async () => {
    const elsewhere = await request(sandbox.url).post(auth("init")).send({ type: "google", redirectUrl: "https://evil.example/steal" });
    expect(elsewhere.status).toBe(400);
    const init = await request(sandbox.url).post(auth("init")).send({ type: "google", redirectUrl: "http://localhost:3000/callback" });
    expect(init.status).toBe(200);
    const authUrl = new URL(init.body.authUrl);
    const page = await request(sandbox.url).get(authUrl.pathname + authUrl.search);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<form");
    const consent = await request(sandbox.url).get(
      `/_sandbox/oauth/consent?projectId=${projectId}&flowId=${init.body.flowId}&sub=google-123&email=grace@example.com`,
    );
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.location!);
    expect(back.origin + back.pathname).toBe("http://localhost:3000/callback");
    expect(back.searchParams.get("flow_id")).toBe(init.body.flowId);
    expect(back.searchParams.get("provider_type")).toBe("google");
    const wrong = await request(sandbox.url).post(auth("verify/oauth/google")).send({ flowId: init.body.flowId, code: "not-it" });
    expect(wrong.status).toBe(400);
    const res = await request(sandbox.url)
      .post(auth("verify/oauth/google"))
      .send({ flowId: init.body.flowId, code: back.searchParams.get("code") });
    expect(res.status).toBe(200);
    expect(res.body.endUser.authenticationMethods).toEqual([{ type: "google", sub: "google-123", email: "grace@example.com" }]);
  });
});

describe("Telegram and native Apple sign-in (PUT verify)", () => {
  it("takes the consent page's code as Telegram's hash, and refuses another hash or a POST-only provider", async () => {
    const init = await request(sandbox.url).post(auth("init")).send({ type: "telegram", redirectUrl: "http://localhost:3000/" });
    const consent = await request(sandbox.url).get(`/_sandbox/oauth/consent?projectId=${projectId}&flowId=${init.body.flowId}&sub=777&username=tg_user`);
    const hash = new URL(consent.headers.location!).searchParams.get("code")!;
    const identity = { flowId: init.body.flowId, id: 777, authDate: 1_790_000_000, username: "tg_user" };
    expect(
      (
        await request(sandbox.url)
          .put(auth("verify/oauth/telegram"))
          .send({ ...identity, hash: "0".repeat(32) })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(sandbox.url)
          .put(auth("verify/oauth/google"))
          .send({ ...identity, hash })
      ).status,
    ).toBe(400);
    const ok = await request(sandbox.url)
      .put(auth("verify/oauth/telegram"))
      .send({ ...identity, hash });
    expect(ok.status).toBe(200);
    expect(ok.body.endUser.authenticationMethods).toEqual([{ type: "telegram", id: 777, authDate: 1_790_000_000, username: "tg_user" }]);
  });
});
