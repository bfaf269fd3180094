/**
 * Stage (before the pipeline): CORS for the embedded-wallet API, which a
 * browser app calls directly with credentials (the refresh-token cookie).
 * Only paths under /platform/v2/embedded-wallet-api/ get it; the API-key
 * operations never do, so no page can call them from a browser.
 * Allowed: any http://localhost:*, http://127.0.0.1:* or http://[::1]:* page,
 * and the origins the project lists (settings.embeddedWallets.allowedOrigins).
 * The exact origin is echoed, with credentials allowed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { embeddedWalletSettings, originAllowed } from "../wallet/identity/settings.js";
import type { Store } from "../store/store.js";

const EMBEDDED_WALLET_PATH = /^\/platform\/v2\/embedded-wallet-api\//;

/** The headers the embedded-wallet client sends (and nothing else). */
const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "x-wallet-auth",
  "x-idempotency-key",
  "x-app-attestation-assertion",
  "x-app-attestation-challenge",
  "x-app-attestation-key-id",
  "x-integrity-token",
  "x-package-name",
].join(", ");

export interface CorsDeps {
  store: Store;
  defaultProjectId: () => string;
}

/** The project whose allow-list applies: named in the path (sign-in) or by `projectID` (end-user calls). */
function projectOf(url: string, deps: CorsDeps): string {
  const inPath = /\/embedded-wallet-api\/projects\/([^/?]+)/.exec(url)?.[1];
  const inQuery = /[?&]projectID=([^&]+)/.exec(url)?.[1];
  const named = inPath ?? inQuery;
  return named && deps.store.projects().some((p) => p.id === named) ? named : deps.defaultProjectId();
}

/**
 * Adds the CORS headers an allowed page needs; answers a preflight itself. Returns true when the request was
 * answered (a preflight), false when it goes on to the pipeline.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, deps: CorsDeps): boolean {
  const url = req.url ?? "/";
  const origin = req.headers.origin;
  if (!EMBEDDED_WALLET_PATH.test(url) || typeof origin !== "string") return false;
  const projectId = projectOf(url, deps);
  const settings = deps.store.projects().find((p) => p.id === projectId)?.settings ?? {};
  const allowed = originAllowed(origin, embeddedWalletSettings(settings).allowedOrigins);
  res.setHeader("vary", "Origin");
  const preflight = req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
  if (allowed) {
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("access-control-allow-credentials", "true");
    res.setHeader("access-control-expose-headers", "x-correlation-id");
  }
  if (!preflight) return false;
  if (allowed) {
    res.setHeader("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE");
    res.setHeader("access-control-allow-headers", ALLOWED_HEADERS);
    res.setHeader("access-control-max-age", "600");
  }
  // A refused preflight carries no CORS headers: the browser then blocks the call.
  res.statusCode = allowed ? 204 : 403;
  res.setHeader("content-length", "0");
  res.end();
  return true;
}
