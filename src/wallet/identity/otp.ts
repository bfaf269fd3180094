/**
 * Email and SMS sign-in: a 6-digit one-time code per flow, "sent" to the
 * message inbox, valid for 10 minutes of sandbox time and once. A project may
 * fix the code for an address (settings.embeddedWallets.testCodes). Wrong
 * codes are counted; the fifth locks the flow. Flows opened and codes
 * checked are limited per address and per project too (rateLimits.ts).
 */
import { timingSafeEqual } from "node:crypto";
import { apiError, keepingWrites } from "../../errors/catalogue.js";
import { recordInboxMessage } from "../shared/inbox.js";
import type { HandlerContext, RequestFacts } from "../types.js";
import { FLOW_TTL_MS, MAX_WRONG_CODES, openFlow, signInFlows } from "./flows.js";
import { assertMethodEnabled, origin, projectSettings, signedInUser } from "./project.js";
import { countSignInAttempt } from "./rateLimits.js";
import { endUserFor, startSession } from "./session.js";

type Channel = "email" | "sms";

export function startOtpFlow(req: RequestFacts, ctx: HandlerContext, projectId: string, channel: Channel, rawTo: string) {
  const settings = projectSettings(projectId, ctx);
  assertMethodEnabled(settings, channel);
  const to = channel === "email" ? rawTo.toLowerCase() : rawTo;
  countSignInAttempt(ctx, settings.signInRateLimits, "flow", to);
  const flowId = ctx.random.uuid();
  const code = settings.testCodes[to] ?? String(ctx.random.secrets().int(1_000_000)).padStart(6, "0");
  signInFlows(ctx.store).insert(flowId, {
    flowId,
    kind: channel,
    to,
    code,
    wrongCodes: 0,
    status: "open",
    createdAt: ctx.clock.iso(),
    expiresAtMs: ctx.clock.now() + FLOW_TTL_MS,
    linkToUserId: signedInUser(req.auth),
  });
  recordInboxMessage(ctx.store, { to, channel, code, flowId, sentAt: ctx.clock.iso() });
  return {
    flowId,
    message: `A one-time code was sent to ${to} (the sandbox's inbox: GET /_sandbox/messages?to=${encodeURIComponent(to)}).`,
    nextStep: { type: "verify-otp" as const, url: `${origin(req.headers)}/platform/v2/embedded-wallet-api/projects/${projectId}/auth/verify/${channel}` },
  };
}

const sameCode = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function verifyOtp(req: RequestFacts, ctx: HandlerContext, projectId: string, channel: Channel, body: { flowId: string; otp: string }) {
  const settings = projectSettings(projectId, ctx);
  const flow = openFlow(ctx.store, body.flowId, channel, ctx.clock.now());
  countSignInAttempt(ctx, settings.signInRateLimits, "codeCheck", flow.to);
  if (!sameCode(flow.code, body.otp)) {
    const wrongCodes = flow.wrongCodes + 1;
    const locked = wrongCodes >= MAX_WRONG_CODES;
    signInFlows(ctx.store).put(flow.flowId, { ...flow, wrongCodes, status: locked ? "locked" : "open" });
    const left = MAX_WRONG_CODES - wrongCodes;
    throw keepingWrites(
      locked
        ? apiError("rate_limit_exceeded", `Wrong code; sign-in flow ${flow.flowId} is now locked after ${MAX_WRONG_CODES} wrong codes. Start a new one.`)
        : apiError("invalid_request", `The one-time code is wrong (${left} attempt${left === 1 ? "" : "s"} left).`),
    );
  }
  const method = channel === "email" ? { type: "email" as const, email: flow.to } : { type: "sms" as const, phoneNumber: flow.to };
  const { user, isNew } = endUserFor(ctx.store, ctx, method, flow.linkToUserId ?? signedInUser(req.auth));
  signInFlows(ctx.store).put(flow.flowId, { ...flow, status: "verified" });
  const session = await startSession(req, ctx, user);
  return { status: 200 as const, body: { ...session.body, isNewEndUser: isNew, message: "Signed in." }, headers: session.headers };
}
