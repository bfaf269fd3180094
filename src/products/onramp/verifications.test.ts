/**
 * Onramp-managed verification: a code sent (read back from the sandbox's
 * outbox), submitted within 10 minutes, then backing orders for 60 days, with
 * every otp_verification_* error of the contract.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { createOrder, freshPhone, orderBody, sentCode } from "#test/helpers/onramp.js";
import { call, withSandbox, type Credentials } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-verifications", validateResponses: true });
});
afterAll(() => sandbox.close());

const VERIFICATIONS = "/platform/v2/onramp/verifications";
const initiate = (channel: string, destination: string, credentials?: Credentials) =>
  call(sandbox, "POST", VERIFICATIONS, { body: { channel, destination }, credentials });
const submit = (verificationId: string, otpCode: string) => call(sandbox, "POST", `${VERIFICATIONS}/${verificationId}/submit`, { body: { otpCode } });

/** A confirmed verification of `destination`. */
async function verified(channel: "sms" | "email", destination: string): Promise<string> {
  const { verificationId } = (await initiate(channel, destination)).body;
  expect((await submit(verificationId, await sentCode(sandbox, verificationId))).status).toBe(200);
  return verificationId;
}

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("initiating a verification", () => {
  it("sends a six-digit code valid for 10 minutes, readable from the sandbox outbox", async () => {
    const phone = freshPhone();
    const before = sandbox.clock.now();
    const res = await initiate("sms", phone);
    const after = sandbox.clock.now();
    expect(res.status).toBe(201);
    expect(res.body.verificationId).toMatch(/^onramp_verification_[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/);
    expect(Date.parse(res.body.otpExpiresAt)).toBeGreaterThanOrEqual(before + 600_000);
    expect(Date.parse(res.body.otpExpiresAt)).toBeLessThanOrEqual(after + 600_000);
    const outbox = await request(sandbox.url).get(`/_sandbox/onramp/verifications/${res.body.verificationId}`);
    expect(outbox.body).toMatchObject({ channel: "sms", destination: phone, otpExpiresAt: res.body.otpExpiresAt, status: "pending" });
    expect(outbox.body.otpCode).toMatch(/^\d{6}$/);
  });

  it("refuses a destination that does not fit the channel with 400 invalid_request", async () => {
    const sms = await initiate("sms", "buyer@example.com");
    expect(sms.status).toBe(400);
    expect(sms.body.errorMessage).toMatch(/E\.164/);
    const email = await initiate("email", "+14155550100");
    expect(email.status).toBe(400);
    expect(email.body.errorMessage).toMatch(/must be an email address when channel is email/);
  });

  it("answers 429 rate_limit_exceeded for a sixth code to one destination within 10 minutes", async () => {
    const phone = freshPhone();
    for (let i = 0; i < 5; i++) expect((await initiate("sms", phone)).status).toBe(201);
    const sixth = await initiate("sms", phone);
    expect(sixth.status).toBe(429);
    expect(sixth.body.errorType).toBe("rate_limit_exceeded");
    sandbox.clock.advance(600_001);
    expect((await initiate("sms", phone)).status).toBe(201);
  });

  it("answers 403 forbidden when the project is not allowlisted (setting onrampVerificationEnabled false)", async () => {
    const project = await sandbox.createProject("not-allowlisted");
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${project.projectId}`)
      .send({ settings: { onrampVerificationEnabled: false } });
    const res = await initiate("email", "buyer@example.com", project);
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("forbidden");
  });
});

describe("submitting the code", () => {
  it("confirms the verification for 60 days with the right code", async () => {
    const { verificationId } = (await initiate("email", "ada@example.com")).body;
    const res = await submit(verificationId, await sentCode(sandbox, verificationId));
    expect(res.status).toBe(200);
    expect(res.body.verificationId).toBe(verificationId);
    expect(Date.parse(res.body.verificationExpiresAt) - sandbox.clock.now()).toBeGreaterThan(60 * 86_400_000 - 5_000);
    expect(Date.parse(res.body.verificationExpiresAt) - sandbox.clock.now()).toBeLessThanOrEqual(60 * 86_400_000);
  });

  it("answers otp_verification_code_invalid for a wrong code, and still takes the right one afterwards", async () => {
    const { verificationId } = (await initiate("sms", freshPhone())).body;
    const code = await sentCode(sandbox, verificationId);
    const wrong = await submit(verificationId, wrongCode(code));
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorType).toBe("otp_verification_code_invalid");
    expect(wrong.body.errorMessage).toMatch(/incorrect; check the code sent to \+1•+\d{4}/);
    expect((await submit(verificationId, code)).status).toBe(200);
  });

  it("answers otp_verification_code_invalid for the right code after 10 minutes", async () => {
    const { verificationId } = (await initiate("sms", freshPhone())).body;
    const code = await sentCode(sandbox, verificationId);
    sandbox.clock.advance(600_001);
    const late = await submit(verificationId, code);
    expect(late.status).toBe(400);
    expect(late.body.errorType).toBe("otp_verification_code_invalid");
    expect(late.body.errorMessage).toMatch(/expired at .*initiate a new verification/);
  });

  it("answers otp_verification_invalid for a verification already completed", async () => {
    const verificationId = await verified("sms", freshPhone());
    const again = await submit(verificationId, await sentCode(sandbox, verificationId));
    expect(again.status).toBe(400);
    expect(again.body.errorType).toBe("otp_verification_invalid");
  });

  it("answers 404 otp_verification_not_found for an unknown verification", async () => {
    const res = await submit("onramp_verification_00000000-0000-4000-8000-000000000000", "123456");
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("otp_verification_not_found");
  });

  it("answers 400 invalid_request for a code that is not six digits", async () => {
    const { verificationId } = (await initiate("sms", freshPhone())).body;
    const res = await submit(verificationId, "12345");
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});

describe("orders backed by Onramp verifications", () => {
  const backed = (phoneNumber: string, email: string, ids: Record<string, string>) =>
    orderBody(sandbox, { phoneNumber, email, phoneNumberVerifiedAt: undefined, ...ids });

  it("takes smsVerificationId and emailVerificationId instead of phoneNumberVerifiedAt", async () => {
    const phone = freshPhone();
    const res = await createOrder(
      sandbox,
      backed(phone, "grace@example.com", {
        smsVerificationId: await verified("sms", phone),
        emailVerificationId: await verified("email", "grace@example.com"),
      }),
    );
    expect(res.status).toBe(201);
  });

  it("answers otp_verification_destination_mismatch when the verified number is not the order's", async () => {
    const res = await createOrder(sandbox, backed(freshPhone(), "grace@example.com", { smsVerificationId: await verified("sms", freshPhone()) }));
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("otp_verification_destination_mismatch");
  });

  it("answers otp_verification_invalid for a verification whose code was never submitted, or of the other channel", async () => {
    const phone = freshPhone();
    const pending = (await initiate("sms", phone)).body.verificationId;
    const res = await createOrder(sandbox, backed(phone, "grace@example.com", { smsVerificationId: pending }));
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("otp_verification_invalid");
    const emailOne = await verified("email", "grace@example.com");
    const crossed = await createOrder(sandbox, backed(phone, "grace@example.com", { smsVerificationId: emailOne }));
    expect(crossed.body.errorType).toBe("otp_verification_invalid");
  });

  it("answers 404 otp_verification_not_found for an unknown verification id", async () => {
    const res = await createOrder(
      sandbox,
      backed(freshPhone(), "grace@example.com", { smsVerificationId: "onramp_verification_00000000-0000-4000-8000-000000000000" }),
    );
    expect(res.status).toBe(404);
    expect(res.body.errorType).toBe("otp_verification_not_found");
  });

  it("answers otp_verification_expired 60 days after the verification was confirmed", async () => {
    const phone = freshPhone();
    const smsVerificationId = await verified("sms", phone);
    sandbox.clock.advance(60 * 86_400_000 + 1000);
    const res = await createOrder(
      sandbox,
      backed(phone, "grace@example.com", { smsVerificationId, agreementAcceptedAt: new Date(sandbox.clock.now()).toISOString() }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("otp_verification_expired");
  });

  it("answers otp_verification_required when the project requires Onramp verification (setting onrampVerificationRequired)", async () => {
    const project = await sandbox.createProject("verification-required");
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${project.projectId}`)
      .send({ settings: { onrampVerificationRequired: true } });
    const res = await createOrder(sandbox, orderBody(sandbox), project);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("otp_verification_required");
  });

  it("lets a buyer known by a confirmed code read their limits", async () => {
    const phone = freshPhone();
    const before = await call(sandbox, "POST", "/platform/v2/onramp/limits", {
      body: { paymentMethodType: "GUEST_CHECKOUT_APPLE_PAY", userId: phone, userIdType: "phone_number" },
    });
    expect(before.status).toBe(400);
    await verified("sms", phone);
    const after = await call(sandbox, "POST", "/platform/v2/onramp/limits", {
      body: { paymentMethodType: "GUEST_CHECKOUT_APPLE_PAY", userId: phone, userIdType: "phone_number" },
    });
    expect(after.status).toBe(200);
  });
});
