/**
 * OAuth sign-in (Google, Apple, X, Telegram, GitHub). No provider is called:
 * `authUrl` is the sandbox's own consent page, where the tester picks or types
 * the identity; it redirects back to the app's `redirectUrl` with `code`,
 * `flow_id` and `provider_type`, which the client verifies. For Telegram and
 * native Apple (PUT verify) the consent code stands in for the provider's
 * signed data: Telegram's `hash`, Apple's `identityToken`.
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import type { Random } from "../../random.js";
import type { Clock } from "../../clock.js";
import type { AuthenticationMethod } from "../records/endUsers.js";
import type { HandlerContext, RequestFacts } from "../types.js";
import { FLOW_TTL_MS, type OAuthProvider, openFlow, signInFlows, type SignInFlow } from "./flows.js";
import { assertMethodEnabled, origin, projectSettings, signedInUser } from "./project.js";
import { endUserFor, startSession } from "./session.js";
import { originAllowed } from "./settings.js";

export function startOAuthFlow(req: RequestFacts, ctx: HandlerContext, projectId: string, provider: OAuthProvider, redirectUrl: string) {
  const settings = projectSettings(projectId, ctx);
  assertMethodEnabled(settings, provider);
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    throw apiError("invalid_request", `redirectUrl ${redirectUrl} is not a URL.`);
  }
  // The consent page sends the browser (and the code) there: only to a page the project allows, never elsewhere.
  if (!originAllowed(url.origin, settings.allowedOrigins)) {
    throw apiError("invalid_request", `redirectUrl ${redirectUrl} is not on a localhost page or an origin of settings.embeddedWallets.allowedOrigins.`);
  }
  const flowId = ctx.random.uuid();
  signInFlows(ctx.store).insert(flowId, {
    flowId,
    kind: "oauth",
    provider,
    redirectUrl,
    status: "open",
    createdAt: ctx.clock.iso(),
    expiresAtMs: ctx.clock.now() + FLOW_TTL_MS,
    linkToUserId: signedInUser(req.auth),
  });
  const authUrl = `${origin(req.headers)}/_sandbox/oauth/authorize?projectId=${encodeURIComponent(projectId)}&flowId=${encodeURIComponent(flowId)}`;
  return { flowId, authUrl };
}

export interface ConsentIdentity {
  sub: string;
  email?: string;
  name?: string;
  username?: string;
}

/** The open OAuth flow the consent page shows, or why it cannot be shown. */
export function consentFlow(tx: ProjectTx, flowId: string, nowMs: number): Extract<SignInFlow, { kind: "oauth" }> {
  return openFlow(tx, flowId, "oauth", nowMs);
}

/** The tester consented as `identity`: the flow gets its code; answers where the page sends the browser. */
export function grantConsent(tx: ProjectTx, scope: { random: Random; clock: Clock }, flowId: string, identity: ConsentIdentity): string {
  const flow = openFlow(tx, flowId, "oauth", scope.clock.now());
  if (!identity.sub.trim()) throw apiError("invalid_request", "The identity needs a subject (sub).");
  const code = scope.random.secrets().hex(16);
  signInFlows(tx).put(flowId, { ...flow, code, identity });
  const back = new URL(flow.redirectUrl);
  back.searchParams.set("code", code);
  back.searchParams.set("flow_id", flowId);
  back.searchParams.set("provider_type", flow.provider);
  return back.toString();
}

function methodOf(provider: OAuthProvider, identity: ConsentIdentity, telegram?: { id: number; authDate: number }): AuthenticationMethod {
  if (provider === "telegram") {
    return { type: "telegram", id: telegram?.id ?? Number(identity.sub), authDate: telegram?.authDate ?? 0, username: identity.username };
  }
  return { type: provider, sub: identity.sub, email: identity.email, name: identity.name, username: identity.username };
}

async function finish(req: RequestFacts, ctx: HandlerContext, flow: Extract<SignInFlow, { kind: "oauth" }>, method: AuthenticationMethod) {
  const { user, isNew } = endUserFor(ctx.store, ctx, method, flow.linkToUserId ?? signedInUser(req.auth));
  signInFlows(ctx.store).put(flow.flowId, { ...flow, status: "verified" });
  const session = await startSession(req, ctx, user);
  return { status: 200 as const, body: { ...session.body, isNewEndUser: isNew, message: "Signed in." }, headers: session.headers };
}

function consentedFlow(ctx: HandlerContext, projectId: string, provider: OAuthProvider, flowId: string, code: string | undefined) {
  projectSettings(projectId, ctx);
  const flow = openFlow(ctx.store, flowId, "oauth", ctx.clock.now());
  if (flow.provider !== provider) throw apiError("invalid_request", `Sign-in flow ${flowId} is for ${flow.provider}, not ${provider}.`);
  if (!flow.code || !flow.identity || code !== flow.code) {
    throw apiError("invalid_request", `The code is not the one the consent page of flow ${flowId} redirected back with.`);
  }
  return { ...flow, identity: flow.identity };
}

export async function verifyOAuth(req: RequestFacts, ctx: HandlerContext, projectId: string, provider: OAuthProvider, body: { flowId: string; code: string }) {
  const flow = consentedFlow(ctx, projectId, provider, body.flowId, body.code);
  return finish(req, ctx, flow, methodOf(provider, flow.identity));
}

export async function verifyOAuthIdentity(
  req: RequestFacts,
  ctx: HandlerContext,
  projectId: string,
  provider: OAuthProvider,
  body: { flowId: string; id?: number; authDate?: number; hash?: string; identityToken?: string },
) {
  if (provider !== "telegram" && provider !== "apple") throw apiError("invalid_request", `${provider} signs in with a code (POST), not with an identity.`);
  if (provider === "telegram" && (body.id === undefined || body.authDate === undefined || !body.hash)) {
    throw apiError("invalid_request", "Telegram's identity needs id, authDate and hash.");
  }
  if (provider === "apple" && !body.identityToken) throw apiError("invalid_request", "Apple's native sign-in needs identityToken.");
  const flow = consentedFlow(ctx, projectId, provider, body.flowId, provider === "telegram" ? body.hash : body.identityToken);
  const telegram = provider === "telegram" ? { id: body.id!, authDate: body.authDate! } : undefined;
  return finish(req, ctx, flow, methodOf(provider, flow.identity, telegram));
}
