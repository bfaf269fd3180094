/**
 * Where the register hook sends one outgoing request: to the sandbox (the
 * platform's paths as they are, JSON-RPC to the project's node), answered in
 * the process (the client's analytics), or nowhere new (`undefined`: every
 * other host goes out untouched).
 */
import { ANALYTICS_HOST, NODE_HOST, PLATFORM_HOST, PUBLIC_RPC_ENDPOINTS } from "./hosts.js";

export type Route =
  /** The same path and query on the sandbox; `originalHost` is what the client signed its tokens for. */
  | { kind: "platform"; pathAndQuery: string; originalHost: string }
  /** JSON-RPC to the project's node for this network on the sandbox. */
  | { kind: "rpc"; network: string }
  /** Onramp v1 on the node host (OnchainKit's Fund components): the same path, the project's node token as the bearer. */
  | { kind: "onrampV1"; pathAndQuery: string }
  /** Answered in the process with an empty 204: nothing leaves the machine. */
  | { kind: "local" };

const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);

/** `host` (lowercase, no default port) + path → network; built once from the table. */
const RPC_BY_ENDPOINT = new Map(
  PUBLIC_RPC_ENDPOINTS.map(({ url, network }) => {
    const parsed = new URL(url);
    return [`${parsed.host}${trimSlash(parsed.pathname)}`, network] as const;
  }),
);
const RPC_HOSTS = new Set(PUBLIC_RPC_ENDPOINTS.map(({ url }) => new URL(url).host));

/** The route of a request to `url`, or undefined when it is not one the sandbox answers. */
export function routeOf(url: URL): Route | undefined {
  if (url.protocol !== "https:") return undefined;
  const host = url.host.toLowerCase();
  if (host === PLATFORM_HOST) return { kind: "platform", pathAndQuery: `${url.pathname}${url.search}`, originalHost: url.host };
  if (host === ANALYTICS_HOST) return { kind: "local" };
  if (host === NODE_HOST) {
    if (url.pathname.startsWith("/onramp/v1/")) return { kind: "onrampV1", pathAndQuery: `${url.pathname}${url.search}` };
    const match = /^\/rpc\/v1\/([a-z0-9-]+)(?:\/|$)/i.exec(url.pathname);
    return match ? { kind: "rpc", network: match[1]!.toLowerCase() } : undefined;
  }
  if (!RPC_HOSTS.has(host)) return undefined;
  const network = RPC_BY_ENDPOINT.get(`${host}${trimSlash(url.pathname)}`);
  return network ? { kind: "rpc", network } : undefined;
}
