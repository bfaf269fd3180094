/**
 * MFA for end users, as the embedded-wallet client runs it: TOTP enrolment (a real secret in an otpauth:// URI, codes
 * computed here by a separate RFC 6238 implementation on the sandbox clock), SMS enrolment and verification through
 * the message inbox, and the sensitive operations answering 403 mfa_required until the user verifies, and again once
 * the verification window has passed.
 */
import { createHmac } from "node:crypto";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-mfa" });
  // Timestamps compare exactly and TOTP steps stay put while a test runs.
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
let n = 0;

/** RFC 4648 base32 → bytes, and RFC 6238 TOTP (SHA-1, 30 s, 6 digits), written here apart from the sandbox's. */
function fromBase32(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...text].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => Number.parseInt(b, 2)));
}
function totp(secretBase32: string, atMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac("sha1", fromBase32(secretBase32)).update(counter).digest();
  const offset = mac[19]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

async function newUser() {
  const userId = `mfa-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: {} },
    wallet: true,
  });
  const session = await endUserSession(sandbox, userId);
  return { userId, session, evm: created.body.evmAccounts[0] as `0x${string}` };
}
const as = (session: EndUserSession, body?: object) => ({ endUser: session, wallet: false as const, ...(body ? { body } : {}) });
const signMessage = (u: { userId: string; session: EndUserSession; evm: string }) =>
  call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "hi" }, endUser: u.session });
const inbox = (to: string) => call(sandbox, "GET", `/_sandbox/messages?to=${encodeURIComponent(to)}`, { anonymous: true });

async function enrolTotp(u: { userId: string; session: EndUserSession }) {
  const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, as(u.session));
  expect(started.status, started.text).toBe(200);
  const submitted = await call(
    sandbox,
    "POST",
    `${EW}/${u.userId}/mfa/enroll/totp/submit`,
    as(u.session, { mfaCode: totp(started.body.secret, sandbox.clock.now()) }),
  );
  expect(submitted.status, submitted.text).toBe(200);
  return { secret: started.body.secret as string, submitted };
}

describe("TOTP", () => {
  it("enrols with a real base32 secret and otpauth:// URI, confirmed by a code computed independently on the sandbox clock", async () => {
    const u = await newUser();
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, as(u.session));
    expect(started.status, started.text).toBe(200);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(started.body.authUrl);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toContain(`${u.userId}@example.com`);
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ secret: started.body.secret, algorithm: "SHA1", digits: "6", period: "30" });

    const wrong = await call(
      sandbox,
      "POST",
      `${EW}/${u.userId}/mfa/enroll/totp/submit`,
      as(u.session, { mfaCode: "000000" === totp(started.body.secret, sandbox.clock.now()) ? "111111" : "000000" }),
    );
    expect([wrong.status, wrong.body.errorType]).toEqual([400, "mfa_invalid_code"]);

    const ok = await call(
      sandbox,
      "POST",
      `${EW}/${u.userId}/mfa/enroll/totp/submit`,
      as(u.session, { mfaCode: totp(started.body.secret, sandbox.clock.now()) }),
    );
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.endUser.userId).toBe(u.userId);
    expect(ok.body.endUser.mfaMethods.totp.enrolledAt).toBe(new Date(sandbox.clock.now()).toISOString());

    // The developer's server sees the enrolment on the end user.
    const seen = await call(sandbox, "GET", `/platform/v2/end-users/${u.userId}`);
    expect(seen.body.mfaMethods).toEqual({ totp: { enrolledAt: ok.body.endUser.mfaMethods.totp.enrolledAt }, lastVerificationCompletedAt: expect.any(String) });

    const again = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, as(u.session));
    expect([again.status, again.body.errorType]).toEqual([409, "mfa_already_enrolled"]);
  });

  it("lets an enrolment expire after 5 minutes on the sandbox clock", async () => {
    const u = await newUser();
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, as(u.session));
    sandbox.clock.advance(5 * 60_000 + 1000);
    const late = await call(
      sandbox,
      "POST",
      `${EW}/${u.userId}/mfa/enroll/totp/submit`,
      as(u.session, { mfaCode: totp(started.body.secret, sandbox.clock.now()) }),
    );
    expect([late.status, late.body.errorType]).toEqual([400, "mfa_flow_expired"]);
  });

  it("requires a verification for signing once enrolled and the window passed; a verified user signs; a code works once", async () => {
    const u = await newUser();
    const { secret } = await enrolTotp(u);
    // Enrolling counts as a verification: signing works right away.
    expect((await signMessage(u)).status).toBe(200);

    sandbox.clock.advance(301_000);
    const refused = await signMessage(u);
    expect([refused.status, refused.body.errorType]).toEqual([403, "mfa_required"]);

    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/init`, as(u.session))).status).toBe(204);
    const code = totp(secret, sandbox.clock.now());
    const bad = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/submit`, as(u.session, { mfaCode: code === "123456" ? "654321" : "123456" }));
    expect([bad.status, bad.body.errorType]).toEqual([400, "mfa_invalid_code"]);
    expect((await signMessage(u)).status).toBe(403); // a wrong code changed nothing

    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/submit`, as(u.session, { mfaCode: code }))).status).toBe(204);
    const signed = await signMessage(u);
    expect(signed.status, signed.text).toBe(200);
    expect(await recoverMessageAddress({ message: "hi", signature: signed.body.signature })).toBe(u.evm);

    const replay = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/submit`, as(u.session, { mfaCode: code }));
    expect([replay.status, replay.body.errorType]).toEqual([400, "mfa_invalid_code"]);
  });

  it("takes the verification window from the project's embeddedWallets.mfa settings", async () => {
    const project = sandbox.credentials.projectId;
    const patch = (seconds: number | undefined) =>
      call(sandbox, "PATCH", `/_sandbox/projects/${project}`, {
        body: { settings: { embeddedWallets: { mfa: { verificationWindowSeconds: seconds } } } },
        anonymous: true,
      });
    expect((await patch(60)).status).toBe(200);
    try {
      const u = await newUser();
      await enrolTotp(u);
      sandbox.clock.advance(59_000);
      expect((await signMessage(u)).status).toBe(200);
      sandbox.clock.advance(2_000);
      expect((await signMessage(u)).body.errorType).toBe("mfa_required");
    } finally {
      await patch(undefined);
    }
  });

  it("needs no MFA from a user who never enrolled, and answers mfa_not_enrolled to a verification", async () => {
    const u = await newUser();
    expect((await signMessage(u)).status).toBe(200);
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/totp/init`, as(u.session));
    expect([res.status, res.body.errorType]).toEqual([400, "mfa_not_enrolled"]);
  });

  it("refuses another user's token on MFA operations, and on a signing of an enrolled user with 401, not mfa_required", async () => {
    const u = await newUser();
    const other = await newUser();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/totp/init`, as(other.session))).status).toBe(401);
    await enrolTotp(u);
    sandbox.clock.advance(301_000);
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "hi" }, endUser: other.session });
    expect([res.status, res.body.errorType]).toEqual([401, "unauthorized"]);
  });
});

describe("SMS", () => {
  it("enrols and verifies with codes recorded in the inbox, never sent", async () => {
    const u = await newUser();
    const phone = "+14155550123";
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/initiate`, as(u.session, { type: "sms", phoneNumber: phone }));
    expect(started.status, started.text).toBe(200);
    expect(started.body).toEqual({ success: true });
    const [message] = (await inbox(phone)).body.messages;
    expect(message).toMatchObject({ to: phone, channel: "sms" });
    expect(message.code).toMatch(/^\d{6}$/);
    const enrolled = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/submit`, as(u.session, { mfaCode: message.code }));
    expect(enrolled.status, enrolled.text).toBe(200);
    expect(enrolled.body.endUser.mfaMethods.sms).toBeDefined();

    sandbox.clock.advance(301_000);
    expect((await signMessage(u)).status).toBe(403);
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/sms/init`, as(u.session))).status).toBe(204);
    const [latest] = (await inbox(phone)).body.messages;
    expect(latest.flowId).not.toBe(message.flowId);
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/sms/submit`, as(u.session, { mfaCode: latest.code }))).status).toBe(204);
    expect((await signMessage(u)).status).toBe(200);
    // The code was used up.
    const again = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/sms/submit`, as(u.session, { mfaCode: latest.code }));
    expect([again.status, again.body.errorType]).toEqual([400, "mfa_flow_expired"]);
  });

  it("refuses a wrong SMS code and an enrolment past 5 minutes, and a verification by SMS for a user not enrolled in it", async () => {
    const u = await newUser();
    const started = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/initiate`, as(u.session, { type: "sms", phoneNumber: "+14155550199" }));
    expect(started.status, started.text).toBe(200);
    // The sandbox's seeded randomness never drew this code for this user (the inbox shows the real one).
    const wrong = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/submit`, as(u.session, { mfaCode: "000000" }));
    expect([wrong.status, wrong.body.errorType]).toEqual([400, "mfa_invalid_code"]);
    sandbox.clock.advance(5 * 60_000 + 1000);
    const late = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/submit`, as(u.session, { mfaCode: "000000" }));
    expect([late.status, late.body.errorType]).toEqual([400, "mfa_flow_expired"]);
    await enrolTotp(u);
    const sms = await call(sandbox, "POST", `${EW}/${u.userId}/mfa/verify/sms/init`, as(u.session));
    expect([sms.status, sms.body.errorType]).toEqual([400, "mfa_not_enrolled"]);
  });

  it("refuses SMS enrolment without a phone number, and records the enrolment prompt", async () => {
    const u = await newUser();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/mfa/enroll/sms/init`, as(u.session))).status).toBe(400);
    const prompted = await call(sandbox, "PUT", `${EW}/${u.userId}/mfa/prompt`, as(u.session));
    expect(prompted.status, prompted.text).toBe(200);
    expect(prompted.body.enrollmentPromptedAt).toBe(new Date(sandbox.clock.now()).toISOString());
  });
});
