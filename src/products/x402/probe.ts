/**
 * HTTP requests the Bazaar makes to resource servers (validation probes and
 * MCP tool calls). The sandbox runs offline: it only reaches loopback hosts,
 * where test servers listen, and accepts their self-signed certificates.
 */
import http from "node:http";
import https from "node:https";
import { apiError } from "../../errors/catalogue.js";

const PROBE_TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1_000_000;

export interface ProbeAnswer {
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: string;
}

export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.[0-9]{1,3}){3}$/.test(host) || host === "::1";
}

/** Reads an absolute URL, or refuses the request naming what it is. */
export function parseAbsoluteUrl(raw: string, what: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw apiError("invalid_request", `${what} ${raw} is not an absolute URL.`);
  }
}

/** One request; rejects with a readable reason when nothing answers. */
export function probe(url: URL, method: string, body?: string, headers: Record<string, string> = {}): Promise<ProbeAnswer> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method,
        headers: {
          accept: "application/json, text/event-stream",
          ...headers,
          ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
        },
        rejectUnauthorized: false,
        timeout: PROBE_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size <= MAX_BODY_BYTES) chunks.push(c);
        });
        res.on("end", () => {
          const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : String(v ?? "")]));
          resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)));
    request.on("error", (error: NodeJS.ErrnoException) => reject(new Error(error.code ? `${error.code}: ${error.message}` : error.message)));
    request.end(body);
  });
}
