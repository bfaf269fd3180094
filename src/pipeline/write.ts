/**
 * Writes the outgoing response, or carries out a network fault a scenario asked
 * for (reset the connection, hang, close after the headers, truncate the body).
 * Plain node:http: the /platform path does not go through Express (app.ts), so
 * `sendOutgoing` does what Express's `res.status().set().send()` did for it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Exchange, Outgoing } from "./exchange.js";

const JSON_UTF8 = "application/json; charset=utf-8";

/** The content type with `charset=utf-8` (bodies are always UTF-8 text), parameters sorted, as Express's send set it. */
function withUtf8Charset(type: string): string {
  if (type === JSON_UTF8) return type;
  const [essence, ...parameters] = type.split(";");
  const kept = parameters
    .map((p) => p.trim())
    .filter((p) => p !== "" && !/^charset\s*=/i.test(p))
    .map((p) => {
      const eq = p.indexOf("=");
      return eq < 0 ? p : `${p.slice(0, eq).trim().toLowerCase()}=${p.slice(eq + 1).trim()}`;
    });
  return [essence!.trim().toLowerCase(), ...[...kept, "charset=utf-8"].sort()].join("; ");
}

const LOWER_CASE_NAME = /^[^A-Z]*$/;

/**
 * The usual answer (a body, a content type, names in lower case, not HEAD): status and headers handed to node:http in
 * one list, which it writes out as they are, instead of stored one by one (each validated, lower-cased and kept in a
 * map) and read back. Headers set on the response before (CORS) still give way to these, as with setHeader.
 * False when the answer is not of that kind: `sendOutgoing` then does it step by step.
 */
function sendAtOnce(res: ServerResponse, out: Outgoing): boolean {
  const body = out.bodyText;
  const status = out.status;
  if (body === undefined || status === 204 || status === 205 || status === 304 || res.req?.method === "HEAD") return false;
  const list: Array<string | number> = [];
  let typed = false;
  for (const name in out.headers) {
    if (!LOWER_CASE_NAME.test(name) || name === "transfer-encoding" || name === "content-length") return false;
    const value = out.headers[name]!;
    if (name === "content-type") typed = true;
    list.push(name, name === "content-type" ? withUtf8Charset(value) : value);
  }
  if (!typed || res.hasHeader("transfer-encoding")) return false;
  list.push("content-length", Buffer.byteLength(body));
  res.writeHead(status, list);
  res.end(body, "utf8");
  return true;
}

/** Status, headers (case-insensitively, later ones win), Content-Length; no body for 204, 205, 304 and HEAD. */
export function sendOutgoing(res: ServerResponse, out: Outgoing): void {
  if (sendAtOnce(res, out)) return;
  res.statusCode = out.status;
  for (const name of Object.keys(out.headers)) res.setHeader(name, out.headers[name]!);
  if (out.bodyText === undefined) {
    res.end();
    return;
  }
  let body = out.bodyText;
  const type = res.getHeader("content-type");
  res.setHeader("content-type", typeof type === "string" ? withUtf8Charset(type) : "text/html; charset=utf-8");
  if (!res.hasHeader("transfer-encoding")) res.setHeader("content-length", Buffer.byteLength(body));
  if (out.status === 204 || out.status === 304) {
    res.removeHeader("content-type");
    res.removeHeader("content-length");
    res.removeHeader("transfer-encoding");
    body = "";
  } else if (out.status === 205) {
    res.setHeader("content-length", "0");
    res.removeHeader("transfer-encoding");
    body = "";
  }
  if ((res.req as IncomingMessage | undefined)?.method === "HEAD") res.end();
  else res.end(body, "utf8");
}

export async function writeOutgoing(res: ServerResponse, ex: Exchange): Promise<void> {
  const out = ex.response!;
  const socket = res.socket;
  switch (ex.fault) {
    case "reset":
      socket?.resetAndDestroy?.() ?? socket?.destroy();
      return;
    case "hang":
      // Keep the connection open with nothing sent until the client gives up.
      await new Promise<void>((resolve) => res.on("close", () => resolve()));
      return;
    case "close-after-headers":
      res.writeHead(out.status, out.headers);
      res.flushHeaders();
      socket?.destroy();
      return;
    case "truncate": {
      const text = out.bodyText ?? "";
      res.writeHead(out.status, { ...out.headers, "content-length": String(Buffer.byteLength(text)) });
      res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      socket?.destroy();
      return;
    }
    default:
      sendOutgoing(res, out);
  }
}
