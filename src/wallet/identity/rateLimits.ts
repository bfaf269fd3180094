/**
 * Limits on one-time-code sign-in beyond the per-flow lock (flows.ts): a flow locks after 5 wrong codes, but a
 * script that opens flow after flow would still guess on (60 flows a minute for one address gave 300 guesses, a
 * 0.5 % chance per 1,000 flows). So flows opened and codes checked are also counted per identity (an email
 * address or a phone number) and per project, in windows of the sandbox clock; past a limit the request answers
 * 429 rate_limit_exceeded and changes nothing. A window starts at the first attempt it counts and lasts
 * `windowSeconds`. A project may raise the limits for a load test: `settings.embeddedWallets.signInRateLimits`.
 */
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import type { HandlerContext } from "../types.js";

export interface SignInRateLimits {
  windowSeconds: number;
  /** Flows (auth/init by email or SMS) opened for one address or number per window. */
  flowsPerIdentity: number;
  /** Codes checked (auth/verify, right or wrong) for one address or number per window. */
  codeChecksPerIdentity: number;
  flowsPerProject: number;
  codeChecksPerProject: number;
}

export const DEFAULT_SIGN_IN_RATE_LIMITS: SignInRateLimits = {
  windowSeconds: 600,
  flowsPerIdentity: 10,
  codeChecksPerIdentity: 20,
  flowsPerProject: 1000,
  codeChecksPerProject: 2000,
};

interface AttemptWindow {
  startedAtMs: number;
  count: number;
}

const SIGN_IN_ATTEMPTS = declareCollection<AttemptWindow>("signInAttempts");

type Attempt = "flow" | "codeCheck";
const PROJECT = "*";

/** Counts one attempt in `key`'s window, or refuses it (nothing written) when the window is full. */
function count(tx: ProjectTx, key: string, limit: number, windowMs: number, nowMs: number, what: string): void {
  const windows = tx.collection(SIGN_IN_ATTEMPTS);
  const current = windows.get(key);
  const open = current && nowMs < current.startedAtMs + windowMs ? current : { startedAtMs: nowMs, count: 0 };
  if (open.count >= limit) {
    const until = new Date(open.startedAtMs + windowMs).toISOString();
    throw apiError("rate_limit_exceeded", `Too many ${what} (${limit} per ${windowMs / 1000} s); try again after ${until}.`);
  }
  windows.put(key, { startedAtMs: open.startedAtMs, count: open.count + 1 });
}

/**
 * Counts a flow opened or a code checked for `identity` (lowercase email or E.164 number), against both its own
 * limit and the project's; throws 429 rate_limit_exceeded past either.
 */
export function countSignInAttempt(ctx: Pick<HandlerContext, "store" | "clock">, limits: SignInRateLimits, attempt: Attempt, identity: string): void {
  const windowMs = limits.windowSeconds * 1000;
  const now = ctx.clock.now();
  const [perIdentity, perProject, what] =
    attempt === "flow"
      ? [limits.flowsPerIdentity, limits.flowsPerProject, "sign-in flows"]
      : [limits.codeChecksPerIdentity, limits.codeChecksPerProject, "one-time codes checked"];
  // A refusal discards the request's writes: an attempt refused by either limit counts against neither.
  count(ctx.store, `${attempt}:${PROJECT}`, perProject, windowMs, now, `${what} in this project`);
  count(ctx.store, `${attempt}:${identity}`, perIdentity, windowMs, now, `${what} for ${identity}`);
}
