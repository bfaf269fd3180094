/**
 * Redirects the global `fetch` (Node's undici: viem's http transport,
 * @solana/kit, the client's analytics and node-token calls). The wrapper is
 * installed before the program loads, so libraries that read `fetch` when
 * they call it, or keep it from their own load, both get it. Node loads undici
 * on the first call only, so wrapping costs nothing at start-up.
 */
import { decide } from "./decide.js";
import type { SandboxTarget } from "./sandbox.js";

function urlOf(input: unknown): URL | undefined {
  try {
    if (typeof input === "string") return new URL(input);
    if (input instanceof URL) return input;
    if (input instanceof Request) return new URL(input.url);
  } catch {
    // Not an absolute URL: fetch itself will say so.
  }
  return undefined;
}

/** What a Request carries, as init for a request to another URL (its body read once, as the original would have been). */
async function initOf(request: Request): Promise<RequestInit> {
  const body = request.body === null ? undefined : await request.arrayBuffer();
  return { method: request.method, headers: request.headers, body, signal: request.signal, redirect: request.redirect };
}

export function installFetchRedirect(target: SandboxTarget): void {
  const original = globalThis.fetch;
  const redirected = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = urlOf(input);
    const decision = url ? decide(target, url) : { kind: "pass" as const };
    if (decision.kind === "pass") return original(input, init);
    if (decision.kind === "local") return new Response(null, { status: 204 });
    if (decision.kind === "fail") throw new TypeError(decision.message);
    const base = input instanceof Request ? await initOf(input) : {};
    const headers = new Headers(init?.headers ?? base.headers);
    for (const [name, value] of Object.entries(decision.headers)) headers.set(name, value);
    return original(decision.url, { ...base, ...init, headers });
  };
  globalThis.fetch = redirected as typeof fetch;
}
