/**
 * @coinbase/cdp-core itself (the embedded-wallet client of the React kit) signs users in against the sandbox, in
 * Node with an in-memory storage shim: email and SMS codes read from the inbox, Sign-In with Ethereum signed with
 * viem, OAuth through the consent page, and the developer's own JWT (custom auth). `createOnLogin` makes the EVM,
 * smart and Solana accounts; the developer's server sees the same users through @coinbase/cdp-sdk; a message the
 * client signs with its registered Temporary Wallet Secret verifies with viem.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import request from "supertest";
import { type Hex, verifyMessage } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { installBrowserGlobals } from "#test/helpers/browserGlobals.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

installBrowserGlobals();

type Core = typeof import("@coinbase/cdp-core");
let core: Core;
let sandbox: Sandbox;
let cdp: CdpClient;
let projectId: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "cdp-core-sign-in", validateResponses: true });
  projectId = sandbox.credentials.projectId;
  cdp = cdpClientFor(sandbox);
  core = await import("@coinbase/cdp-core");
  await core.initialize({
    projectId,
    basePath: sandbox.basePath,
    ethereum: { createOnLogin: "smart" },
    solana: { createOnLogin: true },
    disableAnalytics: true,
  });
});
afterAll(async () => {
  await core?.signOut().catch(() => undefined);
  await sandbox.close();
});

async function codeSentTo(to: string, flowId: string) {
  const res = await request(sandbox.url).get(`/_sandbox/messages?to=${encodeURIComponent(to)}`);
  const message = (res.body.messages as Array<{ flowId: string; code: string }>).find((m) => m.flowId === flowId);
  if (!message) throw new Error(`no code for ${flowId} in ${to}'s inbox`);
  return message.code;
}

describe("@coinbase/cdp-core signs users in", () => {
  it("starts with nobody signed in (the start-up refresh is refused and the config is read)", async () => {
    expect(await core.isSignedIn()).toBe(false);
    expect(core.getProjectConfigState()?.projectId).toBe(projectId);
    expect(core.getMfaConfigState()?.projectId).toBe(projectId);
  });

  it("by email: the code from the inbox signs a new user in and createOnLogin makes EVM, smart and Solana accounts", async () => {
    const { flowId } = await core.signInWithEmail({ email: "ada@example.com" });
    const { user, isNewUser } = await core.verifyEmailOTP({ flowId, otp: await codeSentTo("ada@example.com", flowId) });
    expect(isNewUser).toBe(true);
    expect(user.authenticationMethods.email?.email).toBe("ada@example.com");
    expect(user.evmAccountObjects).toHaveLength(1);
    expect(user.evmSmartAccountObjects).toHaveLength(1);
    expect(user.solanaAccountObjects).toHaveLength(1);
    expect(user.evmSmartAccountObjects![0]!.ownerAddresses).toEqual([user.evmAccountObjects![0]!.address]);
    expect(await core.isSignedIn()).toBe(true);

    // The developer's server sees the same user and accounts.
    const seen = await cdp.endUser.getEndUser({ userId: user.userId });
    expect(seen.evmAccounts).toEqual([user.evmAccountObjects![0]!.address]);
    expect(seen.solanaAccounts).toEqual([user.solanaAccountObjects![0]!.address]);
    expect((await cdp.endUser.listEndUsers()).endUsers.map((u) => u.userId)).toContain(user.userId);

    // The client signs with its own Temporary Wallet Secret (registered through wallet-secrets) — checked with viem.
    const address = user.evmAccountObjects![0]!.address as Hex;
    const { signature } = await core.signEvmMessage({ evmAccount: address, message: "hello from the sandbox" });
    expect(await verifyMessage({ address, message: "hello from the sandbox", signature: signature as Hex })).toBe(true);

    // A refresh keeps the same user; signing out ends the session.
    const token = await core.getAccessToken();
    expect(token).toBeTruthy();
    await core.signOut();
    expect(await core.isSignedIn()).toBe(false);
    expect(localStorage.getItem("cdp_refresh_token")).toBeNull();
  });

  it("by SMS, and again by email as the same user with the same accounts", async () => {
    const sms = await core.signInWithSms({ phoneNumber: "+14155550123" });
    const signedIn = await core.verifySmsOTP({ flowId: sms.flowId, otp: await codeSentTo("+14155550123", sms.flowId) });
    expect(signedIn.user.authenticationMethods.sms?.phoneNumber).toBe("+14155550123");
    expect(signedIn.user.evmAccountObjects).toHaveLength(1);
    await core.signOut();

    const email = await core.signInWithEmail({ email: "ada@example.com" });
    const again = await core.verifyEmailOTP({ flowId: email.flowId, otp: await codeSentTo("ada@example.com", email.flowId) });
    expect(again.isNewUser).toBe(false);
    expect(again.user.evmAccountObjects).toHaveLength(1);
    expect(again.user.solanaAccountObjects).toHaveLength(1);
    await core.signOut();
  });

  it("by Sign-In with Ethereum, the message signed with viem", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { flowId, message } = await core.signInWithSiwe({ address: wallet.address, chainId: 8453, domain: "localhost:3000", uri: "http://localhost:3000" });
    const { user } = await core.verifySiweSignature({ flowId, signature: await wallet.signMessage({ message }) });
    expect(user.evmAccountObjects).toHaveLength(1);
    expect((await cdp.endUser.getEndUser({ userId: user.userId })).authenticationMethods).toEqual([{ type: "siwe", address: wallet.address }]);
    await core.signOut();
  });

  it("by OAuth: the code the consent page redirects back with is verified by the client", async () => {
    // In Node there is no page to redirect: start the flow and consent as the browser would, then hand the client the code.
    const init = await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/projects/${projectId}/auth/init`)
      .send({ type: "x", redirectUrl: "http://localhost:3000/" });
    const consent = await request(sandbox.url).get(`/_sandbox/oauth/consent?projectId=${projectId}&flowId=${init.body.flowId}&sub=x-42&username=grace`);
    const code = new URL(consent.headers.location!).searchParams.get("code")!;
    const { user } = await core.verifyOAuth({ flowId: init.body.flowId, code, providerType: "x" });
    expect(user.authenticationMethods.x).toMatchObject({ sub: "x-42", username: "grace" });
    await core.signOut();
  });
});

describe("@coinbase/cdp-core with the developer's own JWT (custom auth)", () => {
  it("authenticates the JWT against the project's JWKS, issuer and audience and creates the user by sub", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "idp-key-1", alg: "ES256" };
    const project = await request(sandbox.url).post("/_sandbox/projects").send({ name: "custom-auth" });
    const otherProject = project.body.projectId as string;
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${otherProject}`)
      .send({ settings: { embeddedWallets: { customAuth: { jwks: { keys: [jwk] }, issuer: "https://idp.example", audience: "my-app" } } } });
    const jwtFor = (sub: string, issuer = "https://idp.example") =>
      new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "idp-key-1" })
        .setIssuer(issuer)
        .setAudience("my-app")
        .setSubject(sub)
        .setIssuedAt(Math.floor(sandbox.clock.now() / 1000))
        .setExpirationTime(Math.floor(sandbox.clock.now() / 1000) + 600)
        .sign(privateKey);

    // Another issuer's JWT is refused and creates nobody.
    const stranger = await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/projects/${otherProject}/auth/custom/authenticate`)
      .set("authorization", `Bearer ${await jwtFor("mallory", "https://evil.example")}`);
    expect(stranger.status).toBe(401);

    const jwt = await jwtFor("user-7");
    await core.initialize({
      projectId: otherProject,
      basePath: sandbox.basePath,
      ethereum: { createOnLogin: "eoa" },
      customAuth: { getJwt: async () => jwt },
      disableAnalytics: true,
    });
    const { user, isNewUser } = await core.authenticateWithJWT();
    expect(isNewUser).toBe(true);
    expect(user.evmAccountObjects).toHaveLength(1);
    const address = user.evmAccountObjects![0]!.address as Hex;
    const { signature } = await core.signEvmMessage({ evmAccount: address, message: "custom" });
    expect(await verifyMessage({ address, message: "custom", signature: signature as Hex })).toBe(true);
  });
});
