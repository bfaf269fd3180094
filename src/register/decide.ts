/**
 * What the hook does with one outgoing request, whatever API made it (fetch
 * or node:http/https): let it go, answer it here, send it to the sandbox with
 * the header that names the host the client signed for, or fail it.
 */
import { routeOf } from "./route.js";
import type { SandboxTarget } from "./sandbox.js";

/**
 * Names the production host a redirected request was meant for. The sandbox
 * believes it only on loopback connections, and then accepts bearer and wallet
 * tokens whose `uris` name that host (docs/authentication.md).
 */
const ORIGINAL_HOST_HEADER = "x-sandbox-original-host";

export type Decision =
  | { kind: "pass" }
  | { kind: "local" }
  | { kind: "sandbox"; url: URL; headers: Record<string, string> }
  /** A call the sandbox should answer but cannot be sent there: failing it beats reaching the real network. */
  | { kind: "fail"; message: string };

export function decide(target: SandboxTarget, url: URL): Decision {
  const route = routeOf(url);
  if (!route) return { kind: "pass" };
  if (route.kind === "local") return { kind: "local" };
  if (route.kind === "platform") {
    return { kind: "sandbox", url: new URL(`${target.origin}${route.pathAndQuery}`), headers: { [ORIGINAL_HOST_HEADER]: route.originalHost } };
  }
  if (!target.nodeToken) {
    return {
      kind: "fail",
      message: `cdp-sandbox/register: ${url.origin}${url.pathname} is ${route.kind === "rpc" ? `the ${route.network} node` : "Onramp v1"}, but the sandbox's node token is unknown (set CDP_SANDBOX_PROJECT_ID, or CDP_API_KEY_ID and CDP_API_KEY_SECRET)`,
    };
  }
  if (route.kind === "onrampV1") {
    // The kit sends its own (production) client key; the sandbox's project answers with its node token.
    return { kind: "sandbox", url: new URL(`${target.origin}${route.pathAndQuery}`), headers: { authorization: `Bearer ${target.nodeToken}` } };
  }
  return { kind: "sandbox", url: new URL(`${target.origin}/rpc/v1/${route.network}/${encodeURIComponent(target.nodeToken)}`), headers: {} };
}
