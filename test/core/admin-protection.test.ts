/**
 * The admin API can reset and fund everything, so strangers are kept out: a
 * page of another site (its Origin) and a DNS-rebinding page (its Host) are
 * refused with 403 and change nothing, while the sandbox's own origin, its
 * loopback names and the hosted onramp pages opened by a browser still work.
 * With an admin token in force (always off loopback) every call but the
 * hosted pages needs it in X-Sandbox-Admin-Token.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { EVM_DESTINATION } from "#test/helpers/onramp.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

const expectRefused = (res: request.Response, status: number, errorType: string) => {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.stringMatching(/-SBX$/) });
};

const portOf = (sandbox: Sandbox) => new URL(sandbox.url).port;

/** An account on the default project; a reset would forget it. */
async function createAccount(sandbox: Sandbox, name: string): Promise<string> {
  const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name }, wallet: true });
  expect(res.status).toBe(201);
  return res.body.address as string;
}

const accountStatus = async (sandbox: Sandbox, address: string) => (await call(sandbox, "GET", `/platform/v2/evm/accounts/${address}`)).status;

async function hostedPageUrl(sandbox: Sandbox): Promise<URL> {
  const res = await call(sandbox, "POST", "/platform/v2/onramp/sessions", {
    body: { purchaseCurrency: "USDC", destinationNetwork: "base", destinationAddress: EVM_DESTINATION },
  });
  expect(res.status).toBe(201);
  return new URL(res.body.session.onrampUrl as string);
}

describe("the admin API on loopback", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "admin-protection" });
  });
  afterAll(() => sandbox.close());

  it("refuses a reset posted by another site, and forgets nothing", async () => {
    const address = await createAccount(sandbox, "kept-after-cross-site-reset");
    const res = await request(sandbox.url).post("/_sandbox/reset").set("Origin", "https://evil.example").send({});
    expectRefused(res, 403, "forbidden");
    expect(res.body.errorMessage).toContain("https://evil.example");
    expect(await accountStatus(sandbox, address)).toBe(200);
  });

  it("refuses Origin: null (a sandboxed frame or a redirected form) as another site", async () => {
    const address = await createAccount(sandbox, "kept-after-null-origin-reset");
    expectRefused(await request(sandbox.url).post("/_sandbox/reset").set("Origin", "null").send({}), 403, "forbidden");
    expect(await accountStatus(sandbox, address)).toBe(200);
  });

  it("refuses an origin that differs only in port or scheme", async () => {
    for (const origin of [`http://127.0.0.1:${Number(portOf(sandbox)) + 1}`, `https://127.0.0.1:${portOf(sandbox)}`]) {
      expectRefused(await request(sandbox.url).post("/_sandbox/clock").set("Origin", origin).send({ advance: "1m" }), 403, "forbidden");
    }
  });

  it("accepts a call from its own origin, under any of its loopback names", async () => {
    const own = await request(sandbox.url).post("/_sandbox/clock").set("Origin", sandbox.url).send({ advance: "1m" });
    expect(own.status).toBe(200);
    const asLocalhost = await request(sandbox.url)
      .get("/_sandbox/health")
      .set("Host", `localhost:${portOf(sandbox)}`)
      .set("Origin", `http://localhost:${portOf(sandbox)}`);
    expect(asLocalhost.status).toBe(200);
  });

  it("refuses a request under a foreign Host (DNS rebinding), and forgets nothing", async () => {
    const address = await createAccount(sandbox, "kept-after-rebound-reset");
    const reset = await request(sandbox.url)
      .post("/_sandbox/reset")
      .set("Host", `evil.example:${portOf(sandbox)}`)
      .send({});
    expectRefused(reset, 403, "forbidden");
    expect(reset.body.errorMessage).toContain(`evil.example:${portOf(sandbox)}`);
    expect(await accountStatus(sandbox, address)).toBe(200);
    expectRefused(await request(sandbox.url).get("/_sandbox/health").set("Host", "127.0.0.1:1"), 403, "forbidden");
  });

  it("still serves a hosted page opened by a browser (no Origin), but not under a foreign Host", async () => {
    const url = await hostedPageUrl(sandbox);
    const rebound = await request(sandbox.url)
      .get(url.pathname + url.search)
      .set("Host", `evil.example:${portOf(sandbox)}`);
    expectRefused(rebound, 403, "forbidden");
    const page = await request(sandbox.url).get(url.pathname + url.search);
    expect(page.status).toBe(200);
    expect(page.body.page).toBe("onramp");
  });
});

describe("the admin API with an admin token", () => {
  const token = "admin-protection-token";
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "admin-protection-token", adminToken: token });
  });
  afterAll(() => sandbox.close());

  it("refuses a call without the token or with a wrong one, and forgets nothing", async () => {
    const address = await createAccount(sandbox, "kept-after-tokenless-reset");
    const missing = await request(sandbox.url).post("/_sandbox/reset").send({});
    expectRefused(missing, 401, "unauthorized");
    expect(missing.body.errorMessage).toContain("X-Sandbox-Admin-Token");
    expectRefused(await request(sandbox.url).post("/_sandbox/reset").set("X-Sandbox-Admin-Token", `${token}x`).send({}), 401, "unauthorized");
    expectRefused(await request(sandbox.url).get("/_sandbox/health").set("X-Sandbox-Admin-Token", ""), 401, "unauthorized");
    expect(await accountStatus(sandbox, address)).toBe(200);
  });

  it("accepts a call with the token, under any Host", async () => {
    expect((await request(sandbox.url).get("/_sandbox/health").set("X-Sandbox-Admin-Token", token)).status).toBe(200);
    const lan = await request(sandbox.url)
      .get("/_sandbox/clock")
      .set("Host", `sandbox.lan:${portOf(sandbox)}`)
      .set("X-Sandbox-Admin-Token", token);
    expect(lan.status).toBe(200);
  });

  it("still refuses another site's page, even one that knows the token", async () => {
    const res = await request(sandbox.url).post("/_sandbox/reset").set("Origin", "https://evil.example").set("X-Sandbox-Admin-Token", token).send({});
    expectRefused(res, 403, "forbidden");
  });

  it("serves a hosted page without the token", async () => {
    const url = await hostedPageUrl(sandbox);
    const page = await request(sandbox.url).get(url.pathname + url.search);
    expect(page.status).toBe(200);
    expect(page.body.page).toBe("onramp");
  });
});

describe("the admin API bound to every address", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, host: "0.0.0.0", seed: "admin-protection-network" });
  });
  afterAll(() => sandbox.close());

  it("makes up an admin token from the operating system's randomness, not the seed, and requires it", async () => {
    expect(sandbox.adminToken).toMatch(/^[0-9a-f]{48}$/);
    expectRefused(await request(sandbox.url).get("/_sandbox/health"), 401, "unauthorized");
    expect((await request(sandbox.url).get("/_sandbox/health").set("X-Sandbox-Admin-Token", sandbox.adminToken!)).status).toBe(200);
    const again = await startSandbox({ port: 0, host: "0.0.0.0", seed: "admin-protection-network" });
    try {
      // Anyone who knows the seed would otherwise hold the admin API of every sandbox started with it.
      expect(again.adminToken).toMatch(/^[0-9a-f]{48}$/);
      expect(again.adminToken).not.toBe(sandbox.adminToken);
    } finally {
      await again.close();
    }
  });
});
