/**
 * The hosted pages the platform links to (payment buttons, the onramp page,
 * the limit-upgrade page) are served by the sandbox itself under
 * /_sandbox/onramp, on the host the caller used to reach it.
 */
import type { HandlerContext, RequestFacts } from "../../wallet/types.js";

const HOSTED_PREFIX = "/_sandbox/onramp";

/** An absolute URL of a hosted page, e.g. http://127.0.0.1:8080/_sandbox/onramp/buy?sessionToken=… */
export function hostedUrl(req: RequestFacts, page: string, query: Record<string, string | undefined>): string {
  const proto = req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  const host = req.headers.host || "127.0.0.1";
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return `${proto}://${host}${HOSTED_PREFIX}/${page}?${params}`;
}

/** An opaque single-page token (base64url of 24 random bytes). */
export function pageToken(ctx: HandlerContext): string {
  return Buffer.from(ctx.random.bytes(24)).toString("base64url");
}
