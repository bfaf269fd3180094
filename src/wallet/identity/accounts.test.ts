/**
 * What a signed-in end user's client does next, over HTTP: register its own Temporary Wallet Secret, create the
 * accounts createOnLogin asks for (signed with that secret), read itself — and the refusals that change nothing:
 * another user's secret id or record, a key that is not P-256, a secret never registered, an owner not theirs.
 */
import { generateKeyPairSync } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call, type EndUserSession } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
const EW = "/platform/v2/embedded-wallet-api/end-users";

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-auth-accounts", validateResponses: true });
  await request(sandbox.url)
    .patch(`/_sandbox/projects/${sandbox.credentials.projectId}`)
    .send({ settings: { embeddedWallets: { testCodes: { "ada@example.com": "111111", "bob@example.com": "222222" } } } });
});
afterAll(() => sandbox.close());

/** Signs in by email (the project's fixed test code) and registers a fresh P-256 key as the client does. */
async function signIn(email: string, code: string, walletSecretId: string): Promise<EndUserSession> {
  const auth = `/platform/v2/embedded-wallet-api/projects/${sandbox.credentials.projectId}/auth`;
  const init = await request(sandbox.url).post(`${auth}/init`).send({ type: "email", email });
  const verified = await request(sandbox.url).post(`${auth}/verify/email`).send({ flowId: init.body.flowId, otp: code });
  expect(verified.status).toBe(200);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const session: EndUserSession = {
    userId: verified.body.endUser.userId,
    accessToken: verified.body.accessToken,
    walletSecretId,
    walletSecret: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
  };
  const registered = await request(sandbox.url)
    .put(`${EW}/${session.userId}/wallet-secrets`)
    .set("authorization", `Bearer ${session.accessToken}`)
    .send({ walletSecretId, publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"), validUntil: verified.body.validUntil });
  expect(registered.status).toBe(200);
  expect(registered.body).toEqual({ walletSecretId, validUntil: verified.body.validUntil });
  return session;
}

describe("accounts on login", () => {
  let ada: EndUserSession;
  let bob: EndUserSession;
  beforeAll(async () => {
    ada = await signIn("ada@example.com", "111111", "a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0");
    bob = await signIn("bob@example.com", "222222", "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0");
  });

  it("creates EVM, smart and Solana accounts signed with the registered secret, answered as the whole end user", async () => {
    const evm = await call(sandbox, "POST", `${EW}/${ada.userId}/evm`, { endUser: ada, body: {} });
    expect(evm.status).toBe(201);
    const owner = evm.body.evmAccountObjects[0].address as string;
    const smart = await call(sandbox, "POST", `${EW}/${ada.userId}/evm/smart-accounts`, {
      endUser: ada,
      wallet: false,
      body: { owner, enableSpendPermissions: false, walletSecretId: undefined },
    });
    expect(smart.status).toBe(201);
    expect(smart.body.evmSmartAccountObjects[0].ownerAddresses).toEqual([owner]);
    const again = await call(sandbox, "POST", `${EW}/${ada.userId}/evm/smart-accounts`, {
      endUser: ada,
      wallet: false,
      body: { owner, enableSpendPermissions: false, walletSecretId: undefined },
    });
    expect(again.status).toBe(409);
    const solana = await call(sandbox, "POST", `${EW}/${ada.userId}/solana`, { endUser: ada, body: {} });
    expect(solana.status).toBe(201);
    const me = await call(sandbox, "GET", `${EW}/${ada.userId}`, { endUser: ada, wallet: false });
    expect(me.body.evmAccounts).toEqual([owner]);
    expect(me.body.solanaAccountObjects).toHaveLength(1);
    expect(me.body.lastAuthenticatedAt).toBeTruthy();
  });

  it("refuses another end user's record, secret id, owner and an unregistered secret, and changes nothing", async () => {
    expect((await call(sandbox, "GET", `${EW}/${bob.userId}`, { endUser: ada, wallet: false })).status).toBe(401);
    expect((await call(sandbox, "POST", `${EW}/${bob.userId}/evm`, { endUser: ada, body: {} })).status).toBe(401);

    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const spki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const taken = await request(sandbox.url)
      .put(`${EW}/${ada.userId}/wallet-secrets`)
      .set("authorization", `Bearer ${ada.accessToken}`)
      .send({ walletSecretId: bob.walletSecretId, publicKey: spki, validUntil: new Date(sandbox.clock.now() + 600_000).toISOString() });
    expect(taken.status).toBe(409);
    expect(taken.body.errorType).toBe("already_exists");
    // Bob's key still verifies Bob's calls.
    const bobs = await call(sandbox, "POST", `${EW}/${bob.userId}/evm`, { endUser: bob, body: {} });
    expect(bobs.status).toBe(201);

    const ed = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const notP256 = await request(sandbox.url)
      .put(`${EW}/${ada.userId}/wallet-secrets`)
      .set("authorization", `Bearer ${ada.accessToken}`)
      .send({ walletSecretId: "c0c0", publicKey: ed, validUntil: new Date(sandbox.clock.now() + 600_000).toISOString() });
    expect(notP256.status).toBe(400);
    const past = await request(sandbox.url)
      .put(`${EW}/${ada.userId}/wallet-secrets`)
      .set("authorization", `Bearer ${ada.accessToken}`)
      .send({ walletSecretId: "c0c1", publicKey: spki, validUntil: new Date(sandbox.clock.now() - 1000).toISOString() });
    expect(past.status).toBe(400);

    const unregistered = await call(sandbox, "POST", `${EW}/${ada.userId}/evm`, { endUser: { ...ada, walletSecretId: "c0c0" }, body: {} });
    expect(unregistered.status).toBe(401);

    const bobsOwner = bobs.body.evmAccounts[0];
    const foreignOwner = await call(sandbox, "POST", `${EW}/${ada.userId}/evm/smart-accounts`, {
      endUser: ada,
      wallet: false,
      body: { owner: bobsOwner, enableSpendPermissions: false, walletSecretId: undefined },
    });
    expect(foreignOwner.status).toBe(400);

    // Bob is as his own call left him; Ada has no smart account of Bob's owner.
    const after = await call(sandbox, "GET", `/platform/v2/end-users/${bob.userId}`);
    expect(after.body).toMatchObject({ evmAccounts: bobs.body.evmAccounts, evmSmartAccounts: [], solanaAccounts: [] });
    const adaNow = await call(sandbox, "GET", `/platform/v2/end-users/${ada.userId}`);
    expect(adaNow.body.evmSmartAccountObjects.every((a: { ownerAddresses: string[] }) => !a.ownerAddresses.includes(bobsOwner))).toBe(true);
  });

  it("refuses calls without the end user's access token", async () => {
    const anonymous = await request(sandbox.url).get(`${EW}/${ada.userId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ errorType: "unauthorized" });
    expect(anonymous.body.correlationId).toBeTruthy();
  });
});
