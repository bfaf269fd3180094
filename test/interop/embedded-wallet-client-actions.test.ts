/**
 * The embedded-wallet client's own request code (@coinbase/cdp-api-client 0.0.106, which @coinbase/cdp-core and the
 * React kit call) against the sandbox, for what a user does after sign-in: the client builds every URL, method,
 * body, projectID query and X-Wallet-Auth itself; only its auth manager — which cdp-core fills in at sign-in — is
 * given the session of the admin shortcut POST /_sandbox/end-users/{userId}/token here, as the sign-in endpoints are
 * tested elsewhere. Signatures checked with viem and noble, exports decrypted with node:crypto.
 */
import { constants, createHmac, generateKeyPairSync, privateDecrypt } from "node:crypto";
import {
  configureCdpApiClient,
  exportEndUserEvmAccount,
  exportEndUserSolanaAccount,
  getEndUserEvmSwapPrice,
  initiateMfaEnrollment,
  initiateMfaVerification,
  listSpendPermissionsWithEndUserAccount,
  recordMfaEnrollmentPrompted,
  setAuthManager,
  signEvmHashWithEndUserAccount,
  signEvmMessageWithEndUserAccount,
  signSolanaHashWithEndUserAccount,
  submitMfaEnrollment,
  submitMfaVerification,
  APIError,
} from "@coinbase/cdp-api-client";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { recoverAddress, recoverMessageAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";
import { mintWalletAuth } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let session: EndUserSession;
let user: { userId: string; evm: `0x${string}`; sol: string; smart: `0x${string}` };
let projectID: string;

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "embedded-wallet-client-actions" });
  sandbox.clock.freeze(true);
  projectID = sandbox.credentials.projectId;
  const userId = "client-user";
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: "client@example.com" }], evmAccount: { createSmartAccount: true }, solanaAccount: {} },
    wallet: true,
  });
  user = { userId, evm: created.body.evmAccounts[0], sol: created.body.solanaAccounts[0], smart: created.body.evmSmartAccounts[0] };
  session = await endUserSession(sandbox, userId);
  configureCdpApiClient({ basePath: sandbox.basePath });
  // What cdp-core's auth manager answers once the user signed in: the access token, and X-Wallet-Auth signed with
  // the Temporary Wallet Secret.
  setAuthManager({
    isSignedIn: async () => true,
    getToken: async () => session.accessToken,
    getXWalletAuth: async (o: { requestMethod: string; requestHost: string; requestPath: string; requestData?: unknown }) =>
      mintWalletAuth(session.walletSecret, { method: o.requestMethod, host: o.requestHost, path: o.requestPath, body: o.requestData }),
  } as never);
});
afterAll(() => sandbox.close());

function totp(secretBase32: string, atMs: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...secretBase32].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  return String((mac.readUInt32BE(mac[19]! & 0xf) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

describe("the embedded-wallet client after sign-in", () => {
  it("signs a hash with the EVM and the Solana account", async () => {
    const hash = `0x${"5a".repeat(32)}` as const;
    const evm = await signEvmHashWithEndUserAccount(user.userId, { hash, address: user.evm, walletSecretId: session.walletSecretId }, { projectID });
    expect(await recoverAddress({ hash, signature: evm.signature as `0x${string}` })).toBe(user.evm);
    const bytes = new Uint8Array(32).fill(9);
    const sol = await signSolanaHashWithEndUserAccount(
      user.userId,
      { hash: getBase58Decoder().decode(bytes), address: user.sol, walletSecretId: session.walletSecretId },
      { projectID },
    );
    expect(ed25519.verify(new Uint8Array(getBase58Encoder().encode(sol.signature)), bytes, new Uint8Array(getBase58Encoder().encode(user.sol)))).toBe(true);
  });

  it("exports both keys encrypted to the RSA key it sends", async () => {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const exportEncryptionKey = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const open = (b64: string) =>
      privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(b64, "base64"));
    const evm = await exportEndUserEvmAccount(user.userId, { address: user.evm, exportEncryptionKey, walletSecretId: session.walletSecretId }, { projectID });
    expect(privateKeyToAddress(`0x${open(evm.encryptedPrivateKey).toString("hex")}`)).toBe(user.evm);
    const sol = await exportEndUserSolanaAccount(
      user.userId,
      { address: user.sol, exportEncryptionKey, walletSecretId: session.walletSecretId },
      { projectID },
    );
    expect(getBase58Decoder().decode(ed25519.getPublicKey(new Uint8Array(open(sol.encryptedPrivateKey))))).toBe(user.sol);
  });

  it("prices a swap and lists the smart account's spend permissions", async () => {
    const price = await getEndUserEvmSwapPrice(user.userId, {
      taker: user.evm,
      network: "base",
      fromToken: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      toToken: "0x4200000000000000000000000000000000000006",
      fromAmount: "1000000",
      projectID,
    });
    expect(price.liquidityAvailable).toBe(true);
    // The fields the client's own type adds to the server API's price: the network, and the gas cost in wei.
    expect(price.network).toBe("base");
    expect(price.totalNetworkFee).toMatch(/^[1-9]\d*$/);
    expect(price.totalNetworkFee).toBe(price.fees?.gasFee?.amount);
    const listed = await listSpendPermissionsWithEndUserAccount(user.userId, user.smart, { projectID });
    expect(listed.spendPermissions).toEqual([]);
  });

  it("enrols in TOTP, is asked for MFA once the window passed (APIError mfa_required), verifies and signs again", async () => {
    await recordMfaEnrollmentPrompted(user.userId, { projectID });
    const enrolment = await initiateMfaEnrollment(user.userId, "totp", { projectID });
    if (!("secret" in enrolment)) throw new Error("expected a TOTP secret");
    const enrolled = await submitMfaEnrollment(user.userId, "totp", { mfaCode: totp(enrolment.secret, sandbox.clock.now()) }, { projectID });
    expect(enrolled.endUser.mfaMethods?.totp).toBeDefined();
    expect(enrolled.endUser.mfaMethods?.enrollmentPromptedAt).toBeDefined();

    sandbox.clock.advance(10 * 60_000);
    const sign = () =>
      signEvmMessageWithEndUserAccount(user.userId, { address: user.evm, message: "gm", walletSecretId: session.walletSecretId }, { projectID });
    const refused = await sign().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).errorType).toBe("mfa_required");

    await initiateMfaVerification(user.userId, "totp", { projectID });
    await submitMfaVerification(user.userId, "totp", { mfaCode: totp(enrolment.secret, sandbox.clock.now()) }, { projectID });
    const signed = await sign();
    expect(await recoverMessageAddress({ message: "gm", signature: signed.signature as `0x${string}` })).toBe(user.evm);
  });
});
