/**
 * End users' second factors. A method is enrolled in two steps — initiate (a TOTP secret, or an SMS code sent to a
 * phone number), then submit the first code within 5 minutes — and from then on the operations that move funds or
 * keys need a recent verification: initiate (SMS sends a code), submit a code, and for the project's verification
 * window (`settings.embeddedWallets.mfa.verificationWindowSeconds`, 300 s by default) those operations are accepted; after it they
 * answer mfa_required (403, or 401 where the operation's contract declares no 403), which is what the client waits for
 * to ask the user for a code. Enrolling a second factor is such an operation too: otherwise a stolen access token
 * would enrol the thief's own factor and pass every gate. Wrong codes are counted per user, across methods and
 * flows: the fifth locks code submission for MFA_LOCK_MS (429 rate_limit_exceeded); a right code resets the count.
 * An expired code changes nothing. SMS codes are never sent: they land in the sandbox's message inbox.
 *
 * Kept beside the end user rather than in their record: the sign-in flows own that record.
 */
import { ApiError, apiError, keepingWrites, withStatus } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import type { OperationId, Schema } from "../../contract/types.js";
import { recordInboxMessage } from "../shared/inbox.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { endUserView, findEndUser } from "../records/endUsers.js";
import { base32Decode, base32Encode, matchTotp, otpauthUri } from "./totp.js";

type MfaMethod = "totp" | "sms";

/** An enrolment or an SMS verification waiting for its code. */
interface PendingCode {
  /** TOTP: the secret being enrolled. */
  secretBase32?: string;
  /** SMS: the number the code went to and the code. */
  phoneNumber?: string;
  code?: string;
  expiresAtMs: number;
}

interface EndUserMfaRecord {
  userId: string;
  totp?: { secretBase32: string; enrolledAt: string; lastCounter: number };
  sms?: { phoneNumber: string; enrolledAt: string };
  enrolling: Partial<Record<MfaMethod, PendingCode>>;
  /** An SMS code sent for a verification. */
  smsChallenge?: PendingCode;
  enrollmentPromptedAt?: string;
  lastVerificationCompletedAtMs?: number;
  /** Wrong codes since the last right one or the last lock. */
  wrongCodes?: number;
  lockedUntilMs?: number;
}

const END_USER_MFA = declareCollection<EndUserMfaRecord>("endUserMfa");
const FLOW_LIFETIME_MS = 5 * 60_000;
const DEFAULT_VERIFICATION_WINDOW_SECONDS = 300;
const TOTP_ISSUER = "CDP Sandbox";
/** Wrong codes a user may give (verification and enrolment together) before code submission locks, as a sign-in flow does. */
const MAX_WRONG_MFA_CODES = 5;
const MFA_LOCK_MS = 15 * 60_000;

const mfaOf = (store: ProjectTx, userId: string): EndUserMfaRecord => store.collection(END_USER_MFA).get(userId) ?? { userId, enrolling: {} };
const save = (store: ProjectTx, record: EndUserMfaRecord) => store.collection(END_USER_MFA).put(record.userId, record);
const isEnrolled = (r: EndUserMfaRecord) => r.totp !== undefined || r.sms !== undefined;

/** The end user's `mfaMethods`, as the platform shows them on the end user (undefined: nothing to show). */
function mfaMethodsView(store: ProjectTx, userId: string): Schema<"MFAMethods"> | undefined {
  const r = store.collection(END_USER_MFA).get(userId);
  if (!r) return undefined;
  const view: Schema<"MFAMethods"> = {
    ...(r.enrollmentPromptedAt ? { enrollmentPromptedAt: r.enrollmentPromptedAt } : {}),
    ...(r.lastVerificationCompletedAtMs !== undefined ? { lastVerificationCompletedAt: new Date(r.lastVerificationCompletedAtMs).toISOString() } : {}),
    ...(r.totp ? { totp: { enrolledAt: r.totp.enrolledAt } } : {}),
    ...(r.sms ? { sms: { enrolledAt: r.sms.enrolledAt } } : {}),
  };
  return Object.keys(view).length === 0 ? undefined : view;
}

/** An end user's view with their `mfaMethods`, when they have any (what the developer's server and the client see). */
export function withMfaMethods<T extends { userId: string }>(store: ProjectTx, view: T): T & { mfaMethods?: Schema<"MFAMethods"> } {
  const mfaMethods = mfaMethodsView(store, view.userId);
  return mfaMethods ? { ...view, mfaMethods } : view;
}

/**
 * The window `auth/mfa` reports: the project-wide `settings.mfaVerificationWindowSeconds` when set, else
 * `settings.embeddedWallets.mfa.verificationWindowSeconds`, else 300 s. (The gate read only the second once, so a
 * client told 60 s was let through for 300.)
 */
function verificationWindowMs(ctx: HandlerContext): number {
  const wallets = ctx.project.settings.embeddedWallets as { mfa?: { verificationWindowSeconds?: unknown } } | undefined;
  const projectWide = ctx.project.settings.mfaVerificationWindowSeconds;
  const seconds = typeof projectWide === "number" ? projectWide : wallets?.mfa?.verificationWindowSeconds;
  return (typeof seconds === "number" && seconds > 0 ? seconds : DEFAULT_VERIFICATION_WINDOW_SECONDS) * 1000;
}

/**
 * Refuses with mfa_required (`status`: 403 unless the operation's contract declares only 401) an end user enrolled in
 * MFA whose last verification is older than the window. Only the end user's own calls: a developer acting under a
 * delegation grant has no second factor to give.
 */
function requireRecentMfa(req: RequestFacts, ctx: HandlerContext, userId: string, status: 401 | 403): void {
  // Another user's token is refused by the operation itself (401), without learning whether this user enrolled.
  if (req.auth.kind !== "endUser" || req.auth.endUserId !== userId) return;
  const r = ctx.store.collection(END_USER_MFA).get(userId);
  if (!r || !isEnrolled(r)) return;
  const last = r.lastVerificationCompletedAtMs;
  if (last !== undefined && ctx.clock.now() <= last + verificationWindowMs(ctx)) return;
  const refusal = apiError(
    "mfa_required",
    `End user ${userId} is enrolled in MFA and ${last === undefined ? "has not verified yet" : `last verified at ${new Date(last).toISOString()}`}; verify with /mfa/verify/{mfaMethod}/init and /submit, then retry.`,
  );
  throw status === 403 ? refusal : withStatus(refusal, status);
}

/** The path's method (the contract's enum already checked it; this narrows the type). */
function methodOf(value: string): MfaMethod {
  if (value !== "totp" && value !== "sms") throw apiError("invalid_request", `mfaMethod must be totp or sms, got ${value}.`);
  return value;
}

/**
 * `handler`, refused with mfa_required while the end user owes a verification: the operations the client runs
 * behind its MFA prompt (signing, sending, exporting, delegating, swaps, spend permissions), and x402 payments. The
 * status is 403 unless the operation's contract declares no 403 (then 401: `status`).
 */
export function afterMfa<Id extends OperationId>(handler: Handler<Id>, status: 401 | 403 = 403): Handler<Id> {
  return (req, ctx) => {
    requireRecentMfa(req, ctx, (req.pathParams as { userId: string }).userId, status);
    return handler(req, ctx);
  };
}

/** 429 while the user's code submission is locked after too many wrong codes. */
function assertNotLocked(ctx: HandlerContext, r: EndUserMfaRecord): void {
  if (r.lockedUntilMs !== undefined && ctx.clock.now() < r.lockedUntilMs) {
    throw apiError(
      "rate_limit_exceeded",
      `End user ${r.userId} gave ${MAX_WRONG_MFA_CODES} wrong MFA codes; codes are refused until ${new Date(r.lockedUntilMs).toISOString()}.`,
    );
  }
}

/**
 * Runs `check` of a code. A wrong one (mfa_invalid_code) is counted and the count committed although the request is
 * refused; the fifth locks code submission. The caller resets the count on success (`codeAccepted`).
 */
function countingWrongCodes<T>(ctx: HandlerContext, r: EndUserMfaRecord, check: () => T): T {
  assertNotLocked(ctx, r);
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ApiError) || error.errorType !== "mfa_invalid_code") throw error;
    const wrongCodes = (r.wrongCodes ?? 0) + 1;
    if (wrongCodes < MAX_WRONG_MFA_CODES) {
      save(ctx.store, { ...r, wrongCodes });
      throw keepingWrites(error);
    }
    const lockedUntilMs = ctx.clock.now() + MFA_LOCK_MS;
    save(ctx.store, { ...r, wrongCodes: 0, lockedUntilMs });
    throw keepingWrites(
      apiError(
        "rate_limit_exceeded",
        `Wrong code; after ${MAX_WRONG_MFA_CODES} wrong MFA codes, end user ${r.userId}'s codes are refused until ${new Date(lockedUntilMs).toISOString()}.`,
      ),
    );
  }
}

/** The record with the wrong-code count and any lock cleared: a right code was given. */
const codeAccepted = ({ wrongCodes: _count, lockedUntilMs: _lock, ...r }: EndUserMfaRecord): EndUserMfaRecord => r;

function ownUser(req: RequestFacts, ctx: HandlerContext, userId: string) {
  if (req.auth.kind === "endUser" && req.auth.endUserId !== userId)
    throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
  return findEndUser(ctx.store, userId);
}

/** A 6-digit code "sent" by SMS: recorded in the inbox, under a flow id of its own. */
function sendSmsCode(ctx: HandlerContext, phoneNumber: string): PendingCode {
  const code = String(ctx.random.secrets().int(1_000_000)).padStart(6, "0");
  recordInboxMessage(ctx.store, { to: phoneNumber, channel: "sms", code, flowId: ctx.random.uuid(), sentAt: ctx.clock.iso() });
  return { phoneNumber, code, expiresAtMs: ctx.clock.now() + FLOW_LIFETIME_MS };
}

function startEnrollment(ctx: HandlerContext, userId: string, method: MfaMethod, phoneNumber: string | undefined) {
  const r = mfaOf(ctx.store, userId);
  if (r[method]) throw apiError("mfa_already_enrolled", `End user ${userId} is already enrolled in ${method} MFA.`);
  if (method === "sms") {
    if (phoneNumber === undefined)
      throw apiError("invalid_request", "SMS enrolment needs phoneNumber (E.164, e.g. +14155552671); use /mfa/enroll/sms/initiate.");
    save(ctx.store, { ...r, enrolling: { ...r.enrolling, sms: sendSmsCode(ctx, phoneNumber) } });
    return { status: 200 as const, body: { success: true } };
  }
  const secretBase32 = base32Encode(ctx.random.secrets().bytes(20));
  save(ctx.store, { ...r, enrolling: { ...r.enrolling, totp: { secretBase32, expiresAtMs: ctx.clock.now() + FLOW_LIFETIME_MS } } });
  const user = findEndUser(ctx.store, userId);
  const account = user.authenticationMethods.map(accountLabel).find((l) => l !== undefined) ?? userId;
  return { status: 200 as const, body: { authUrl: otpauthUri(secretBase32, TOTP_ISSUER, account), secret: secretBase32 } };
}

/** What an authenticator app shows next to the code: the user's email or phone when they have one. */
function accountLabel(m: Schema<"AuthenticationMethod">): string | undefined {
  if ("email" in m && typeof m.email === "string") return m.email;
  if ("phoneNumber" in m && typeof m.phoneNumber === "string") return m.phoneNumber;
  return undefined;
}

/** Checks a pending flow and its code; throws what the platform answers for an expired flow or a wrong code. */
function checkPending(ctx: HandlerContext, pending: PendingCode | undefined, what: string, code: string): number | undefined {
  if (!pending) throw apiError("mfa_flow_expired", `No ${what} is in progress; start one first.`);
  if (ctx.clock.now() > pending.expiresAtMs)
    throw apiError("mfa_flow_expired", `The ${what} expired at ${new Date(pending.expiresAtMs).toISOString()}; start again.`);
  if (pending.secretBase32 !== undefined) {
    const counter = matchTotp(base32Decode(pending.secretBase32), code, ctx.clock.now());
    if (counter === undefined) throw apiError("mfa_invalid_code", `The code does not match the authenticator's current code (${what}).`);
    return counter;
  }
  if (pending.code !== code) throw apiError("mfa_invalid_code", `The code is not the one sent to ${pending.phoneNumber} (${what}).`);
  return undefined;
}

/**
 * A user who already has a factor enrols another only after a recent verification of it: with a stolen access token
 * alone, a second factor of the thief's would open every gate. Declared status of the enrolment operations: 401.
 */
const requireRecentMfaToEnrol = (req: RequestFacts, ctx: HandlerContext, userId: string) => requireRecentMfa(req, ctx, userId, 401);

export const initiateMfaEnrollment: Handler<"initiateMfaEnrollment"> = (req, ctx) => {
  ownUser(req, ctx, req.pathParams.userId);
  requireRecentMfaToEnrol(req, ctx, req.pathParams.userId);
  return startEnrollment(ctx, req.pathParams.userId, methodOf(req.pathParams.mfaMethod), undefined);
};

export const initiateMfaEnrollment2: Handler<"initiateMfaEnrollment2"> = (req, ctx) => {
  ownUser(req, ctx, req.pathParams.userId);
  if (req.body.type !== req.pathParams.mfaMethod)
    throw apiError("invalid_request", `body.type (${req.body.type}) must match the path's method (${req.pathParams.mfaMethod}).`);
  requireRecentMfaToEnrol(req, ctx, req.pathParams.userId);
  return startEnrollment(ctx, req.pathParams.userId, methodOf(req.pathParams.mfaMethod), req.body.phoneNumber);
};

export const submitMfaEnrollment: Handler<"submitMfaEnrollment"> = (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  const method = methodOf(req.pathParams.mfaMethod);
  const r = mfaOf(ctx.store, user.userId);
  if (r[method]) throw apiError("mfa_already_enrolled", `End user ${user.userId} is already enrolled in ${method} MFA.`);
  // An enrolment started before the first factor existed finishes only after verifying that factor.
  requireRecentMfaToEnrol(req, ctx, user.userId);
  const pending = r.enrolling[method];
  const counter = countingWrongCodes(ctx, r, () => checkPending(ctx, pending, `${method} enrolment`, req.body.mfaCode));
  const now = ctx.clock.now();
  const { [method]: _done, ...enrolling } = r.enrolling;
  const next: EndUserMfaRecord = {
    ...codeAccepted(r),
    enrolling,
    ...(method === "totp" ? { totp: { secretBase32: pending!.secretBase32!, enrolledAt: ctx.clock.iso(), lastCounter: counter! } } : {}),
    ...(method === "sms" ? { sms: { phoneNumber: pending!.phoneNumber!, enrolledAt: ctx.clock.iso() } } : {}),
    // Proving the factor is a verification too: the user is not asked again right away.
    lastVerificationCompletedAtMs: now,
  };
  save(ctx.store, next);
  return { status: 200, body: { endUser: withMfaMethods(ctx.store, endUserView(user)) } };
};

export const initiateMfaVerification: Handler<"initiateMfaVerification"> = (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  const method = methodOf(req.pathParams.mfaMethod);
  const r = mfaOf(ctx.store, user.userId);
  if (!isEnrolled(r)) throw apiError("mfa_not_enrolled", `End user ${user.userId} has not enrolled in any MFA method.`);
  if (method === "sms") {
    if (!r.sms) throw apiError("mfa_not_enrolled", `End user ${user.userId} has not enrolled in SMS MFA.`);
    save(ctx.store, { ...r, smsChallenge: sendSmsCode(ctx, r.sms.phoneNumber) });
  } else if (!r.totp) {
    throw apiError("mfa_not_enrolled", `End user ${user.userId} has not enrolled in TOTP MFA.`);
  }
  return { status: 204 };
};

export const submitMfaVerification: Handler<"submitMfaVerification"> = (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  const method = methodOf(req.pathParams.mfaMethod);
  const r = mfaOf(ctx.store, user.userId);
  const now = ctx.clock.now();
  if (method === "totp") {
    const totp = r.totp;
    if (!totp) throw apiError("mfa_not_enrolled", `End user ${user.userId} has not enrolled in TOTP MFA.`);
    const counter = countingWrongCodes(ctx, r, () => {
      const step = matchTotp(base32Decode(totp.secretBase32), req.body.mfaCode, now);
      // A code works once: a step at or before the last one accepted is a replay.
      if (step === undefined || step <= totp.lastCounter) {
        throw apiError(
          "mfa_invalid_code",
          step === undefined ? "The code does not match the authenticator's current code." : "This code was already used; wait for the next one.",
        );
      }
      return step;
    });
    save(ctx.store, { ...codeAccepted(r), totp: { ...totp, lastCounter: counter }, lastVerificationCompletedAtMs: now });
  } else {
    if (!r.sms) throw apiError("mfa_not_enrolled", `End user ${user.userId} has not enrolled in SMS MFA.`);
    countingWrongCodes(ctx, r, () => checkPending(ctx, r.smsChallenge, "SMS verification", req.body.mfaCode));
    const { smsChallenge: _used, ...rest } = codeAccepted(r);
    save(ctx.store, { ...rest, lastVerificationCompletedAtMs: now });
  }
  return { status: 204 };
};

export const recordMfaEnrollmentPrompted: Handler<"recordMfaEnrollmentPrompted"> = (req, ctx) => {
  const user = ownUser(req, ctx, req.pathParams.userId);
  const enrollmentPromptedAt = ctx.clock.iso();
  save(ctx.store, { ...mfaOf(ctx.store, user.userId), enrollmentPromptedAt });
  return { status: 200, body: { enrollmentPromptedAt } };
};
