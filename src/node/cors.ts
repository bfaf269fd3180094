/**
 * CORS for the node's JSON-RPC URL. The client API key in that URL is public by design (it ships in front-end
 * code), so any origin may call it: the browser's origin is echoed back (with `Vary: Origin`), preflights are
 * answered with the methods and the headers the page asked for, and no cookies are involved. The API-key
 * operations (`/platform`, `/apikeys/v1/tokens/active`) get none of this: a browser must not call them.
 */
import type { NextFunction, Request, Response } from "express";

const ALLOWED_METHODS = "POST, GET, OPTIONS";
/** How long a browser may cache a preflight, in seconds. */
const PREFLIGHT_MAX_AGE = "600";

export function nodeCors(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  if (origin) {
    res.set("Access-Control-Allow-Origin", origin);
    res.vary("Origin");
  }
  if (req.method !== "OPTIONS") {
    next();
    return;
  }
  res.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
  const asked = req.headers["access-control-request-headers"];
  // Echoing what the page asks for: OnchainKit sends its own headers (OnchainKit-Version, OnchainKit-Context…).
  res.set("Access-Control-Allow-Headers", typeof asked === "string" && asked.length <= 2048 ? asked : "Content-Type");
  res.set("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
  res.vary("Access-Control-Request-Headers");
  res.status(204).end();
}
