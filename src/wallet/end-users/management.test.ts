import { constants, publicEncrypt } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-users" });
});
afterAll(() => sandbox.close());

const USERS = "/platform/v2/end-users";
const create = (body: object) => call(sandbox, "POST", USERS, { body, wallet: true });
const token = (userId: string) => request(sandbox.url).post(`/_sandbox/end-users/${userId}/token`).send({});

describe("end user account management", () => {
  it("creates an end user with an EVM account, optionally a smart account and a Solana account", async () => {
    const res = await create({
      userId: "ada-1",
      authenticationMethods: [{ type: "email", email: "ada@example.com" }],
      evmAccount: { createSmartAccount: true },
      solanaAccount: {},
    });
    expect(res.status).toBe(201);
    expect(res.body.userId).toBe("ada-1");
    expect(res.body.evmAccounts).toHaveLength(1);
    expect(res.body.evmAccountObjects[0].address).toBe(res.body.evmAccounts[0]);
    expect(res.body.evmSmartAccountObjects[0].ownerAddresses).toEqual([res.body.evmAccounts[0]]);
    expect(res.body.solanaAccounts[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it("refuses a taken userId or sign-in identity, and keeps nothing", async () => {
    await create({ userId: "grace-1", authenticationMethods: [{ type: "sms", phoneNumber: "+14155550100" }] });
    expect((await create({ userId: "grace-1", authenticationMethods: [{ type: "sms", phoneNumber: "+14155550199" }] })).status).toBe(400);
    const sameEmail = await create({ userId: "grace-2", authenticationMethods: [{ type: "sms", phoneNumber: "+14155550100" }] });
    expect(sameEmail.status).toBe(400);
    expect(sameEmail.body.errorMessage).toMatch(/grace-1/);
    expect((await call(sandbox, "GET", `${USERS}/grace-2`)).status).toBe(404);
  });

  it("gets, lists sorted and paginated, and looks up by email, phone, siwe and oauth", async () => {
    await create({
      userId: "look-1",
      authenticationMethods: [
        { type: "email", email: "look@example.com" },
        { type: "google", sub: "g-123" },
      ],
    });
    await create({ userId: "look-2", authenticationMethods: [{ type: "siwe", address: "0x1111111111111111111111111111111111111111" }] });
    expect((await call(sandbox, "GET", `${USERS}/look-1`)).body.userId).toBe("look-1");
    const byEmail = await call(sandbox, "GET", `${USERS}/lookup?email=LOOK@example.com`);
    expect(byEmail.body.endUsers.map((u: { userId: string }) => u.userId)).toEqual(["look-1"]);
    expect((await call(sandbox, "GET", `${USERS}/lookup?oauthProvider=google&oauthSubject=g-123`)).body.endUsers[0].userId).toBe("look-1");
    expect((await call(sandbox, "GET", `${USERS}/lookup?siweAddress=0x1111111111111111111111111111111111111111`)).body.endUsers[0].userId).toBe("look-2");
    expect((await call(sandbox, "GET", `${USERS}/lookup?phoneNumber=%2B19999999999`)).body.endUsers).toEqual([]);
    expect((await call(sandbox, "GET", `${USERS}/lookup`)).status).toBe(400);
    const page = await call(sandbox, "GET", `${USERS}?pageSize=1&sort=createdAt=desc`);
    expect(page.body.endUsers).toHaveLength(1);
    expect(page.body.nextPageToken).toEqual(expect.any(String));
    expect((await call(sandbox, "GET", `${USERS}/nobody-here`)).status).toBe(404);
  });

  it("adds EVM, smart and Solana accounts to an end user", async () => {
    await create({ userId: "adds-1", authenticationMethods: [{ type: "email", email: "adds@example.com" }] });
    expect((await call(sandbox, "POST", `${USERS}/adds-1/evm`, { body: {}, wallet: true })).status).toBe(201);
    const smart = await call(sandbox, "POST", `${USERS}/adds-1/evm-smart-account`, { body: {}, wallet: true });
    expect(smart.status).toBe(201);
    const sol = await call(sandbox, "POST", `${USERS}/adds-1/solana`, { body: {}, wallet: true });
    expect(sol.body.solanaAccount.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const user = (await call(sandbox, "GET", `${USERS}/adds-1`)).body;
    expect(user.evmAccounts).toHaveLength(2);
    expect(user.evmSmartAccounts).toEqual([smart.body.evmSmartAccount.address]);
    expect((await call(sandbox, "POST", `${USERS}/nobody/evm`, { body: {}, wallet: true })).status).toBe(404);
  });

  it("enables spend permissions on an end user's smart account: the SpendPermissionManager is the second owner, and the address follows", async () => {
    const MANAGER = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad";
    const created = await create({
      userId: "spender-1",
      authenticationMethods: [{ type: "email", email: "spender@example.com" }],
      evmAccount: { createSmartAccount: true, enableSpendPermissions: true },
    });
    expect(created.status).toBe(201);
    const eoa = created.body.evmAccounts[0];
    expect(created.body.evmSmartAccountObjects[0].ownerAddresses).toEqual([eoa, MANAGER]);
    const added = await call(sandbox, "POST", `${USERS}/spender-1/evm-smart-account`, { body: { enableSpendPermissions: true }, wallet: true });
    expect(added.body.evmSmartAccount.ownerAddresses).toEqual([eoa, MANAGER]);
    const plain = await call(sandbox, "POST", `${USERS}/spender-1/evm-smart-account`, { body: {}, wallet: true });
    expect(plain.body.evmSmartAccount.ownerAddresses).toEqual([eoa]);
    // The same owners give the same counterfactual address as a project smart account created with them.
    const other = await sandbox.createProject("spender-owners");
    const same = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [eoa, MANAGER] }, credentials: other });
    expect(same.body.address).toBe(created.body.evmSmartAccounts[0]);
    expect(new Set([created.body.evmSmartAccounts[0], added.body.evmSmartAccount.address, plain.body.evmSmartAccount.address]).size).toBe(3);
  });

  it("imports an end user with an EVM key encrypted under the import key; a taken userId is 409", async () => {
    const key = generatePrivateKey();
    const encryptedPrivateKey = publicEncrypt(
      { key: sandbox.importKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
      Buffer.from(key.slice(2), "hex"),
    ).toString("base64");
    const body = { userId: "imported-1", authenticationMethods: [{ type: "email", email: "imp@example.com" }], encryptedPrivateKey, keyType: "evm" };
    const res = await call(sandbox, "POST", `${USERS}/import`, { body, wallet: true });
    expect(res.status).toBe(201);
    expect(res.body.evmAccounts).toEqual([privateKeyToAccount(key).address]);
    expect((await call(sandbox, "POST", `${USERS}/import`, { body, wallet: true })).status).toBe(409);
  });

  it("validates access tokens the sandbox issued, until they expire on the sandbox clock", async () => {
    await create({ userId: "tok-1", authenticationMethods: [{ type: "email", email: "tok@example.com" }] });
    const issued = await token("tok-1");
    expect(issued.status).toBe(201);
    const ok = await call(sandbox, "POST", `${USERS}/auth/validate-token`, { body: { accessToken: issued.body.accessToken } });
    expect(ok.status).toBe(200);
    expect(ok.body.userId).toBe("tok-1");
    sandbox.clock.advance(2 * 60 * 60 * 1000);
    const expired = await call(sandbox, "POST", `${USERS}/auth/validate-token`, { body: { accessToken: issued.body.accessToken } });
    expect(expired.status).toBe(401);
    expect(expired.body.errorMessage).toMatch(/expired/);
    const garbage = await call(sandbox, "POST", `${USERS}/auth/validate-token`, { body: { accessToken: "not-a-token" } });
    expect(garbage.status).toBe(400);
    expect((await token("nobody")).status).toBe(404);
  });

  it("rejects a token of another project", async () => {
    await create({ userId: "cross-1", authenticationMethods: [{ type: "email", email: "cross@example.com" }] });
    const issued = await token("cross-1");
    const other = await sandbox.createProject("other");
    const res = await call(sandbox, "POST", `${USERS}/auth/validate-token`, { body: { accessToken: issued.body.accessToken }, credentials: other });
    expect(res.status).toBe(401);
  });
});
