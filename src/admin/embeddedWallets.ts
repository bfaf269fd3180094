/**
 * The parts of embedded-wallet sign-in that happen outside the platform API:
 *
 *   GET /messages?to=…         the inbox of one-time codes "sent" by email or SMS
 *   GET /oauth/authorize?…     the consent page an OAuth flow's authUrl opens
 *   GET /oauth/consent?…       its form's answer: 302 back to the app with the code
 */
import { consentFlow, grantConsent } from "../wallet/identity/oauth.js";
import { listInboxMessages } from "../wallet/shared/inbox.js";
import { apiError } from "../errors/catalogue.js";
import { type AdminHandler, callerProject, locking, served } from "./types.js";

export const listSandboxMessages: AdminHandler<"listSandboxMessages"> = (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  try {
    return { status: 200, body: { messages: listInboxMessages(tx, call.query.to === undefined ? undefined : String(call.query.to)) } };
  } finally {
    tx.discard();
  }
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page is a plain form: it works without script, in a test's browser as in a tester's. Its policy allows no
 * script or style at all; `form-action` stays open because the submission redirects to the app's origin.
 */
function consentPage(projectId: string, flowId: string): string {
  const field = (name: string, label: string, value = "", required = false) =>
    `<p><label>${label} <input name="${name}" value="${escapeHtml(value)}"${required ? " required" : ""}></label></p>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Sign in · cdp-sandbox</title></head><body>
<h1>Sign in (simulated provider)</h1>
<p>cdp-sandbox stands in for the OAuth provider: type the identity it should return to the app.</p>
<form method="get" action="consent">
<input type="hidden" name="projectId" value="${escapeHtml(projectId)}"><input type="hidden" name="flowId" value="${escapeHtml(flowId)}">
${field("sub", "Subject (sub)", "sandbox-user-1", true)}${field("email", "Email")}${field("name", "Name")}${field("username", "Username")}
<p><button type="submit">Continue</button></p>
</form></body></html>`;
}

export const openSandboxOAuthConsentPage: AdminHandler<"openSandboxOAuthConsentPage"> = served(async (call) => ({
  contentType: "text/html; charset=utf-8",
  text: consentPage(String(call.query.projectId), String(call.query.flowId)),
  headers: { "content-security-policy": "default-src 'none'", "x-frame-options": "DENY" },
}));

export const grantSandboxOAuthConsent: AdminHandler<"grantSandboxOAuthConsent"> = locking("project", async (call, ctx) => {
  // The document declares each as one string: a repeated name was refused with 400 before this.
  const [projectId, flowId, sub, email, name, username] = (["projectId", "flowId", "sub", "email", "name", "username"] as const).map((k) =>
    call.query[k] === undefined ? undefined : String(call.query[k]),
  ) as [string, string, string, string?, string?, string?];
  if (!ctx.store.projects().some((p) => p.id === projectId)) throw apiError("not_found", `Project ${projectId} was not found.`);
  const tx = ctx.store.begin(projectId);
  consentFlow(tx, flowId, ctx.clock.now());
  const location = grantConsent(tx, { random: ctx.random.oauthConsent, clock: ctx.clock }, flowId, {
    sub,
    ...(email ? { email } : {}),
    ...(name ? { name } : {}),
    ...(username ? { username } : {}),
  });
  await tx.commit();
  return { status: 302, headers: { location } };
});
