/**
 * The end user's own project-wide delegation grant (POST …/end-users/{userId}/delegation), as the embedded-wallet
 * client sends it: under the user's access token and X-Wallet-Auth, behind MFA like the user's other actions. The
 * developer's server then signs with any of the user's accounts (checked with viem and noble) until the grant
 * expires on the sandbox clock. Every refusal answers the platform's error body and leaves no grant behind.
 */
import { createHmac } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox, type CallOptions } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-delegation" });
  // Expiry instants compare exactly and TOTP steps stay put while a test runs.
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
let n = 0;

async function newUser(credentials?: CallOptions["credentials"]) {
  const userId = `grantor-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: {}, solanaAccount: {} },
    wallet: true,
    credentials,
  });
  expect(created.status, created.text).toBe(201);
  const session = await endUserSession(sandbox, userId, credentials);
  return { userId, session, evm: created.body.evmAccounts[0] as `0x${string}`, sol: created.body.solanaAccounts[0] as string };
}
type User = Awaited<ReturnType<typeof newUser>>;

const inOneHour = () => new Date(sandbox.clock.now() + 3600_000).toISOString();
const delegate = (u: User, body: object, o: CallOptions = {}) => call(sandbox, "POST", `${EW}/${u.userId}/delegation`, { body, endUser: u.session, ...o });
/** The user's active grant as the developer's server reads it (404 when there is none). */
const grantOf = (u: User, o: CallOptions = {}) => call(sandbox, "GET", `${EW}/${u.userId}/delegation`, o);
const developerSigns = (u: User, o: CallOptions = {}) =>
  call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "for the user" }, ...o });

describe("an end user delegates all their accounts to the developer", () => {
  it("grants with their own token; the developer then signs with the EVM and the Solana account until it expires", async () => {
    const u = await newUser();
    expect((await developerSigns(u)).body.errorType).toBe("delegation_not_found");

    const expiresAt = inOneHour();
    const res = await delegate(u, { expiresAt });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ expiresAt: new Date(expiresAt).toISOString() });
    expect((await grantOf(u)).body).toEqual(res.body);
    expect((await grantOf(u, { endUser: u.session })).body).toEqual(res.body);

    const evm = await developerSigns(u);
    expect(evm.status, evm.text).toBe(200);
    expect(await recoverMessageAddress({ message: "for the user", signature: evm.body.signature })).toBe(u.evm);
    const sol = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/message`, { body: { address: u.sol, message: "gm" } });
    expect(sol.status, sol.text).toBe(200);
    const b58 = getBase58Encoder();
    expect(ed25519.verify(new Uint8Array(b58.encode(sol.body.signature)), new TextEncoder().encode("gm"), new Uint8Array(b58.encode(u.sol)))).toBe(true);

    // A project-wide grant covers an account added after it.
    expect((await call(sandbox, "POST", `/platform/v2/end-users/${u.userId}/evm`, { body: {}, wallet: true })).status).toBe(201);
    const accounts = (await call(sandbox, "GET", `/platform/v2/end-users/${u.userId}`)).body.evmAccounts as `0x${string}`[];
    const later = accounts.find((a) => a !== u.evm)!;
    const signedLater = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: later, message: "x" } });
    expect(await recoverMessageAddress({ message: "x", signature: signedLater.body.signature })).toBe(later);

    sandbox.clock.advance(3600_000);
    expect((await developerSigns(u)).body.errorType).toBe("delegation_expired");
    expect((await grantOf(u)).status).toBe(404);
  });

  it("replays the first answer to a retry with the same X-Idempotency-Key, as cdp-core's idempotencyKey sends it", async () => {
    const u = await newUser();
    const body = { expiresAt: inOneHour() };
    const headers = { "X-Idempotency-Key": "grant-once" };
    const first = await delegate(u, body, { headers });
    expect(first.status, first.text).toBe(201);
    const retry = await delegate(u, body, { headers });
    expect([retry.status, retry.body]).toEqual([201, first.body]);
    expect((await delegate(u, body)).status).toBe(409);
  });

  it("can grant again once the user revoked the grant", async () => {
    const u = await newUser();
    expect((await delegate(u, { expiresAt: inOneHour() })).status).toBe(201);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/delegation`, { body: {}, endUser: u.session })).status).toBe(204);
    expect((await developerSigns(u)).body.errorType).toBe("delegation_revoked");
    expect((await delegate(u, { expiresAt: inOneHour() })).status).toBe(201);
    expect((await developerSigns(u)).status).toBe(200);
  });
});

describe("refusals change nothing", () => {
  const refusedWith = async (u: User, res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
    expect([res.status, res.body.errorType], JSON.stringify(res.body)).toEqual([status, errorType]);
    expect(res.body).toMatchObject({ errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
    expect((await grantOf(u)).status).toBe(404);
  };

  it("answers 400 invalid_request to a missing, malformed or past expiresAt", async () => {
    const u = await newUser();
    await refusedWith(u, await delegate(u, {}), 400, "invalid_request");
    await refusedWith(u, await delegate(u, { expiresAt: "tomorrow" }), 400, "invalid_request");
    await refusedWith(u, await delegate(u, { expiresAt: new Date(sandbox.clock.now()).toISOString() }), 400, "invalid_request");
  });

  it("answers 401 without X-Wallet-Auth, with another user's token or wallet secret, or with the developer's API key", async () => {
    const u = await newUser();
    const other = await newUser();
    await refusedWith(u, await delegate(u, { expiresAt: inOneHour(), walletSecretId: other.session.walletSecretId }), 401, "unauthorized");
    await refusedWith(u, await delegate(u, { expiresAt: inOneHour() }, { wallet: false }), 401, "unauthorized");
    await refusedWith(u, await delegate(u, { expiresAt: inOneHour() }, { endUser: other.session }), 401, "unauthorized");
    const byDeveloper = await call(sandbox, "POST", `${EW}/${u.userId}/delegation`, { body: { expiresAt: inOneHour(), walletSecretId: "x" }, wallet: true });
    await refusedWith(u, byDeveloper, 401, "unauthorized");
    expect((await grantOf(other)).status).toBe(404);
  });

  it("answers 409 already_exists while a grant, of either scope, is active, keeping the first one", async () => {
    const u = await newUser();
    const first = await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.evm}/delegation`, { body: { expiresAt: inOneHour() }, endUser: u.session });
    expect(first.status, first.text).toBe(201);
    const again = await delegate(u, { expiresAt: new Date(sandbox.clock.now() + 7200_000).toISOString() });
    expect([again.status, again.body.errorType]).toEqual([409, "already_exists"]);
    expect((await grantOf(u)).body).toEqual(first.body);
  });

  it("answers delegation_not_enabled when the project switched delegated signing off, for either scope, with a status each operation declares", async () => {
    const project = await sandbox.createProject("no-delegated-signing");
    const patched = await call(sandbox, "PATCH", `/_sandbox/projects/${project.projectId}`, {
      body: { settings: { delegationEnabled: false } },
      anonymous: true,
    });
    expect(patched.status, patched.text).toBe(200);
    const u = await newUser(project);
    await refusedWith(u, await delegate(u, { expiresAt: inOneHour() }), 403, "delegation_not_enabled");
    const scoped = await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.evm}/delegation`, { body: { expiresAt: inOneHour() }, endUser: u.session });
    // The platform's contract declares no 403 for the one-account grant: the same refusal comes as 400.
    await refusedWith(u, scoped, 400, "delegation_not_enabled");
  });

  it("answers 403 mfa_required to an enrolled user whose verification is older than the window, then grants once verified", async () => {
    const u = await newUser();
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, { endUser: u.session, wallet: false });
    const secret = started.body.secret as string;
    const enrolled = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/submit`, {
      body: { mfaCode: totp(secret, sandbox.clock.now()) },
      endUser: u.session,
      wallet: false,
    });
    expect(enrolled.status, enrolled.text).toBe(200);
    sandbox.clock.advance(301_000);
    await refusedWith(u, await delegate(u, { expiresAt: inOneHour() }), 403, "mfa_required");

    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/init`, { endUser: u.session, wallet: false })).status).toBe(204);
    const verified = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/submit`, {
      body: { mfaCode: totp(secret, sandbox.clock.now()) },
      endUser: u.session,
      wallet: false,
    });
    expect(verified.status, verified.text).toBe(204);
    expect((await delegate(u, { expiresAt: inOneHour() })).status).toBe(201);
  });
});

/** RFC 6238 TOTP (SHA-1, 30 s, 6 digits) over an RFC 4648 base32 secret, written here apart from the sandbox's. */
function totp(secretBase32: string, atMs: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...secretBase32].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  return String((mac.readUInt32BE(mac[19]! & 0xf) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}
