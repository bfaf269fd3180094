/**
 * One delivery attempt: an HTTP POST of the signed JSON body to the target.
 * Success is any 2xx answer within the timeout; redirects are not followed.
 * The receiver's answer is kept (status, the first 1,000 characters of the
 * body, the time it took) for the events list.
 *
 * Nothing is sent to the sandbox itself (selfTarget.ts): the URL's host is
 * checked first, and a name is checked again on the addresses it resolves to
 * for this very connection, since DNS may answer differently than when the
 * subscription was written.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import type { DeliveryErrorName } from "../../wallet/events/model.js";
import { privateHostOf, privateRangeOf } from "./privateTarget.js";
import { addressReachesSandbox, portOf, urlReachesSandbox } from "./selfTarget.js";

const DELIVERY_TIMEOUT_MS = 15_000;
const MAX_KEPT_BODY = 1000;

export interface AttemptOutcome {
  ok: boolean;
  httpCode?: number;
  elapsedTimeMs: number;
  body?: string;
  errorName?: DeliveryErrorName;
}

// Our own codes for a connection refused because its address is the sandbox's, or on the host's own network.
const SANDBOX_TARGET = "ESANDBOXTARGET";
const PRIVATE_TARGET = "EPRIVATETARGET";

function errorNameOf(error: NodeJS.ErrnoException): DeliveryErrorName {
  switch (error.code) {
    case SANDBOX_TARGET:
      return "target_is_sandbox";
    case PRIVATE_TARGET:
      return "target_is_private";
    case "ECONNREFUSED":
      return "connection_refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "dns_failure";
    case "ETIMEDOUT":
    case "ESOCKETTIMEDOUT":
      return "timeout";
    default:
      return "connection_error";
  }
}

/**
 * dns.lookup, failing with ESANDBOXTARGET when any address it finds would connect to the sandbox on `port`, or,
 * unless `privateAllowed`, lies in a loopback, link-local or private range (privateTarget.ts).
 */
function lookupRefusingSandbox(port: number, sandboxPorts: readonly number[], privateAllowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, options, (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
      const found = error ? [] : Array.isArray(address) ? address.map((a) => a.address) : [address];
      const own = found.find((a) => addressReachesSandbox(a, port, sandboxPorts));
      const inside = privateAllowed ? undefined : found.find((a) => privateRangeOf(a) !== undefined);
      if (own === undefined && inside === undefined) return callback(error, address as string, family as number);
      const refused: NodeJS.ErrnoException = new Error(
        own !== undefined
          ? `${hostname} resolves to ${own}, the sandbox itself: nothing was sent`
          : `${hostname} resolves to ${inside}, on the sandbox host's own network (${privateRangeOf(inside!)}): nothing was sent`,
      );
      refused.code = own !== undefined ? SANDBOX_TARGET : PRIVATE_TARGET;
      callback(refused, "", 0);
    });
  };
}

/**
 * Posts `body` to `url`; never throws. `signal` aborts it (the sandbox is closing). `sandboxPorts`: the ports the
 * sandbox listens on, which a delivery never reaches; `privateAllowed` false: nor loopback, link-local or private
 * addresses.
 */
export function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  sandboxPorts: readonly number[],
  privateAllowed = true,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, "elapsedTimeMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, elapsedTimeMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      finish({ ok: false, errorName: "connection_error", body: `${url} is not a URL` });
      return;
    }
    if (urlReachesSandbox(target, sandboxPorts)) {
      finish({ ok: false, errorName: "target_is_sandbox", body: `${target.host} is the sandbox itself: nothing was sent` });
      return;
    }
    // An address literal is never looked up, so the lookup below would not see it.
    const privateRange = privateAllowed ? undefined : privateHostOf(target.hostname);
    if (privateRange) {
      finish({ ok: false, errorName: "target_is_private", body: `${target.host} is on the sandbox host's own network (${privateRange}): nothing was sent` });
      return;
    }
    const client = target.protocol === "https:" ? https : http;
    const req = client.request(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        signal,
        timeout: DELIVERY_TIMEOUT_MS,
        lookup: lookupRefusingSandbox(portOf(target), sandboxPorts, privateAllowed),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept < MAX_KEPT_BODY * 4) chunks.push(chunk);
          kept += chunk.length;
        });
        res.on("error", (error) => finish({ ok: false, httpCode: res.statusCode, errorName: errorNameOf(error) }));
        res.on("end", () => {
          const code = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString("utf8").slice(0, MAX_KEPT_BODY);
          const ok = code >= 200 && code < 300;
          finish({ ok, httpCode: code, ...(text ? { body: text } : {}), ...(ok ? {} : { errorName: "http_error" }) });
        });
      },
    );
    req.on("timeout", () => {
      finish({ ok: false, errorName: "timeout", body: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
      req.destroy();
    });
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish({ ok: false, errorName: signal.aborted ? "connection_error" : errorNameOf(error), body: error.message }),
    );
    req.end(body);
  });
}
