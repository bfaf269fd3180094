/**
 * What a signed-in end user's client does with their wallets besides signing messages and transactions: export a
 * key to the RSA key it made (decrypted here with node:crypto and compared with the address), sign raw hashes
 * (checked with viem and noble), follow an EIP-7702 delegation, and manage the spend permissions of a smart account.
 * Over HTTP with the user's access token and X-Wallet-Auth signed with their Temporary Wallet Secret.
 */
import { constants, generateKeyPairSync, privateDecrypt } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { decodeFunctionData, parseAbi, recoverAddress, type Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-after-sign-in", mining: "interval" });
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
let n = 0;

async function newUser(evmAccount: object = {}) {
  const userId = `as-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount, solanaAccount: {} },
    wallet: true,
  });
  if (created.status !== 201) throw new Error(`end user: ${created.status} ${created.text}`);
  const session = await endUserSession(sandbox, userId);
  return {
    userId,
    session,
    evm: created.body.evmAccounts[0] as `0x${string}`,
    smart: created.body.evmSmartAccounts[0] as `0x${string}` | undefined,
    sol: created.body.solanaAccounts[0] as string,
  };
}
const asUser = (session: EndUserSession) => ({ endUser: session });

function rsaKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { spki: publicKey.export({ type: "spki", format: "der" }).toString("base64"), privateKey };
}
const open = (privateKey: ReturnType<typeof rsaKeyPair>["privateKey"], b64: string) =>
  privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(b64, "base64"));

describe("key export", () => {
  it("exports the EVM key encrypted to the client's RSA key: decrypted, it is the key of the user's address", async () => {
    const u = await newUser();
    const rsa = rsaKeyPair();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/export`, { body: { address: u.evm, exportEncryptionKey: rsa.spki }, ...asUser(u.session) });
    expect(res.status, res.text).toBe(200);
    const raw = open(rsa.privateKey, res.body.encryptedPrivateKey);
    expect(raw).toHaveLength(32);
    expect(privateKeyToAddress(`0x${raw.toString("hex")}`)).toBe(u.evm);
  });

  it("exports the Solana seed: decrypted, its ed25519 public key is the user's address", async () => {
    const u = await newUser();
    const rsa = rsaKeyPair();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/solana/export`, {
      body: { address: u.sol, exportEncryptionKey: rsa.spki },
      ...asUser(u.session),
    });
    expect(res.status, res.text).toBe(200);
    const seed = open(rsa.privateKey, res.body.encryptedPrivateKey);
    expect(seed).toHaveLength(32);
    expect(getBase58Decoder().decode(ed25519.getPublicKey(new Uint8Array(seed)))).toBe(u.sol);
  });

  it("refuses another user's account, another user's token, a key that is not RSA, and ejection", async () => {
    const u = await newUser();
    const other = await newUser();
    const rsa = rsaKeyPair();
    const exportAs = (session: EndUserSession, userId: string, body: object) =>
      call(sandbox, "POST", `${EW}/${userId}/evm/export`, { body: { exportEncryptionKey: rsa.spki, ...body }, ...asUser(session) });
    expect((await exportAs(u.session, u.userId, { address: other.evm })).status).toBe(404);
    expect((await exportAs(other.session, u.userId, { address: u.evm })).status).toBe(401);
    const notRsa = await exportAs(u.session, u.userId, { address: u.evm, exportEncryptionKey: Buffer.from("not a key").toString("base64") });
    expect([notRsa.status, notRsa.body.errorType]).toEqual([400, "invalid_request"]);
    expect((await exportAs(u.session, u.userId, { address: u.evm, eject: true })).status).toBe(400);
    // Without the end user's wallet token the export is refused before anything is read.
    const unsigned = await call(sandbox, "POST", `${EW}/${u.userId}/evm/export`, {
      body: { address: u.evm, exportEncryptionKey: rsa.spki },
      endUser: u.session,
      wallet: false,
    });
    expect(unsigned.status).toBe(401);
    // Signed with another user's Temporary Wallet Secret: refused too.
    const foreignSecret = await call(sandbox, "POST", `${EW}/${u.userId}/evm/export`, {
      body: { address: u.evm, exportEncryptionKey: rsa.spki },
      endUser: { ...u.session, walletSecretId: other.session.walletSecretId, walletSecret: other.session.walletSecret },
    });
    expect([foreignSecret.status, foreignSecret.body.errorType]).toEqual([401, "unauthorized"]);
  });
});

describe("hash signing", () => {
  const hash = `0x${"ab".repeat(32)}` as Hex;

  it("signs a 32-byte hash with the user's EVM key, no prefix: viem recovers the address", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign`, { body: { hash, address: u.evm }, ...asUser(u.session) });
    expect(res.status, res.text).toBe(200);
    expect(await recoverAddress({ hash, signature: res.body.signature })).toBe(u.evm);
    // The developer sees the user's action in the request journal, as the end user's.
    const journal = await call(sandbox, "GET", "/_sandbox/requests", { anonymous: true });
    const entry = journal.body.requests.find((r: { operationId?: string }) => r.operationId === "signEvmHashWithEndUserAccount");
    expect(entry).toMatchObject({ status: 200, auth: "endUser" });
  });

  it("signs 32 base58 bytes with the user's Solana key: noble verifies it", async () => {
    const u = await newUser();
    const bytes = new Uint8Array(32).fill(7);
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign`, {
      body: { hash: getBase58Decoder().decode(bytes), address: u.sol },
      ...asUser(u.session),
    });
    expect(res.status, res.text).toBe(200);
    const signature = new Uint8Array(getBase58Encoder().encode(res.body.signature));
    expect(ed25519.verify(signature, bytes, new Uint8Array(getBase58Encoder().encode(u.sol)))).toBe(true);
  });

  it("refuses hashes that are not 32 bytes, with 400, and an address of another user with 404", async () => {
    const u = await newUser();
    const other = await newUser();
    const evm = (body: object) => call(sandbox, "POST", `${EW}/${u.userId}/evm/sign`, { body: { address: u.evm, hash, ...body }, ...asUser(u.session) });
    expect((await evm({ hash: "0x1234" })).status).toBe(400);
    expect((await evm({ address: other.evm })).status).toBe(404);
    const sol = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign`, {
      body: { hash: getBase58Decoder().decode(new Uint8Array(31)), address: u.sol },
      ...asUser(u.session),
    });
    expect([sol.status, sol.body.errorType]).toEqual([400, "invalid_request"]);
    // A 100,000-character "hash" is refused by the contract's bound before any base58 decoding (which is quadratic).
    const huge = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign`, { body: { hash: "x".repeat(100_000), address: u.sol }, ...asUser(u.session) });
    expect([huge.status, huge.body.errorType]).toEqual([400, "invalid_request"]);
    expect(huge.body.errorMessage).toMatch(/more than 44 characters/);
  });

  it("applies the project's signEndUserEvmHash rules", async () => {
    const u = await newUser();
    const policy = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: { scope: "project", rules: [{ action: "reject", operation: "signEndUserEvmHash" }] },
    });
    expect(policy.status, policy.text).toBe(201);
    try {
      const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign`, { body: { hash, address: u.evm }, ...asUser(u.session) });
      expect([res.status, res.body.errorType]).toEqual([403, "policy_violation"]);
    } finally {
      await call(sandbox, "DELETE", `/platform/v2/policy-engine/policies/${policy.body.id}`);
    }
  });
});

describe("EIP-7702 delegation operations", () => {
  it("shows the user their delegation operation until it completes on the sandbox clock, and nobody else's", async () => {
    const u = await newUser();
    const other = await newUser();
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/evm/eip7702/delegation`, {
      body: { address: u.evm, network: "base-sepolia" },
      ...asUser(u.session),
    });
    expect(started.status, started.text).toBe(201);
    const id = started.body.delegationOperationId as string;
    const get = (userId: string, session: EndUserSession) =>
      call(sandbox, "GET", `${EW}/${userId}/evm/eip7702/delegation-operations/${id}`, { endUser: session, wallet: false });
    expect((await get(u.userId, u.session)).body).toMatchObject({ delegationOperationId: id, status: "SUBMITTED", network: "base-sepolia" });
    sandbox.clock.advance(2000);
    expect((await get(u.userId, u.session)).body.status).toBe("COMPLETED");
    expect((await get(other.userId, other.session)).status).toBe(404);
    expect((await get(u.userId, other.session)).status).toBe(401);
  });
});

describe("spend permissions of an end user's smart account", () => {
  const managerAbi = parseAbi([
    "struct SpendPermission { address account; address spender; address token; uint160 allowance; uint48 period; uint48 start; uint48 end; uint256 salt; bytes extraData; }",
    "function approve(SpendPermission spendPermission) returns (bool)",
    "function revoke(SpendPermission spendPermission)",
  ]);
  const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
  const SPENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

  it("approves by a user operation of the smart account, lists it, revokes it, and lists it revoked", async () => {
    const u = await newUser({ createSmartAccount: true, enableSpendPermissions: true });
    const base = `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/spend-permissions`;
    const start = String(Math.floor(sandbox.clock.now() / 1000));
    const terms = { network: "base-sepolia", spender: SPENDER, token: USDC, allowance: "1000000", period: "86400", start, end: "281474976710655" };
    const created = await call(sandbox, "POST", base, { body: { ...terms, useCdpPaymaster: true }, ...asUser(u.session) });
    expect(created.status, created.text).toBe(200);
    expect(created.body.calls).toHaveLength(1);
    const approve = decodeFunctionData({ abi: managerAbi, data: created.body.calls[0].data });
    expect(approve.functionName).toBe("approve");
    expect(approve.args[0]).toMatchObject({ account: u.smart, spender: SPENDER, token: USDC, allowance: 1_000_000n });
    sandbox.clock.advance(4000);

    const list = async () =>
      (await call(sandbox, "GET", `${base}/list`, { endUser: u.session, wallet: false })).body.spendPermissions as Array<Record<string, unknown>>;
    const [listed, ...rest] = await list();
    expect(rest).toEqual([]);
    expect(listed).toMatchObject({ revoked: false, network: "base-sepolia", permission: { account: u.smart, spender: SPENDER } });

    const revoked = await call(sandbox, "POST", `${base}/revoke`, {
      body: { network: "base-sepolia", permissionHash: listed!.permissionHash, useCdpPaymaster: true },
      ...asUser(u.session),
    });
    expect(revoked.status, revoked.text).toBe(200);
    expect(decodeFunctionData({ abi: managerAbi, data: revoked.body.calls[0].data }).functionName).toBe("revoke");
    sandbox.clock.advance(4000);
    expect((await list())[0]).toMatchObject({ revoked: true });
  });

  it("refuses a smart account of another user (404) and an unknown permission (404), leaving the list empty", async () => {
    const u = await newUser({ createSmartAccount: true, enableSpendPermissions: true });
    const other = await newUser({ createSmartAccount: true });
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${other.smart}/spend-permissions/revoke`, {
      body: { network: "base-sepolia", permissionHash: `0x${"11".repeat(32)}` },
      ...asUser(u.session),
    });
    expect(res.status).toBe(404);
    const unknown = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/spend-permissions/revoke`, {
      body: { network: "base-sepolia", permissionHash: `0x${"11".repeat(32)}` },
      ...asUser(u.session),
    });
    expect(unknown.status).toBe(404);
    const listed = await call(sandbox, "GET", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/spend-permissions/list`, { endUser: u.session, wallet: false });
    expect(listed.body.spendPermissions).toEqual([]);
  });
});

describe("Apple Pay onramp orders for end users", () => {
  it("buys USDC for the user with the email and phone they signed in with; the developer finds the order, and it delivers", async () => {
    const userId = `as-${++n}`;
    const phone = `+1415555${String(7000 + n).padStart(4, "0")}`;
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: {
        userId,
        authenticationMethods: [
          { type: "email", email: `${userId}@example.com` },
          { type: "sms", phoneNumber: phone },
        ],
        evmAccount: {},
      },
      wallet: true,
    });
    expect(created.status, created.text).toBe(201);
    const evm = created.body.evmAccounts[0] as string;
    const session = await endUserSession(sandbox, userId);
    const res = await call(sandbox, "POST", `${EW}/${userId}/onramp/orders`, {
      body: {
        agreementAcceptedAt: new Date(sandbox.clock.now()).toISOString(),
        destination: { address: evm, network: "base" },
        payment: { currency: "USD" },
        purchase: { amount: "10", currency: "USDC" },
      },
      endUser: session,
      wallet: false,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.order).toMatchObject({
      userId,
      purchase: { amount: "10.000000", currency: "USDC" },
      destination: { address: evm, network: "base" },
      isSandbox: true,
    });
    expect(res.body.paymentLink.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    sandbox.clock.advance(3_600_000);
    const seen = await call(sandbox, "GET", `/platform/v2/onramp/orders/${res.body.order.orderId}`);
    expect(seen.body.order).toMatchObject({ status: "ONRAMP_ORDER_STATUS_COMPLETED", partnerUserRef: userId });
    const balances = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${evm}`);
    const usdc = balances.body.balances.find((b: { token: { symbol: string } }) => b.token.symbol === "USDC");
    expect(usdc.amount.amount).toBe("10000000");
  });

  it("refuses a user without a phone number to pay with, creating no order", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/onramp/orders`, {
      body: {
        agreementAcceptedAt: new Date(sandbox.clock.now()).toISOString(),
        destination: { address: u.evm, network: "base" },
        payment: { currency: "USD" },
        purchase: { amount: "10", currency: "USDC" },
      },
      endUser: u.session,
      wallet: false,
    });
    expect([res.status, res.body.errorType]).toEqual([400, "invalid_request"]);
    expect(res.body.errorMessage).toContain("SMS");
  });
});
