/** cdp.endUser management flows against the sandbox. */
import { CdpClient } from "@coinbase/cdp-sdk";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startSandbox, type Sandbox } from "cdp-sandbox";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-end-users" });
  const { apiKeyId, apiKeySecret, walletSecret } = sandbox.credentials;
  cdp = new CdpClient({ apiKeyId, apiKeySecret, walletSecret, basePath: sandbox.basePath });
});
afterAll(() => sandbox.close());

describe("@coinbase/cdp-sdk end users", () => {
  it("creates, gets, lists and adds accounts", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "sdk@example.com" }], evmAccount: { createSmartAccount: true } });
    expect(user.evmAccounts).toHaveLength(1);
    expect(user.evmSmartAccounts).toHaveLength(1);
    expect((await cdp.endUser.getEndUser({ userId: user.userId })).userId).toBe(user.userId);
    expect((await cdp.endUser.listEndUsers()).endUsers.map((u) => u.userId)).toContain(user.userId);
    const evm = await cdp.endUser.addEndUserEvmAccount({ userId: user.userId });
    expect(evm.evmAccount.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const sol = await cdp.endUser.addEndUserSolanaAccount({ userId: user.userId });
    expect(sol.solanaAccount.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const smart = await cdp.endUser.addEndUserEvmSmartAccount({ userId: user.userId, enableSpendPermissions: false });
    expect(smart.evmSmartAccount.ownerAddresses).toEqual([user.evmAccounts[0]]);
  });

  it("imports an end user with the sandbox's encryptionPublicKey", async () => {
    const key = generatePrivateKey();
    const user = await cdp.endUser.importEndUser({ authenticationMethods: [{ type: "email", email: "imported@example.com" }], privateKey: key, keyType: "evm", encryptionPublicKey: sandbox.importKeyPem });
    expect(user.evmAccounts).toEqual([privateKeyToAccount(key).address]);
  });

  it("validates an access token issued by the sandbox", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "token@example.com" }] });
    const issued = await request(sandbox.url).post(`/_sandbox/end-users/${user.userId}/token`).send({});
    const validated = await cdp.endUser.validateAccessToken({ accessToken: issued.body.accessToken });
    expect(validated.userId).toBe(user.userId);
  });
});
