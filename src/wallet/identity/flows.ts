/**
 * Sign-in flows. `auth/init` opens one; its verify operation closes it:
 * open → verified (single use), or open → locked after MAX_WRONG_CODES wrong
 * codes, or open → expired when the sandbox clock passes `expiresAtMs`.
 * A refused verification changes nothing but the wrong-code count, which is
 * the point of counting (see otp.ts).
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";

export type OAuthProvider = Schema<"OAuth2ProviderType">;

/** Codes and SIWE messages live 10 minutes; OAuth consent 10 minutes too. */
export const FLOW_TTL_MS = 10 * 60_000;
/** Wrong codes a flow takes before it is locked (a new flow must be started). */
export const MAX_WRONG_CODES = 5;

interface FlowBase {
  flowId: string;
  createdAt: string;
  expiresAtMs: number;
  /** Set when the flow was started by a signed-in end user: the method is linked to them. */
  linkToUserId?: string;
  status: "open" | "verified" | "locked";
}

export type SignInFlow =
  | (FlowBase & { kind: "email" | "sms"; to: string; code: string; wrongCodes: number })
  | (FlowBase & { kind: "siwe"; address: string; chainId: number; domain: string; uri: string; nonce: string; message: string })
  | (FlowBase & {
      kind: "oauth";
      provider: OAuthProvider;
      redirectUrl: string;
      /** Set by the consent page: the code it redirected back with, and who the tester said they are. */
      code?: string;
      identity?: { sub: string; email?: string; name?: string; username?: string };
    });

const SIGN_IN_FLOWS = declareCollection<SignInFlow>("signInFlows");

export const signInFlows = (tx: ProjectTx): Collection<SignInFlow> => tx.collection(SIGN_IN_FLOWS);

/** The open flow of this kind, or the platform's refusal: unknown (404), used, locked or expired (400). */
export function openFlow<K extends SignInFlow["kind"]>(tx: ProjectTx, flowId: string, kind: K, nowMs: number): Extract<SignInFlow, { kind: K }> {
  const flow = signInFlows(tx).get(flowId);
  if (!flow || flow.kind !== kind) throw apiError("not_found", `Sign-in flow ${flowId} was not found for ${kind}; start one with auth/init.`);
  if (flow.status === "verified") throw apiError("invalid_request", `Sign-in flow ${flowId} was already used; start a new one with auth/init.`);
  if (flow.status === "locked") {
    throw apiError("rate_limit_exceeded", `Sign-in flow ${flowId} is locked after ${MAX_WRONG_CODES} wrong codes; start a new one with auth/init.`);
  }
  if (flow.expiresAtMs <= nowMs) {
    throw apiError("invalid_request", `Sign-in flow ${flowId} expired at ${new Date(flow.expiresAtMs).toISOString()}; start a new one with auth/init.`);
  }
  return flow as Extract<SignInFlow, { kind: K }>;
}
