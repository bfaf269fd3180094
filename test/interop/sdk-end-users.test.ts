/** cdp.endUser management flows against the sandbox. */
import { CdpClient } from "@coinbase/cdp-sdk";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recoverMessageAddress, serializeTransaction, recoverTransactionAddress, verifyTypedData } from "viem";
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

  it("signs for an end user under a delegation grant, and fails with delegation_revoked after revoking", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "delegated@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    const token = (await request(sandbox.url).post(`/_sandbox/end-users/${user.userId}/token`).send({})).body.accessToken;
    await request(sandbox.url)
      .post(`/platform/v2/embedded-wallet-api/end-users/${user.userId}/address/${address}/delegation`)
      .set("Authorization", `Bearer ${token}`)
      .set("X-Wallet-Auth", "end-user-wallet-token")
      .send({ expiresAt: new Date(sandbox.clock.now() + 3600_000).toISOString(), walletSecretId: "ws-1" })
      .expect(201);
    expect((await cdp.endUser.getDelegationForEndUserAccount({ userId: user.userId, address })).expiresAt).toEqual(expect.any(String));

    const { signature } = await cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "delegated hello" });
    expect(await recoverMessageAddress({ message: "delegated hello", signature: signature as `0x${string}` })).toBe(address);

    const tx = serializeTransaction({ type: "eip1559", chainId: 84532, nonce: 0, to: address, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 8n });
    const signed = await cdp.endUser.signEvmTransaction({ userId: user.userId, address, transaction: tx });
    expect(await recoverTransactionAddress({ serializedTransaction: signed.signedTransaction as `0x02${string}` })).toBe(address);

    const typedData = { domain: { name: "Sandbox", version: "1", chainId: 84532 }, types: { Note: [{ name: "text", type: "string" }] }, primaryType: "Note", message: { text: "hi" } };
    const typed = await cdp.endUser.signEvmTypedData({ userId: user.userId, address, typedData: typedData as never });
    expect(await verifyTypedData({ ...(typedData as never as Parameters<typeof verifyTypedData>[0]), address, signature: typed.signature as `0x${string}` })).toBe(true);

    await cdp.endUser.revokeDelegationForEndUserAccount({ userId: user.userId, address });
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "again" })).rejects.toMatchObject({ statusCode: 403, errorType: "delegation_revoked" });
  });
});
