/**
 * Embedded-wallet sign-in over HTTP, as the end user's client performs it: one-time codes through the inbox (random,
 * single use, expiring and locking on the sandbox clock), SIWE checked with viem, OAuth through the consent page,
 * refresh and logout, linking, and the refusals that change nothing.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CdpClient } from "@coinbase/cdp-sdk";
import { encodeAbiParameters, encodeFunctionData, hashMessage, hashTypedData, pad, parseAbi, serializeErc6492Signature } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

async function inbox(to: string) {
  const res = await request(sandbox.url).get(`/_sandbox/messages?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return res.body.messages as Array<{ to: string; channel: string; code: string; flowId: string; sentAt: string }>;
}

async function signInByEmail(email: string, headers: Record<string, string> = {}) {
  const init = await request(sandbox.url).post(auth("init")).set(headers).send({ type: "email", email });
  expect(init.status).toBe(200);
  const [message] = await inbox(email);
  expect(message!.flowId).toBe(init.body.flowId);
  return request(sandbox.url).post(auth("verify/email")).set(headers).send({ flowId: init.body.flowId, otp: message!.code });
}

const endUserCount = async () => (await call(sandbox, "GET", "/platform/v2/end-users")).body.endUsers.length as number;

describe("email and SMS one-time codes", () => {
  it("records a random 6-digit code in the inbox, newest first, and signs a new end user in with it", async () => {
    const first = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "Ada@Example.com" });
    const second = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "ada@example.com" });
    expect(first.body.nextStep.type).toBe("verify-otp");
    const messages = await inbox("ADA@example.com");
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
    const next = await signInByEmail("ada@example.com");
    expect(next.body).toMatchObject({ isNewEndUser: false, endUser: { userId: verified.body.endUser.userId } });
  });

  it("counts wrong codes and locks the flow at the fifth, even for the right code afterwards", async () => {
    const init = await request(sandbox.url).post(auth("init")).send({ type: "sms", phoneNumber: "+14155550100" });
    const [message] = await inbox("+14155550100");
    expect(message!.channel).toBe("sms");
    const wrong = message!.code === "000000" ? "000001" : "000000";
    const before = await endUserCount();
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
    expect(await endUserCount()).toBe(before);
  });

  it("expires codes after 10 minutes of sandbox time", async () => {
    const init = await request(sandbox.url).post(auth("init")).send({ type: "email", email: "late@example.com" });
    const [message] = await inbox("late@example.com");
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
    const signedIn = await signInByEmail("refresh@example.com");
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
    const signedIn = await signInByEmail("cookie@example.com", chrome);
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

describe("Sign-In with Ethereum", () => {
  it("verifies the EIP-4361 message's signature with viem and refuses another signer or another page's domain", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const init = await request(sandbox.url)
      .post(auth("init"))
      .set("origin", "http://localhost:5173")
      .send({ type: "siwe", address: wallet.address, chainId: 8453, domain: "localhost:5173", uri: "http://localhost:5173/" });
    expect(init.status).toBe(200);
    expect(init.body.message).toContain(`Nonce: ${init.body.nonce}`);
    expect(init.body.message).toContain(`Expiration Time: ${init.body.expirationTime}`);
    const intruder = privateKeyToAccount(generatePrivateKey());
    const forged = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: init.body.flowId, signature: await intruder.signMessage({ message: init.body.message }) });
    expect(forged.status).toBe(400);
    expect(forged.body.errorType).toBe("invalid_signature");
    const ok = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: init.body.flowId, signature: await wallet.signMessage({ message: init.body.message }) });
    expect(ok.status).toBe(200);
    expect(ok.body.endUser.authenticationMethods).toEqual([{ type: "siwe", address: wallet.address }]);

    const elsewhere = await request(sandbox.url)
      .post(auth("init"))
      .set("origin", "http://localhost:5173")
      .send({ type: "siwe", address: wallet.address, chainId: 8453, domain: "evil.example", uri: "https://evil.example/" });
    expect(elsewhere.status).toBe(400);
  });

  it("verifies a smart wallet's ERC-1271 signature, plain or ERC-6492-wrapped, by its owner only", async () => {
    const { apiKeyId, apiKeySecret, walletSecret } = sandbox.credentials;
    const cdp = new CdpClient({ apiKeyId, apiKeySecret, walletSecret, basePath: sandbox.basePath });
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = await cdp.evm.createSmartAccount({ owner });
    const signAsWallet = async (signer: typeof owner, message: string) => {
      // What a Coinbase Smart Wallet's owner signs: the replay-safe EIP-712 wrapper of the message's hash.
      const replaySafe = hashTypedData({
        domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 8453, verifyingContract: smart.address },
        types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
        primaryType: "CoinbaseSmartWalletMessage",
        message: { hash: hashMessage(message) },
      });
      return encodeAbiParameters(
        [
          {
            type: "tuple",
            components: [
              { name: "ownerIndex", type: "uint8" },
              { name: "signatureData", type: "bytes" },
            ],
          },
        ],
        [{ ownerIndex: 0, signatureData: await signer.sign({ hash: replaySafe }) }],
      );
    };
    const start = () =>
      request(sandbox.url)
        .post(auth("init"))
        .send({ type: "siwe", address: smart.address, chainId: 8453, domain: "localhost:3000", uri: "http://localhost:3000/" });

    const stranger = await start();
    const forged = await signAsWallet(privateKeyToAccount(generatePrivateKey()), stranger.body.message);
    expect((await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: stranger.body.flowId, signature: forged })).status).toBe(400);

    const plain = await start();
    const ok = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: plain.body.flowId, signature: await signAsWallet(owner, plain.body.message) });
    expect(ok.status).toBe(200);

    const wrapped = await start();
    const factoryData = encodeFunctionData({ abi: parseAbi(["function createAccount(bytes[] owners, uint256 nonce)"]), args: [[pad(owner.address)], 0n] });
    const signature = serializeErc6492Signature({
      address: "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842",
      data: factoryData,
      signature: await signAsWallet(owner, wrapped.body.message),
    });
    const again = await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: wrapped.body.flowId, signature });
    expect(again.status).toBe(200);
    expect(again.body.endUser.userId).toBe(ok.body.endUser.userId);
  });

  it("refuses a signed message after its expiry", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const init = await request(sandbox.url)
      .post(auth("init"))
      .send({ type: "siwe", address: wallet.address, chainId: 1, domain: "localhost:3000", uri: "http://localhost:3000/" });
    const signature = await wallet.signMessage({ message: init.body.message });
    sandbox.clock.advance(11 * 60_000);
    const res = await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: init.body.flowId, signature });
    expect(res.status).toBe(400);
  });
});

describe("OAuth through the sandbox's consent page", () => {
  it("redirects back with code, flow_id and provider_type, and the code signs the chosen identity in", async () => {
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

describe("custom authentication with a JWKS served on this machine", () => {
  it("verifies the developer's JWT with keys fetched from a loopback URL, and refuses another audience or a remote URL", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256" }] };
    const idp = createServer((_req, res) => res.setHeader("content-type", "application/json").end(JSON.stringify(jwks)));
    await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/.well-known/jwks.json`;
    try {
      const configure = (customAuth: object) =>
        request(sandbox.url)
          .patch(`/_sandbox/projects/${projectId}`)
          .send({ settings: { embeddedWallets: { customAuth } } });
      const jwt = (audience: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer("https://idp.example")
          .setAudience(audience)
          .setSubject("dev-user-1")
          .setExpirationTime(Math.floor(sandbox.clock.now() / 1000) + 300)
          .sign(privateKey);
      const authenticate = async (audience: string) =>
        request(sandbox.url)
          .post(auth("custom/authenticate"))
          .set("authorization", `Bearer ${await jwt(audience)}`);
      await configure({ jwksUrl, issuer: "https://idp.example", audience: "shop" });
      const before = await endUserCount();
      expect((await authenticate("another-app")).status).toBe(401);
      expect(await endUserCount()).toBe(before);
      const ok = await authenticate("shop");
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ isNewEndUser: true, endUser: { authenticationMethods: [{ type: "jwt", kid: "k1", sub: "dev-user-1" }] } });
      await configure({ jwksUrl: "https://idp.example/jwks.json", issuer: "https://idp.example", audience: "shop" });
      expect((await authenticate("shop")).status).toBe(401);
    } finally {
      idp.close();
      await request(sandbox.url)
        .patch(`/_sandbox/projects/${projectId}`)
        .send({ settings: { embeddedWallets: {} } });
    }
  });
});

describe("linking", () => {
  it("links a method verified while signed in to the same end user, and refuses one another end user has", async () => {
    const ada = await signInByEmail("link-a@example.com");
    const bearer = { authorization: `Bearer ${ada.body.accessToken}` };
    const init = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "sms", phoneNumber: "+14155550111" });
    const [message] = await inbox("+14155550111");
    const linked = await request(sandbox.url).post(auth("verify/sms")).set(bearer).send({ flowId: init.body.flowId, otp: message!.code });
    expect(linked.status).toBe(200);
    expect(linked.body.isNewEndUser).toBe(false);
    expect(linked.body.endUser.userId).toBe(ada.body.endUser.userId);
    expect(linked.body.endUser.authenticationMethods).toEqual([
      { type: "email", email: "link-a@example.com" },
      { type: "sms", phoneNumber: "+14155550111" },
    ]);
    await signInByEmail("link-b@example.com");
    const steal = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "email", email: "link-b@example.com" });
    const [code] = await inbox("link-b@example.com");
    const refused = await request(sandbox.url).post(auth("verify/email")).set(bearer).send({ flowId: steal.body.flowId, otp: code!.code });
    expect(refused.status).toBe(409);
    const twice = await request(sandbox.url).post(auth("init")).set(bearer).send({ type: "email", email: "link-a@example.com" });
    const [own] = await inbox("link-a@example.com");
    const already = await request(sandbox.url).post(auth("verify/email")).set(bearer).send({ flowId: twice.body.flowId, otp: own!.code });
    expect(already.status).toBe(409);
    expect(already.body.errorMessage).toContain("This end user already signs in");
  });
});

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
      .send({ settings: { delegationEnabled: true, embeddedWallets: {} } });
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
