/**
 * Onramp-managed verification of a buyer's phone number (sms) or email: a
 * six-digit code is "sent" (the sandbox keeps it in an outbox readable at
 * GET /_sandbox/onramp/verifications/{verificationId}), the code must come
 * back within 10 minutes, and the confirmed verification may then back
 * orders for 60 days (smsVerificationId, emailVerificationId).
 *
 * States: pending → verified (the right code within 10 minutes). A wrong code
 * changes nothing (a failed request never does); a late one needs a new
 * verification. A verified record backs orders for 60 days after confirmation.
 */
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { checkPhoneNumber } from "./regions.js";
import { declareCollection } from "../../store/collections.js";

const OTP_LIFETIME_MS = 10 * 60 * 1000;
export const VERIFICATION_LIFETIME_MS = 60 * 24 * 60 * 60 * 1000;
/** Codes sent to one destination within OTP_LIFETIME_MS before 429. */
const MAX_CODES_PER_DESTINATION = 5;

type Channel = Schema<"InitiateOnrampVerificationRequest">["channel"];

export interface OnrampVerificationRecord {
  verificationId: string;
  channel: Channel;
  destination: string;
  otpCode: string;
  createdAtMs: number;
  otpExpiresAtMs: number;
  status: "pending" | "verified";
  verifiedAtMs?: number;
}

const ONRAMP_VERIFICATIONS = declareCollection<OnrampVerificationRecord>("onrampVerifications");

export const onrampVerifications = (store: ProjectTx) => store.collection(ONRAMP_VERIFICATIONS);

const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}/-]+@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*$/;

export const initiateOnrampVerification: Handler<"initiateOnrampVerification"> = (req, ctx) => {
  if (ctx.project.settings.onrampVerificationEnabled === false) {
    throw apiError("forbidden", "Onramp-managed verification is not enabled for this project (project setting onrampVerificationEnabled is false).");
  }
  const { channel, destination } = req.body;
  if (channel === "sms") checkPhoneNumber(destination, "destination");
  else if (!EMAIL.test(destination))
    throw apiError("invalid_request", `destination must be an email address when channel is email, got ${JSON.stringify(destination)}.`);
  const now = ctx.clock.now();
  const recent = onrampVerifications(ctx.store).filter((v) => v.destination === destination && v.createdAtMs > now - OTP_LIFETIME_MS);
  if (recent.length >= MAX_CODES_PER_DESTINATION) {
    throw apiError(
      "rate_limit_exceeded",
      `${MAX_CODES_PER_DESTINATION} codes were sent to ${destination} in the last 10 minutes; wait before sending another.`,
    );
  }
  const record: OnrampVerificationRecord = {
    verificationId: `onramp_verification_${ctx.random.uuid()}`,
    channel,
    destination,
    otpCode: String(ctx.random.int(1_000_000)).padStart(6, "0"),
    createdAtMs: now,
    otpExpiresAtMs: now + OTP_LIFETIME_MS,
    status: "pending",
  };
  onrampVerifications(ctx.store).insert(record.verificationId, record);
  const body: ResponseBody<"initiateOnrampVerification", 201> = {
    verificationId: record.verificationId,
    otpExpiresAt: new Date(record.otpExpiresAtMs).toISOString(),
  };
  return { status: 201, body };
};

export const submitOnrampVerification: Handler<"submitOnrampVerification"> = (req, ctx) => {
  const { verificationId } = req.pathParams;
  const { otpCode } = req.body;
  const record = findVerification(ctx, verificationId);
  if (record.status === "verified")
    throw apiError("otp_verification_invalid", `Verification ${verificationId} was already completed; pass it to createOnrampOrder.`);
  const now = ctx.clock.now();
  if (now > record.otpExpiresAtMs) {
    throw apiError(
      "otp_verification_code_invalid",
      `The code of verification ${verificationId} expired at ${new Date(record.otpExpiresAtMs).toISOString()}; initiate a new verification.`,
    );
  }
  if (otpCode !== record.otpCode)
    throw apiError("otp_verification_code_invalid", `The code for verification ${verificationId} is incorrect; check the code sent to ${mask(record)}.`);
  const verified: OnrampVerificationRecord = { ...record, status: "verified", verifiedAtMs: now };
  onrampVerifications(ctx.store).put(verificationId, verified);
  const body: ResponseBody<"submitOnrampVerification", 200> = { verificationId, verificationExpiresAt: new Date(now + VERIFICATION_LIFETIME_MS).toISOString() };
  return { status: 200, body };
};

function findVerification(ctx: HandlerContext, verificationId: string): OnrampVerificationRecord {
  const record = onrampVerifications(ctx.store).get(verificationId);
  if (!record) throw apiError("otp_verification_not_found", `Verification ${verificationId} does not exist in this project.`);
  return record;
}

/** The destination as a code screen shows it: +1•••••••0123, a•••@example.com. */
function mask(record: OnrampVerificationRecord): string {
  if (record.channel === "sms")
    return `${record.destination.slice(0, 2)}${"•".repeat(Math.max(0, record.destination.length - 6))}${record.destination.slice(-4)}`;
  const [user, domain] = record.destination.split("@");
  return `${user!.slice(0, 1)}•••@${domain}`;
}

/**
 * A confirmed verification backing an order: it must exist, be verified, be
 * for this channel and destination, and not be older than 60 days.
 */
export function verifiedFor(ctx: HandlerContext, verificationId: string, channel: Channel, destination: string, field: string): OnrampVerificationRecord {
  const record = findVerification(ctx, verificationId);
  const what = (c: Channel) => (c === "sms" ? "a phone number (sms)" : "an email address");
  if (record.channel !== channel)
    throw apiError("otp_verification_invalid", `${field} ${verificationId} verified ${what(record.channel)}, not ${what(channel)}.`);
  if (record.status !== "verified")
    throw apiError("otp_verification_invalid", `${field} ${verificationId} is not confirmed yet (submit its code first); it cannot back an order.`);
  if (record.destination !== destination) {
    throw apiError("otp_verification_destination_mismatch", `${field} ${verificationId} verified ${record.destination}, but the order is for ${destination}.`);
  }
  const expiresAt = record.verifiedAtMs! + VERIFICATION_LIFETIME_MS;
  if (ctx.clock.now() > expiresAt) {
    throw apiError(
      "otp_verification_expired",
      `${field} ${verificationId} expired at ${new Date(expiresAt).toISOString()} (60 days after it was confirmed); initiate a new verification.`,
    );
  }
  return record;
}
