/**
 * GET /_sandbox/requests.har: the journal as an HTTP Archive 1.2, which
 * Chrome DevTools (Network → Import HAR) and HAR viewers open. Each entry
 * carries its request and response headers and bodies while the journal keeps
 * them (credentials already cut by the journal), and its timing: the sandbox
 * measures the time from the request's arrival to its answer, reported as
 * `wait`. Extra fields start with an underscore, as HAR allows.
 */
import type { JournalDetail, JournalEntry } from "../pipeline/journal.js";
import type { AdminHandler } from "./types.js";

const STATUS_TEXT: Record<number, string> = {
  0: "Network fault",
  101: "Switching Protocols",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const nameValues = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

function harEntry(origin: string, entry: JournalEntry, detail: JournalDetail | undefined) {
  const query = detail?.request.query ?? "";
  const requestHeaders = detail?.request.headers ?? {};
  const responseHeaders = detail?.response.headers ?? {};
  const requestBody = detail?.request.body;
  const responseBody = detail?.response.body;
  const responseType = responseHeaders["content-type"] ?? "application/json";
  return {
    startedDateTime: entry.time,
    time: entry.durationMs,
    request: {
      method: entry.method,
      url: `${origin}${entry.path}${query ? `?${query}` : ""}`,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: nameValues(requestHeaders),
      queryString: [...new URLSearchParams(query)].map(([name, value]) => ({ name, value })),
      ...(requestBody !== undefined ? { postData: { mimeType: requestHeaders["content-type"] ?? "application/json", text: requestBody } } : {}),
      headersSize: -1,
      bodySize: requestBody === undefined ? 0 : Buffer.byteLength(requestBody),
    },
    response: {
      status: entry.status,
      statusText: STATUS_TEXT[entry.status] ?? "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: nameValues(responseHeaders),
      content: {
        size: responseBody === undefined ? 0 : Buffer.byteLength(responseBody),
        mimeType: responseType,
        ...(responseBody !== undefined ? { text: responseBody } : {}),
      },
      redirectURL: responseHeaders.location ?? "",
      headersSize: -1,
      bodySize: responseBody === undefined ? 0 : Buffer.byteLength(responseBody),
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: entry.durationMs, receive: 0 },
    _correlationId: entry.correlationId,
    _kind: entry.kind,
    ...(entry.operationId ? { _operationId: entry.operationId } : {}),
    ...(entry.rpcMethod ? { _rpcMethod: entry.rpcMethod } : {}),
    ...(entry.rpcError ? { _rpcError: entry.rpcError } : {}),
    ...(entry.errorType ? { _errorType: entry.errorType } : {}),
    ...(detail?.request.truncated || detail?.response.truncated ? { comment: "a body longer than the journal keeps is cut" } : {}),
  };
}

export const getSandboxRequestsHar: AdminHandler<"getSandboxRequestsHar"> = ({ projectId }, ctx) => {
  const origin = ctx.basePath().replace(/\/platform$/, "");
  const entries = ctx.journal.withDetails(projectId).map(({ entry, detail }) => harEntry(origin, entry, detail));
  return {
    status: 200,
    body: { log: { version: "1.2", creator: { name: "cdp-sandbox", version: "1" }, pages: [], entries } },
    headers: { "content-disposition": 'attachment; filename="cdp-sandbox.har"' },
  };
};
