/**
 * For the after-commit suites: faults a request switches on for itself, the
 * client's view of an attempt (its answer, or the transport error it got
 * instead), and the two retries whose outcome is the point — with the first
 * attempt's X-Idempotency-Key (a replay of the real answer) and without it (the
 * effect again, marked X-Sandbox-Duplicate-Of the lost attempt).
 */
import request from "supertest";
import { expect } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call } from "./sandbox.js";

type Fault = "raw" | "reset" | "hang" | "close-after-headers" | "truncate";
type Answer = Awaited<ReturnType<typeof call>>;

/** A 502 page from a gateway in front of the platform: HTML, not the platform's error body. */
export const GATEWAY_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>";

/**
 * Switches on, for every project, one `phase: after` rule per fault the shipped scenarios do not give per request
 * (X-Sandbox-Error names only catalogue errors), each matched by an `X-Fault-After: <fault>` header.
 */
export async function switchOnAfterCommitFaults(sandbox: Sandbox): Promise<void> {
  const rule = (fault: Fault, act: Record<string, unknown>) => ({ match: { headers: { "x-fault-after": fault } }, phase: "after", ...act });
  const scenario = {
    name: "after-commit-faults",
    rules: [
      rule("raw", { raw: { status: 502, contentType: "text/html", body: GATEWAY_PAGE } }),
      ...(["reset", "hang", "close-after-headers", "truncate"] as const).map((fault) => rule(fault, { fault })),
    ],
  };
  const res = await request(sandbox.url).post("/_sandbox/scenarios").send({ scenario });
  if (res.status >= 300) throw new Error(`scenario activation failed: ${res.status} ${res.text}`);
}

export const faultAfter = (fault: Fault): Record<string, string> => ({ "X-Fault-After": fault });

type Outcome = { status: number; answer: Answer; error?: undefined } | { status?: undefined; answer?: undefined; error: string };

/** What the client saw: the answer, or the transport error (ECONNRESET, a timeout, an aborted body) it got instead. */
export function outcome(attempt: Promise<Answer>): Promise<Outcome> {
  return attempt.then(
    (answer) => ({ status: answer.status, answer }),
    (error: { code?: string; message: string }) => ({ error: error.code ?? error.message }),
  );
}

/** A retry with the lost attempt's key: the real answer, replayed (the effect is not performed again). */
export async function replayed(attempt: Promise<Answer>): Promise<Answer> {
  const res = await attempt;
  expect(res.status, res.text).toBeLessThan(300);
  expect(res.headers["x-sandbox-idempotent-replay"]).toBe("true");
  expect(res.headers["x-sandbox-duplicate-of"]).toBeUndefined();
  return res;
}

/**
 * A retry without a key: the effect is performed again and the answer names the lost attempt in
 * X-Sandbox-Duplicate-Of — the journal shows that attempt carried the fault (status 0 for a broken connection).
 */
export async function repeated(sandbox: Sandbox, attempt: Promise<Answer>, lost: Outcome): Promise<Answer> {
  const res = await attempt;
  expect(res.status, res.text).toBeLessThan(300);
  const first = res.headers["x-sandbox-duplicate-of"];
  expect(first).toMatch(/.+/);
  const journal = (await call(sandbox, "GET", "/_sandbox/requests")).body.requests as Array<{ correlationId: string; status: number; scenarios: string[] }>;
  const entry = journal.find((r) => r.correlationId === first);
  expect(entry?.scenarios.length).toBe(1);
  expect(entry?.status).toBe(lost.status ?? 0);
  return res;
}

/** An address's balance of one token (by symbol) as the token balance API shows it, "0" when it holds none. */
export async function tokenBalance(sandbox: Sandbox, chain: "evm" | "solana", network: string, address: string, symbol: string): Promise<string> {
  const res = await call(sandbox, "GET", `/platform/v2/${chain}/token-balances/${network}/${address}`);
  const balances = res.body.balances as Array<{ token: { symbol: string }; amount: { amount: string } }>;
  return balances.find((b) => b.token.symbol === symbol)?.amount.amount ?? "0";
}

/** A JSON-RPC call to the project's node (the same ledgers the API moves). */
export async function rpc(sandbox: Sandbox, network: string, method: string, params: unknown[]): Promise<unknown> {
  const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id as string;
  const res = await call(sandbox, "POST", `/rpc/v1/${network}/${token}`, { body: { jsonrpc: "2.0", id: 1, method, params }, anonymous: true });
  if (res.body.error) throw new Error(`${method} failed: ${JSON.stringify(res.body.error)}`);
  return res.body.result;
}
