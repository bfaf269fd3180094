/**
 * Redirects node:http and node:https (`request` and `get`: axios, which the
 * official client uses for every REST call, ethers, got and most other
 * clients). A redirected request is a plain request to the sandbox with the
 * same method, headers and body; the caller's agent is dropped, since an
 * https agent cannot carry a request to an http sandbox. The ESM named
 * exports are synced too (`import { request } from "node:https"`).
 */
import http, { type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";
import { Duplex } from "node:stream";
import { urlToHttpOptions } from "node:url";
import { decide } from "./decide.js";
import type { SandboxTarget } from "./sandbox.js";

type Callback = (res: IncomingMessage) => void;
type RequestFn = (...args: unknown[]) => ClientRequest;

/** Options a redirected request keeps; connection settings (agent, TLS, socket path, lookup) belong to the old host. */
const KEPT_OPTIONS = ["method", "headers", "timeout", "signal", "auth", "maxHeaderSize", "insecureHTTPParser", "joinDuplicateHeaders", "uniqueHeaders"];

/** The (url, options, callback) forms of http.request, merged as Node merges them. */
function readArgs(args: unknown[], defaultProtocol: string): { options: RequestOptions; callback?: Callback } {
  let [first, second, third] = args;
  let options: RequestOptions = {};
  if (typeof first === "string" || first instanceof URL) {
    options = urlToHttpOptions(new URL(first));
    if (typeof second === "function") [second, third] = [undefined, second];
    options = { ...options, ...(second as RequestOptions | undefined) };
  } else {
    options = { ...(first as RequestOptions | undefined) };
    third = second;
  }
  options.protocol ??= defaultProtocol;
  return { options, callback: typeof third === "function" ? (third as Callback) : undefined };
}

function urlOfOptions(options: RequestOptions): URL | undefined {
  if (options.socketPath) return undefined;
  const hostname = options.hostname ?? options.host ?? "localhost";
  const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  try {
    return new URL(`${options.protocol}//${host}${options.port ? `:${options.port}` : ""}${options.path ?? "/"}`);
  } catch {
    return undefined;
  }
}

/** A socket that answers any request with an empty 204 without touching the network (the client's analytics). */
function localAnswer(): Duplex {
  let answered = false;
  return new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      if (!answered) {
        answered = true;
        this.push("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
        this.push(null);
      }
      done();
    },
  });
}

/** A socket that fails like a refused connection, with `message`. */
function localFailure(message: string): () => Duplex {
  return () => {
    const socket = new Duplex({ read() {}, write: (_chunk, _encoding, done) => done() });
    process.nextTick(() => socket.destroy(new Error(message)));
    return socket;
  };
}

function headersWithout(headers: RequestOptions["headers"], drop: string): Record<string, string | string[] | number> {
  const out: Record<string, string | string[] | number> = {};
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() !== drop) out[String(headers[i])] = headers[i + 1]!;
  } else if (headers) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && name.toLowerCase() !== drop) out[name] = value;
  }
  return out;
}

export function installHttpRedirect(target: SandboxTarget): void {
  const originals = { http: http.request as unknown as RequestFn, https: https.request as unknown as RequestFn };
  const wrap = (defaultProtocol: "http:" | "https:", original: RequestFn): RequestFn =>
    function request(this: unknown, ...args: unknown[]) {
      const { options, callback } = readArgs(args, defaultProtocol);
      const url = urlOfOptions(options);
      const decision = url ? decide(target, url) : { kind: "pass" as const };
      if (decision.kind === "pass") return original.apply(this, args);
      if (decision.kind === "local") {
        return originals.http({ ...pick(options), createConnection: localAnswer, host: "localhost", path: options.path }, callback);
      }
      if (decision.kind === "fail") {
        // Fails like a refused connection: asynchronously, on the request's error event.
        return originals.http({ ...pick(options), createConnection: localFailure(decision.message), host: "localhost", path: options.path }, callback);
      }
      const headers = { ...headersWithout(options.headers, "host"), ...decision.headers };
      const sandboxOptions: RequestOptions = {
        ...pick(options),
        protocol: decision.url.protocol,
        hostname: decision.url.hostname.replace(/^\[|\]$/g, ""),
        port: decision.url.port || undefined,
        path: `${decision.url.pathname}${decision.url.search}`,
        headers,
      };
      return (target.https ? originals.https : originals.http)(sandboxOptions, callback);
    };
  const get = (request: RequestFn): RequestFn =>
    function get(this: unknown, ...args: unknown[]) {
      const req = request.apply(this, args);
      req.end();
      return req;
    };
  const httpRequest = wrap("http:", originals.http);
  const httpsRequest = wrap("https:", originals.https);
  Object.assign(http, { request: httpRequest, get: get(httpRequest) });
  Object.assign(https, { request: httpsRequest, get: get(httpsRequest) });
  syncBuiltinESMExports();
}

function pick(options: RequestOptions): RequestOptions {
  const kept: Record<string, unknown> = {};
  for (const name of KEPT_OPTIONS) if ((options as Record<string, unknown>)[name] !== undefined) kept[name] = (options as Record<string, unknown>)[name];
  return kept as RequestOptions;
}
