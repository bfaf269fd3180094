/**
 * Attacks on end users' second factors (third hardening pass). A stolen access token must not get past MFA: it
 * cannot enrol a factor of its own next to the user's, cannot guess codes without end, and cannot use any of the
 * gated operations — each one listed here, as in docs/embedded-wallets.md. The enrolment attack goes through the
 * embedded-wallet client itself (@coinbase/cdp-core, signed in by email); codes are computed by an RFC 6238
 * implementation written here, on the sandbox clock.
 */
import { createHmac } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { installBrowserGlobals } from "#test/helpers/browserGlobals.js";
import { call, endUserSession } from "#test/helpers/sandbox.js";

installBrowserGlobals();

type Core = typeof import("@coinbase/cdp-core");
let core: Core;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "attacks-mfa", validateResponses: true });
  // TOTP steps stay put while a test runs; time moves only when a test moves it.
  sandbox.clock.freeze(true);
  core = await import("@coinbase/cdp-core");
  await core.initialize({ projectId: sandbox.credentials.projectId, basePath: sandbox.basePath, ethereum: { createOnLogin: "eoa" }, disableAnalytics: true });
});
afterAll(async () => {
  await core?.signOut().catch(() => undefined);
  await sandbox.close();
});

const EW = "/platform/v2/embedded-wallet-api/end-users";
const WINDOW_PASSED_MS = 301_000;

function totp(secretBase32: string, atMs: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...secretBase32].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  return String((mac.readUInt32BE(mac[19]! & 0xf) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}
/** A code of the authenticator that is not the current one (nor a neighbour the sandbox's skew allows). */
const wrongCode = (secret: string) => String((Number(totp(secret, sandbox.clock.now())) + 500_000) % 1_000_000).padStart(6, "0");

const inbox = async (to: string) =>
  (await request(sandbox.url).get(`/_sandbox/messages?to=${encodeURIComponent(to)}`)).body.messages as Array<{ flowId: string; code: string }>;

const expectRefused = (res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
  expect([res.status, res.body.errorType], JSON.stringify(res.body)).toEqual([status, errorType]);
  expect(res.body).toMatchObject({ errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
};

let n = 0;
/** An end user with an EVM account (and its smart account) and a Solana account, enrolled in TOTP. */
async function enrolledUser() {
  const userId = `mfa-attack-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true }, solanaAccount: {} },
    wallet: true,
  });
  expect(created.status, created.text).toBe(201);
  const session = await endUserSession(sandbox, userId);
  const started = await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/totp/init`, { endUser: session, wallet: false });
  const secret = started.body.secret as string;
  const enrolled = await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/totp/submit`, {
    body: { mfaCode: totp(secret, sandbox.clock.now()) },
    endUser: session,
    wallet: false,
  });
  expect(enrolled.status, enrolled.text).toBe(200);
  return {
    userId,
    session,
    secret,
    evm: created.body.evmAccounts[0] as string,
    smart: created.body.evmSmartAccounts[0] as string,
    sol: created.body.solanaAccounts[0] as string,
  };
}
type User = Awaited<ReturnType<typeof enrolledUser>>;

describe("a second factor with a stolen access token", () => {
  it("is refused through the client: enrolling SMS next to TOTP needs a fresh TOTP verification (mfa_required), and no code is sent", async () => {
    const email = "mfa-victim@example.com";
    const { flowId } = await core.signInWithEmail({ email });
    const code = (await inbox(email)).find((m) => m.flowId === flowId)!.code;
    const { user } = await core.verifyEmailOTP({ flowId, otp: code });
    const { secret } = (await core.initiateMfaEnrollment({ mfaMethod: "totp" })) as { secret: string };
    await core.submitMfaEnrollment({ mfaMethod: "totp", mfaCode: totp(secret, sandbox.clock.now()) });

    // Later, someone who holds only the access token enrols a phone of theirs.
    sandbox.clock.advance(WINDOW_PASSED_MS);
    const thief = "+14155550123";
    await expect(core.initiateMfaEnrollment({ mfaMethod: "sms", phoneNumber: thief })).rejects.toMatchObject({ errorType: "mfa_required" });
    expect(await inbox(thief)).toEqual([]);
    const seen = await call(sandbox, "GET", `/platform/v2/end-users/${user.userId}`);
    expect(seen.body.mfaMethods.sms).toBeUndefined();

    // The user, verifying TOTP first, may add SMS.
    await core.initiateMfaVerification({ mfaMethod: "totp" });
    await core.submitMfaVerification({ mfaMethod: "totp", mfaCode: totp(secret, sandbox.clock.now() + 30_000) });
    await core.initiateMfaEnrollment({ mfaMethod: "sms", phoneNumber: "+14155550199" });
    const sent = await inbox("+14155550199");
    await core.submitMfaEnrollment({ mfaMethod: "sms", mfaCode: sent[0]!.code });
    expect((await call(sandbox, "GET", `/platform/v2/end-users/${user.userId}`)).body.mfaMethods.sms).toBeDefined();
  });

  it("cannot finish an enrolment started before the first factor existed without verifying that factor", async () => {
    // A project whose verification window (60 s) ends before an enrolment's five minutes do.
    const project = await sandbox.createProject();
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${project.projectId}`)
      .send({ settings: { mfaVerificationWindowSeconds: 60 } });
    const userId = `mfa-early-${++n}`;
    await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }] },
      wallet: true,
      credentials: project,
    });
    const session = await endUserSession(sandbox, userId, project);
    const as = (body?: object) => ({ endUser: session, wallet: false as const, ...(body ? { body } : {}) });
    // The thief starts an SMS enrolment while the user has no factor; the user then enrols TOTP.
    const thief = "+14155550124";
    expect((await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/sms/initiate`, as({ type: "sms", phoneNumber: thief }))).status).toBe(200);
    const started = await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/totp/init`, as());
    await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/totp/submit`, as({ mfaCode: totp(started.body.secret, sandbox.clock.now()) }));
    // Past the verification window, inside the SMS enrolment's five minutes: its code would still be good.
    sandbox.clock.advance(61_000);
    const sent = (
      await request(sandbox.url)
        .get(`/_sandbox/messages?to=${encodeURIComponent(thief)}`)
        .set("X-Sandbox-Project", project.projectId)
    ).body.messages as Array<{ code: string }>;
    const submitted = await call(sandbox, "POST", `${EW}/${userId}/mfa/enroll/sms/submit`, as({ mfaCode: sent[0]!.code }));
    expectRefused(submitted, 401, "mfa_required");
    const user = await call(sandbox, "GET", `/platform/v2/end-users/${userId}`, { credentials: project });
    expect(user.body.mfaMethods.totp).toBeDefined();
    expect(user.body.mfaMethods.sms).toBeUndefined();
  });
});

describe("wrong MFA codes", () => {
  const submit = (u: User, method: "totp" | "sms", mfaCode: string) =>
    call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/${method}/submit`, { body: { mfaCode }, endUser: u.session, wallet: false });

  it("lock the user's code submission after 5, across methods (429 rate_limit_exceeded), even for the right code, for 15 minutes", async () => {
    const u = await enrolledUser();
    // An SMS factor too (enrolled inside the verification window that the TOTP enrolment opened).
    const phone = `+1415555${String(1000 + n)}`;
    await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/initiate`, { body: { type: "sms", phoneNumber: phone }, endUser: u.session, wallet: false });
    await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/submit`, {
      body: { mfaCode: (await inbox(phone))[0]!.code },
      endUser: u.session,
      wallet: false,
    });
    sandbox.clock.advance(WINDOW_PASSED_MS);

    for (let i = 0; i < 2; i++) expectRefused(await submit(u, "totp", wrongCode(u.secret)), 400, "mfa_invalid_code");
    await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/sms/init`, { endUser: u.session, wallet: false });
    const smsCode = (await inbox(phone))[0]!.code;
    const wrongSms = String((Number(smsCode) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < 2; i++) expectRefused(await submit(u, "sms", wrongSms), 400, "mfa_invalid_code");
    expectRefused(await submit(u, "totp", wrongCode(u.secret)), 429, "rate_limit_exceeded");

    // Locked: the right codes are refused too, and the gated operations stay closed.
    expectRefused(await submit(u, "totp", totp(u.secret, sandbox.clock.now())), 429, "rate_limit_exceeded");
    expectRefused(await submit(u, "sms", smsCode), 429, "rate_limit_exceeded");
    expectRefused(
      await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "m" }, endUser: u.session }),
      403,
      "mfa_required",
    );

    sandbox.clock.advance(15 * 60_000);
    expect((await submit(u, "totp", totp(u.secret, sandbox.clock.now()))).status).toBe(204);
    const signed = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "m" }, endUser: u.session });
    expect(signed.status, signed.text).toBe(200);
  });

  it("are counted from zero again after a right code", async () => {
    const u = await enrolledUser();
    sandbox.clock.advance(WINDOW_PASSED_MS);
    for (let i = 0; i < 4; i++) expectRefused(await submit(u, "totp", wrongCode(u.secret)), 400, "mfa_invalid_code");
    expect((await submit(u, "totp", totp(u.secret, sandbox.clock.now()))).status).toBe(204);
    sandbox.clock.advance(30_000);
    for (let i = 0; i < 4; i++) expectRefused(await submit(u, "totp", wrongCode(u.secret)), 400, "mfa_invalid_code");
    expect((await submit(u, "totp", totp(u.secret, sandbox.clock.now()))).status).toBe(204);
  });

  it("in an enrolment count too", async () => {
    const u = await enrolledUser();
    const phone = `+1415556${String(1000 + n)}`;
    await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/initiate`, { body: { type: "sms", phoneNumber: phone }, endUser: u.session, wallet: false });
    const code = (await inbox(phone))[0]!.code;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const enrol = (mfaCode: string) =>
      call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/submit`, { body: { mfaCode }, endUser: u.session, wallet: false });
    for (let i = 0; i < 4; i++) expectRefused(await enrol(wrong), 400, "mfa_invalid_code");
    expectRefused(await enrol(wrong), 429, "rate_limit_exceeded");
    expectRefused(await enrol(code), 429, "rate_limit_exceeded");
    expect((await call(sandbox, "GET", `/platform/v2/end-users/${u.userId}`)).body.mfaMethods.sms).toBeUndefined();
  });
});

/** Each gated operation, with a body its contract accepts, and the status of its mfa_required (the table of docs/embedded-wallets.md). */
const GATED: Array<{ op: string; status: 401 | 403; method: "POST" | "DELETE"; path: (u: User) => string; body: (u: User) => object | undefined }> = [
  {
    op: "signEvmHashWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/sign`,
    body: (u) => ({ address: u.evm, hash: `0x${"11".repeat(32)}` }),
  },
  {
    op: "signEvmMessageWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/sign/message`,
    body: (u) => ({ address: u.evm, message: "m" }),
  },
  {
    op: "signEvmTransactionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/sign/transaction`,
    body: (u) => ({ address: u.evm, transaction: "0x02e5827a6980843b9aca00843b9aca0082520894000000000000000000000000000000000000000180c0" }),
  },
  {
    op: "signEvmTypedDataWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/sign/typed-data`,
    body: (u) => ({
      address: u.evm,
      typedData: {
        domain: { name: "T", chainId: 1 },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "chainId", type: "uint256" },
          ],
          M: [{ name: "v", type: "uint256" }],
        },
        primaryType: "M",
        message: { v: "1" },
      },
    }),
  },
  {
    op: "sendEvmTransactionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/send/transaction`,
    body: (u) => ({
      address: u.evm,
      network: "base-sepolia",
      transaction: "0x02e5827a6980843b9aca00843b9aca0082520894000000000000000000000000000000000000000180c0",
    }),
  },
  {
    op: "sendEvmAssetWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/${u.evm}/send/usdc`,
    body: () => ({ to: "0x0000000000000000000000000000000000000001", amount: "1", network: "base-sepolia" }),
  },
  {
    op: "sendUserOperationWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`,
    body: () => ({ network: "base-sepolia", calls: [{ to: "0x0000000000000000000000000000000000000001", value: "0", data: "0x" }], useCdpPaymaster: true }),
  },
  {
    op: "createEvmEip7702DelegationWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/eip7702/delegation`,
    body: (u) => ({ address: u.evm, network: "base-sepolia" }),
  },
  {
    op: "createEndUserEvmSwap",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/swaps`,
    body: (u) => ({
      taker: u.evm,
      network: "base",
      fromToken: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      toToken: "0x4200000000000000000000000000000000000006",
      fromAmount: "1000000",
    }),
  },
  {
    op: "createSpendPermissionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/spend-permissions`,
    body: () => ({
      network: "base-sepolia",
      spender: "0x0000000000000000000000000000000000000001",
      token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      allowance: "1000",
      period: "86400",
      start: "0",
      end: "281474976710655",
    }),
  },
  {
    op: "revokeSpendPermissionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/spend-permissions/revoke`,
    body: () => ({ network: "base-sepolia", permissionHash: `0x${"11".repeat(32)}` }),
  },
  {
    op: "exportEndUserEvmAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/evm/export`,
    body: (u) => ({ address: u.evm, exportEncryptionKey: "AAAA" }),
  },
  {
    op: "signSolanaHashWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/sign`,
    body: (u) => ({ address: u.sol, hash: "11111111111111111111111111111111" }),
  },
  {
    op: "signSolanaMessageWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/sign/message`,
    body: (u) => ({ address: u.sol, message: "bQ==" }),
  },
  {
    op: "signSolanaTransactionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/sign/transaction`,
    body: (u) => ({ address: u.sol, transaction: "AQID" }),
  },
  {
    op: "sendSolanaTransactionWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/send/transaction`,
    body: (u) => ({ address: u.sol, network: "solana-devnet", transaction: "AQID" }),
  },
  {
    op: "sendSolanaAssetWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/${u.sol}/send/usdc`,
    body: (u) => ({ to: u.sol, amount: "1", network: "solana-devnet" }),
  },
  {
    op: "signSolanaX402PaymentWithEndUserAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/sign/x402-payment`,
    body: (u) => ({
      address: u.sol,
      acceptsIndex: 0,
      paymentRequired: {
        x402Version: 2,
        resource: { url: "https://tides.example.org/v1/forecast", description: "Tides", mimeType: "application/json" },
        accepts: [
          {
            scheme: "exact",
            network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
            asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
            amount: "1",
            payTo: u.sol,
            maxTimeoutSeconds: 60,
            extra: { feePayer: u.sol },
          },
        ],
      },
    }),
  },
  {
    op: "exportEndUserSolanaAccount",
    status: 403,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/solana/export`,
    body: (u) => ({ address: u.sol, exportEncryptionKey: "AAAA" }),
  },
  { op: "createDelegationForEndUser", status: 403, method: "POST", path: (u) => `${EW}/${u.userId}/delegation`, body: () => ({ expiresAt: inOneHour() }) },
  // The contract declares no 403 for these three: the same refusal comes as 401.
  {
    op: "createDelegationForEndUserAccount",
    status: 401,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/address/${u.evm}/delegation`,
    body: () => ({ expiresAt: inOneHour() }),
  },
  { op: "revokeDelegationForEndUserAccount", status: 401, method: "DELETE", path: (u) => `${EW}/${u.userId}/address/${u.evm}/delegation`, body: () => ({}) },
  { op: "revokeDelegationForEndUser", status: 401, method: "DELETE", path: (u) => `${EW}/${u.userId}/delegation`, body: () => ({}) },
  // Enrolling a further factor.
  { op: "initiateMfaEnrollment", status: 401, method: "POST", path: (u) => `${EW}/${u.userId}/mfa/enroll/sms/init`, body: () => undefined },
  {
    op: "initiateMfaEnrollment2",
    status: 401,
    method: "POST",
    path: (u) => `${EW}/${u.userId}/mfa/enroll/sms/initiate`,
    body: () => ({ type: "sms", phoneNumber: "+14155550142" }),
  },
];

function inOneHour() {
  return new Date(sandbox.clock.now() + 3600_000).toISOString();
}

describe("the MFA-gated operations", () => {
  let u: User;
  beforeAll(async () => {
    u = await enrolledUser();
    sandbox.clock.advance(WINDOW_PASSED_MS);
  });

  it.each(GATED)("$op answers $status mfa_required to an enrolled user whose verification is older than the window", async (g) => {
    const body = g.body(u);
    const res = await call(sandbox, g.method, g.path(u), { ...(body ? { body } : { wallet: false }), endUser: u.session });
    expectRefused(res, g.status, "mfa_required");
  });

  it("are all the end users' operations that sign, send, export, delegate or enrol: each one is listed", async () => {
    const { handlers } = await import("../../src/wallet/end-users/handlers.js");
    const { handlers: authHandlers } = await import("../../src/wallet/identity/handlers.js");
    // An end user's swap and x402 payment live with their products, beside the developer's operations.
    const { handlers: swapHandlers } = await import("../../src/products/swaps/handlers.js");
    const { handlers: x402Handlers } = await import("../../src/products/x402/handlers.js");
    const products = Object.keys({ ...swapHandlers, ...x402Handlers }).filter((op) => op.includes("EndUser"));
    const all = [...Object.keys({ ...handlers, ...authHandlers }), ...products];
    // Creating the user or an account of theirs, and an onramp order (paid by card), move no funds and no keys.
    const UNGATED = [
      "createEndUser",
      "createEndUserEvmAccount",
      "createEndUserEvmSmartAccount",
      "createEndUserSolanaAccount",
      "createEndUserApplePayOnrampOrder",
    ];
    const moving = all.filter((op) => /^(sign|send|export|create|revoke|initiateMfaEnrollment)/.test(op) && !UNGATED.includes(op));
    expect(moving.sort()).toEqual(GATED.map((g) => g.op).sort());
  });
});
