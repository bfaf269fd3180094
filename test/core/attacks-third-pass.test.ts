/**
 * The attacks of the third hardening pass on sign-in and the evidence files, over HTTP (MFA has a file of its own,
 * attacks-mfa.test.ts, as it runs the embedded-wallet client). Each was let through once: a sandbox off loopback
 * made anyone who reached its consent page any OAuth identity; `--seed` made sign-in codes, refresh tokens, TOTP
 * secrets and the key of end users' access tokens computable by whoever knew the seed, off loopback too; the
 * journal, its file and the HAR handed out live refresh tokens, codes and keys, in files anyone on the host could read;
 * a script could open sign-in flow after flow for one address, five code guesses each; a custom-auth JWT could live
 * for ever, a configuration could leave out its audience, and made-up key ids made the sandbox fetch the JWKS again
 * for each request, holding the project's lock while it waited.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, startNode } from "#test/helpers/cli.js";
import { call, endUserSession, withSandbox } from "#test/helpers/sandbox.js";

const expectRefused = (res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
  expect([res.status, res.body.errorType], JSON.stringify(res.body)).toEqual([status, errorType]);
  expect(res.body).toMatchObject({ errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
};

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

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
      // Ids may stay seeded: the same user id in both. The project's own credentials are secrets too.
      expect(sb.userId).toBe(sa.userId);
      expect(b.credentials.apiKeySecret).not.toBe(a.credentials.apiKeySecret);
      expect(b.credentials.walletSecret).not.toBe(a.credentials.walletSecret);
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
      const { basePath: _a, ...credentialsA } = a.credentials;
      const { basePath: _b, ...credentialsB } = b.credentials;
      expect(credentialsB).toEqual(credentialsA);
      expect(await accepts(b, sa.accessToken)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("the evidence files", () => {
  let dir: string;
  let sandbox: Sandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "third-pass-evidence-"));
    sandbox = await withSandbox({ seed: "third-pass-evidence", journal: join(dir, "journal.jsonl"), data: join(dir, "state.json") });
    sandbox.clock.freeze(true);
  });
  afterAll(async () => {
    await sandbox.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it("carry no live secret in any body or header: the journal, its file and the HAR; the inbox stays readable", async () => {
    const projectId = sandbox.credentials.projectId;
    const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;
    const secrets: string[] = [];

    // Email sign-in: the code (the inbox's answer and the verify request), the access and refresh tokens; a refresh.
    const { flowId } = (await request(sandbox.url).post(auth("init")).send({ type: "email", email: "evidence@example.com" })).body;
    const code = (await request(sandbox.url).get("/_sandbox/messages?to=evidence@example.com")).body.messages[0].code as string;
    const signedIn = (await request(sandbox.url).post(auth("verify/email")).send({ flowId, otp: code })).body;
    const refreshed = (await request(sandbox.url).post(auth("refresh")).send({ grantType: "refresh_token", refreshToken: signedIn.refreshToken })).body;
    secrets.push(code, signedIn.accessToken, signedIn.refreshToken, refreshed.accessToken);
    // TOTP enrolment: the secret, alone and in its otpauth:// URI.
    const userId = signedIn.endUser.userId as string;
    const totp = await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/end-users/${userId}/mfa/enroll/totp/init`)
      .set("Authorization", `Bearer ${signedIn.accessToken}`);
    secrets.push(totp.body.secret);
    // OAuth: the code in the consent's Location, then in the verify request.
    const oauth = (await request(sandbox.url).post(auth("init")).send({ type: "google", redirectUrl: "http://localhost:3000/callback" })).body;
    const consent = await request(sandbox.url).get(`/_sandbox/oauth/consent?projectId=${projectId}&flowId=${oauth.flowId}&sub=evidence-sub`);
    const oauthCode = new URL(consent.headers.location!).searchParams.get("code")!;
    const oauthSignedIn = (await request(sandbox.url).post(auth("verify/oauth/google")).send({ flowId: oauth.flowId, code: oauthCode })).body;
    secrets.push(oauthCode, oauthSignedIn.accessToken, oauthSignedIn.refreshToken);
    // An end user's session from the admin API: the Temporary Wallet Secret.
    const session = await endUserSession(sandbox, userId);
    secrets.push(session.walletSecret, session.accessToken);
    // A key export (encrypted to the caller's key, still the key), a webhook signing secret, the project's credentials.
    const { address } = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body;
    const { generateKeyPairSync } = await import("node:crypto");
    const exportEncryptionKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const exported = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/export`, { body: { exportEncryptionKey }, wallet: true });
    expect(exported.status, exported.text).toBe(200);
    secrets.push(exported.body.encryptedPrivateKey);
    const hook = await call(sandbox, "POST", "/platform/v2/data/webhooks/subscriptions", {
      body: {
        eventTypes: ["onchain.activity.detected"],
        isEnabled: true,
        target: { url: "https://hooks.example.com/x" },
        labels: { contract_address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" },
      },
    });
    expect(hook.status, hook.text).toBe(201);
    secrets.push(hook.body.secret);
    const project = await call(sandbox, "GET", `/_sandbox/projects/${projectId}`, { anonymous: true });
    secrets.push(...["apiKeySecret", "walletSecret", "clientApiKey"].map((k) => project.body[k]).filter((v): v is string => typeof v === "string"));
    expect(
      secrets.every((x) => typeof x === "string" && x.length >= 6),
      JSON.stringify(secrets),
    ).toBe(true);

    sandbox.flushJournal();
    const listed = (await request(sandbox.url).get("/_sandbox/requests?limit=1000")).body;
    const details = await Promise.all(
      (listed.requests as Array<{ correlationId: string }>).map(async (r) => (await request(sandbox.url).get(`/_sandbox/requests/${r.correlationId}`)).text),
    );
    const har = (await request(sandbox.url).get("/_sandbox/requests.har")).text;
    const file = readFileSync(join(dir, "journal.jsonl"), "utf8");
    for (const [name, text] of [
      ["details", details.join("\n")],
      ["HAR", har],
      ["journal file", file],
    ] as const) {
      expect(text).toContain("<removed>");
      for (const secret of secrets) expect(text.includes(secret), `${name} holds ${secret.slice(0, 12)}…`).toBe(false);
    }
    // What the redaction keeps: the inbox's own answer, and the journal's bodies otherwise.
    expect((await request(sandbox.url).get("/_sandbox/messages?to=evidence@example.com")).body.messages[0].code).toBe(code);
    expect(har).toContain("evidence@example.com");
  });

  it("are created readable by their owner only (0600): the state file, the journal and an export", async () => {
    const exportFile = join(dir, "export.json");
    const other = await withSandbox({
      seed: "third-pass-modes",
      data: join(dir, "modes-state.json"),
      journal: join(dir, "modes.jsonl"),
      exportOnExit: exportFile,
    });
    await call(other, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true });
    await other.close();
    for (const file of ["modes-state.json", "modes.jsonl", "export.json"]) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
  });

  it("the credentials file is owner-only, also when an earlier run left it readable by all", async () => {
    const credentials = join(dir, "credentials.json");
    writeFileSync(credentials, "{}", { mode: 0o644 });
    const running = startNode([cliPath, "--port", "0", "--credentials-file", credentials]);
    try {
      await running.waitFor(/cdp-sandbox ready/);
      expect(statSync(credentials).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(credentials, "utf8")).apiKeySecret).toEqual(expect.any(String));
    } finally {
      running.child.kill("SIGTERM");
      await running.finished.catch(() => undefined);
    }
  });
});

describe("one-time sign-in codes across flows", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "third-pass-sign-in-limits" });
    sandbox.clock.freeze(true);
  });
  afterAll(() => sandbox.close());

  const project = async () => {
    const p = await sandbox.createProject();
    const auth = (path: string) => `/platform/v2/embedded-wallet-api/projects/${p.projectId}/auth/${path}`;
    const start = (email: string) => request(sandbox.url).post(auth("init")).send({ type: "email", email });
    const verify = (flowId: string, otp: string) => request(sandbox.url).post(auth("verify/email")).send({ flowId, otp });
    const inbox = async (to: string) =>
      (await request(sandbox.url).get(`/_sandbox/messages?to=${to}`).set("X-Sandbox-Project", p.projectId)).body.messages as Array<{
        flowId: string;
        code: string;
      }>;
    const settings = (signInRateLimits: object) =>
      request(sandbox.url)
        .patch(`/_sandbox/projects/${p.projectId}`)
        .send({ settings: { embeddedWallets: { signInRateLimits } } });
    return { start, verify, inbox, settings };
  };
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

  it("open 10 flows per address per 10 minutes: the 11th is refused (429) and sends nothing; another address is not held up", async () => {
    const p = await project();
    for (let i = 0; i < 10; i++) expect((await p.start("target@example.com")).status).toBe(200);
    expectRefused(await p.start("target@example.com"), 429, "rate_limit_exceeded");
    expectRefused(await p.start("TARGET@example.com"), 429, "rate_limit_exceeded");
    expect(await p.inbox("target@example.com")).toHaveLength(10);
    expect((await p.start("someone-else@example.com")).status).toBe(200);
    sandbox.clock.advance(600_000);
    expect((await p.start("target@example.com")).status).toBe(200);
  });

  it("check 20 codes per address per 10 minutes, right or wrong, across flows: past it even the right code is refused", async () => {
    const p = await project();
    const email = "guessed@example.com";
    for (let f = 0; f < 5; f++) {
      const { flowId } = (await p.start(email)).body;
      const code = (await p.inbox(email)).find((m) => m.flowId === flowId)!.code;
      for (let i = 0; i < 4; i++) expectRefused(await p.verify(flowId, wrong(code)), 400, "invalid_request");
    }
    const { flowId } = (await p.start(email)).body;
    const code = (await p.inbox(email)).find((m) => m.flowId === flowId)!.code;
    expectRefused(await p.verify(flowId, code), 429, "rate_limit_exceeded");
    // The refusal used nothing up (the flow is still open, its count unchanged); once the window passed, the
    // address signs in again (with a new flow: this one has expired by then).
    sandbox.clock.advance(540_000);
    expectRefused(await p.verify(flowId, code), 429, "rate_limit_exceeded");
    sandbox.clock.advance(60_000);
    const next = (await p.start(email)).body.flowId as string;
    expect((await p.verify(next, (await p.inbox(email)).find((m) => m.flowId === next)!.code)).status).toBe(200);
  });

  it("are limited per project too, and a project setting raises the limits for a load test", async () => {
    const p = await project();
    expect((await p.settings({ flowsPerProject: 3 })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await p.start(`user${i}@example.com`)).status).toBe(200);
    expectRefused(await p.start("user3@example.com"), 429, "rate_limit_exceeded");
    expect((await p.settings({ flowsPerProject: 10_000, flowsPerIdentity: 100 })).status).toBe(200);
    for (let i = 0; i < 60; i++) expect((await p.start("load@example.com")).status).toBe(200);
  });
});

describe("custom authentication JWTs", () => {
  let sandbox: Sandbox;
  let idp: Server;
  let jwksUrl: string;
  let fetches = 0;
  let hang = false;
  let privateKey: CryptoKey;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "third-pass-custom-jwt" });
    const pair = await generateKeyPair("RS256");
    privateKey = pair.privateKey as CryptoKey;
    const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256" }] };
    idp = createServer((_req, res) => {
      fetches++;
      if (hang) return; // never answers
      res.setHeader("content-type", "application/json").end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
    jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(async () => {
    idp.closeAllConnections();
    idp.close();
    await sandbox.close();
  });

  const configure = (p: { projectId: string }, customAuth: object) =>
    request(sandbox.url)
      .patch(`/_sandbox/projects/${p.projectId}`)
      .send({ settings: { embeddedWallets: { customAuth } } });
  const nowS = () => Math.floor(sandbox.clock.now() / 1000);
  const jwt = (claims: { exp?: number; iat?: number }, kid = "k1") => {
    const token = new SignJWT({}).setProtectedHeader({ alg: "RS256", kid }).setIssuer("https://idp.example").setAudience("shop").setSubject("jwt-user");
    if (claims.iat !== undefined) token.setIssuedAt(claims.iat);
    if (claims.exp !== undefined) token.setExpirationTime(claims.exp);
    return token.sign(privateKey);
  };
  const authenticate = async (p: { projectId: string }, token: string) =>
    request(sandbox.url).post(`/platform/v2/embedded-wallet-api/projects/${p.projectId}/auth/custom/authenticate`).set("authorization", `Bearer ${token}`);

  it("are refused without exp, or living longer than a day; a configuration without audience is refused when written", async () => {
    const p = await sandbox.createProject();
    const refusedConfig = await configure(p, { jwksUrl, issuer: "https://idp.example" });
    expectRefused(refusedConfig, 400, "invalid_request");
    expect(refusedConfig.body.errorMessage).toMatch(/audience is required/);
    expect((await request(sandbox.url).get(`/_sandbox/projects/${p.projectId}`)).body.settings.embeddedWallets).toBeUndefined();
    expect((await configure(p, { jwksUrl, issuer: "https://idp.example", audience: "shop" })).status).toBe(200);

    expectRefused(await authenticate(p, await jwt({})), 401, "unauthorized");
    expectRefused(await authenticate(p, await jwt({ iat: nowS(), exp: nowS() + 2 * 86_400 })), 401, "unauthorized");
    expectRefused(await authenticate(p, await jwt({ exp: nowS() + 2 * 86_400 })), 401, "unauthorized");
    const ok = await authenticate(p, await jwt({ iat: nowS(), exp: nowS() + 3600 }));
    expect(ok.status, ok.text).toBe(200);
  });

  it("with made-up key ids make the sandbox fetch the JWKS again at most once per 30 seconds, not once per request", async () => {
    const p = await sandbox.createProject();
    const url = `${jwksUrl}?kids`; // a URL of its own: a cache of its own
    expect((await configure(p, { jwksUrl: url, issuer: "https://idp.example", audience: "shop" })).status).toBe(200);
    expect((await authenticate(p, await jwt({ iat: nowS(), exp: nowS() + 300 }))).status).toBe(200);
    const before = fetches;
    for (let i = 0; i < 20; i++) expectRefused(await authenticate(p, await jwt({ iat: nowS(), exp: nowS() + 300 }, `made-up-${i}`)), 401, "unauthorized");
    expect(fetches - before).toBeLessThanOrEqual(1);
  });

  it("fetch keys outside the project's lock, giving up after 2 s: a silent identity provider holds no other request", async () => {
    const p = await sandbox.createProject();
    expect((await configure(p, { jwksUrl: `${jwksUrl}?silent`, issuer: "https://idp.example", audience: "shop" })).status).toBe(200);
    hang = true;
    try {
      const order: string[] = [];
      const token = await jwt({ iat: nowS(), exp: nowS() + 300 });
      const waiting = authenticate(p, token).then((res) => {
        order.push("custom-auth");
        return res;
      });
      // A write to the same project, which takes its lock, while the key set is being fetched.
      const write = call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true, credentials: p }).then((res) => {
        order.push("write");
        return res;
      });
      const [refused, written] = await Promise.all([waiting, write]);
      expect(written.status, written.text).toBe(201);
      expectRefused(refused, 401, "unauthorized");
      expect(refused.body.errorMessage).toMatch(/could not be fetched/);
      expect(order).toEqual(["write", "custom-auth"]);
    } finally {
      hang = false;
    }
  });
});
