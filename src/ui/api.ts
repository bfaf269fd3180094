/// <reference lib="dom" />
/**
 * The dashboard's only way to the sandbox: the admin API at /_sandbox, typed
 * from admin-openapi.yaml's generated types. Every call names the project
 * shown (X-Sandbox-Project); when the sandbox asks for its admin token
 * (bound to a network address), the user types it once per tab.
 */
import type { operations } from "../contract/generated/admin-types.js";

export type Op = keyof operations;
type Responses<Id extends Op> = operations[Id]["responses"];
type Ok<Id extends Op> = 200 extends keyof Responses<Id> ? Responses<Id>[200] : 201 extends keyof Responses<Id> ? Responses<Id>[201] : never;
/** The JSON body an operation answers with on success. */
export type Answer<Id extends Op> = Ok<Id> extends { content: { "application/json": infer B } } ? B : never;

export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = "cdp-sandbox-admin-token";
let project: string | undefined;
let askToken: (() => Promise<string | undefined>) | undefined;
/** Calls refused at the same time wait for one question, not one each. */
let asking: Promise<string | undefined> | undefined;

export const setProject = (id: string | undefined) => {
  project = id;
};
export const currentProject = () => project;
/** How to ask the user for the admin token when the sandbox wants one. */
export const onTokenNeeded = (ask: () => Promise<string | undefined>) => {
  askToken = ask;
};

/**
 * Calls `METHOD /_sandbox{path}` with the operation's answer type: `api<"listSandboxAccounts">("GET", "/accounts?kind=evm")`.
 * `global: true` leaves the project out (calls about the whole sandbox).
 */
export async function api<Id extends Op>(method: string, path: string, o: { body?: unknown; global?: boolean } = {}): Promise<Answer<Id>> {
  // Marks the dashboard's own calls: its polling reads stay out of the journal it shows.
  const headers: Record<string, string> = { accept: "application/json", "x-sandbox-dashboard": "1" };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  if (project && !o.global) headers["x-sandbox-project"] = project;
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers["x-sandbox-admin-token"] = token;
  const res = await fetch(`/_sandbox${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (res.ok) return body as Answer<Id>;
  const error = (body ?? {}) as { errorType?: string; errorMessage?: string };
  if (res.status === 401 && error.errorType === "unauthorized" && askToken) {
    asking ??= askToken().finally(() => {
      asking = undefined;
    });
    const given = await asking;
    if (given) {
      sessionStorage.setItem(TOKEN_KEY, given);
      return api<Id>(method, path, o);
    }
  }
  throw new AdminError(res.status, error.errorType ?? "error", error.errorMessage ?? `${method} ${path} answered ${res.status}`);
}

/** A query string from the defined values: `query({ offset: 0, q: undefined })` is `?offset=0`. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== "") params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}
