/**
 * `cdp-sandbox/testing`: helpers for end-to-end suites of front-end apps on the embedded wallet
 * (docs/testing-front-ends.md). An end user signs in through the sandbox's own sign-in endpoints, as the kit does,
 * with the one-time code read from the sandbox's inbox; the result carries the tokens a test may use directly and
 * the refresh-token cookie that a browser presents to restore the session on load, as after a reload.
 *
 * It talks to a running sandbox over HTTP only (no import of the sandbox itself), so a browser suite can use it
 * against a sandbox started anywhere: in-process (`startSandbox`), by `cdp-sandbox`, or by `cdp-sandbox run`.
 *
 * @example
 *   import { signInPage } from "cdp-sandbox/testing";
 *   await signInPage(page, { sandbox, email: "ada@example.com" });
 *   await page.goto(appUrl); // the kit starts signed in
 */

/** Where the sandbox is: a started sandbox (`startSandbox`'s answer), or its URL and the project. */
export interface SandboxTarget {
  /** A started sandbox: its URL, default project and admin token are taken from it. */
  sandbox?: { url: string; credentials?: { projectId: string }; adminToken?: string };
  /** The sandbox's origin, e.g. http://127.0.0.1:8080 (with or without /platform). */
  url?: string;
  /** The project whose end user signs in; default: the sandbox's default project. */
  projectId?: string;
  /** The admin token, for a sandbox bound off loopback (the inbox is read through the admin API). */
  adminToken?: string;
}

/** The refresh-token cookie in the shape Playwright's `BrowserContext.addCookies` takes. */
export interface SessionCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch (the refresh token's 7 days of sandbox time, counted on the machine's clock). */
  expires: number;
  httpOnly: true;
  secure: false;
  sameSite: "Lax";
}

export interface EndUserSignIn {
  endUser: { userId: string; [field: string]: unknown };
  /** Whether this sign-in made the end user (their first). */
  isNewEndUser?: boolean;
  accessToken: string;
  refreshToken: string;
  validUntil?: string;
  /** What a browser keeps after signing in: give it to `context.addCookies([cookie])`. */
  cookie: SessionCookie;
}

const REFRESH_COOKIE = "cdp_refresh_token";
const REFRESH_TOKEN_SECONDS = 7 * 24 * 3600;

interface Resolved {
  origin: string;
  projectId?: string;
  adminToken?: string;
}

function resolve(target: SandboxTarget): Resolved {
  const raw = target.url ?? target.sandbox?.url;
  if (!raw) throw new TypeError("cdp-sandbox/testing: give `sandbox` (startSandbox's answer) or `url` (the sandbox's origin)");
  return {
    origin: new URL(raw).origin,
    projectId: target.projectId ?? target.sandbox?.credentials?.projectId,
    adminToken: target.adminToken ?? target.sandbox?.adminToken,
  };
}

/** A call the sandbox answered with something other than 2xx: its status and body (the platform's error body, parsed). */
export class SandboxRefusedError extends Error {
  constructor(
    readonly call: string,
    readonly status: number,
    readonly body: unknown,
    text: string,
  ) {
    super(`cdp-sandbox/testing: ${call} answered ${status}: ${text}`);
    this.name = "SandboxRefusedError";
  }
}

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!response.ok) throw new SandboxRefusedError(what, response.status, parsedOrText(text), text);
  return JSON.parse(text) as Record<string, unknown>;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function defaultProjectId(at: Resolved): Promise<string> {
  const headers: Record<string, string> = at.adminToken ? { "x-sandbox-admin-token": at.adminToken } : {};
  const body = await json(await fetch(`${at.origin}/_sandbox/projects`, { headers }), "GET /_sandbox/projects");
  const projects = body.projects as Array<{ projectId: string; isDefault: boolean }>;
  const id = (projects.find((p) => p.isDefault) ?? projects[0])?.projectId;
  if (!id) throw new Error("cdp-sandbox/testing: the sandbox lists no project; pass projectId");
  return id;
}

interface InboxMessage {
  to: string;
  code: string;
  flowId: string;
}

async function inbox(at: Resolved, email: string): Promise<InboxMessage[]> {
  const headers: Record<string, string> = at.adminToken ? { "x-sandbox-admin-token": at.adminToken } : {};
  const body = await json(await fetch(`${at.origin}/_sandbox/messages?to=${encodeURIComponent(email)}`, { headers }), "GET /_sandbox/messages");
  return body.messages as InboxMessage[];
}

/**
 * The newest one-time code the sandbox sent to `email` (its inbox keeps every message it would have sent), for a
 * test that goes through the app's own sign-in screens.
 *
 * @example await page.getByLabel("Code").fill(await readCode("ada@example.com", { sandbox }))
 */
export async function readCode(email: string, target: SandboxTarget): Promise<string> {
  const [newest] = await inbox(resolve(target), email);
  if (!newest) throw new Error(`cdp-sandbox/testing: the sandbox has sent no code to ${email}`);
  return newest.code;
}

/**
 * Signs an end user in by email, as the kit does (auth/init, the code from the inbox, auth/verify/email): the end
 * user is made on first sign-in, as in the app. Returns the tokens and the refresh-token cookie; a refused step
 * throws a SandboxRefusedError carrying the sandbox's error body.
 */
export async function signInEndUser(options: SandboxTarget & { email: string }): Promise<EndUserSignIn> {
  const at = resolve(options);
  const projectId = at.projectId ?? (await defaultProjectId(at));
  const auth = `${at.origin}/platform/v2/embedded-wallet-api/projects/${encodeURIComponent(projectId)}/auth`;
  const post = (path: string, body: unknown) =>
    fetch(`${auth}/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const init = await json(await post("init", { type: "email", email: options.email }), "auth/init");
  const message = (await inbox(at, options.email)).find((m) => m.flowId === init.flowId);
  if (!message) throw new Error(`cdp-sandbox/testing: no code for flow ${String(init.flowId)} in the inbox of ${options.email}`);
  // Without a browser's User-Agent the refresh token comes in the body (as WebKit and native clients get it).
  const verified = await json(await post("verify/email", { flowId: init.flowId, otp: message.code }), "auth/verify/email");
  const refreshToken = verified.refreshToken as string;
  return {
    endUser: verified.endUser as EndUserSignIn["endUser"],
    ...(typeof verified.isNewEndUser === "boolean" ? { isNewEndUser: verified.isNewEndUser } : {}),
    accessToken: verified.accessToken as string,
    refreshToken,
    validUntil: verified.validUntil as string | undefined,
    cookie: {
      name: REFRESH_COOKIE,
      value: refreshToken,
      domain: new URL(at.origin).hostname,
      path: new URL(auth).pathname,
      expires: Math.floor(Date.now() / 1000) + REFRESH_TOKEN_SECONDS,
      httpOnly: true,
      secure: false,
      sameSite: "Lax",
    },
  };
}

/** What `signInPage` needs of Playwright: a page (its context is used) or a browser context. */
type CookieTarget = { addCookies(cookies: SessionCookie[]): Promise<void> } | { context(): { addCookies(cookies: SessionCookie[]): Promise<void> } };

/**
 * Signs an end user in and gives the page's browser context the refresh-token cookie, so that the app, loaded next,
 * restores the session as after a reload: no sign-in screens, no inbox. Chromium and Firefox keep the cookie; the
 * app must be served under the sandbox's host name (both 127.0.0.1, or both localhost), as for a real sign-in.
 *
 * @example
 *   await signInPage(page, { sandbox, email: "ada@example.com" });
 *   await page.goto(appUrl);
 */
export async function signInPage(pageOrContext: CookieTarget, options: SandboxTarget & { email: string }): Promise<EndUserSignIn> {
  const signedIn = await signInEndUser(options);
  const context = "addCookies" in pageOrContext ? pageOrContext : pageOrContext.context();
  await context.addCookies([signedIn.cookie]);
  return signedIn;
}
