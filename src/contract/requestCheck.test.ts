/**
 * The fast request check must never accept what prism's validator rejects:
 * for every operation of the contract, requests generated from it and many
 * mutations of them (missing, mistyped and extra fields, bad parameters,
 * other content types) are put to both, and prism's verdict is the truth.
 */
import { createRequire } from "node:module";
import type { IHttpOperation } from "@stoplight/types";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { bodyMutations, generateRequest } from "#test/helpers/requests.js";
import { defaultSpecPath } from "../paths.js";
import { loadCompiledOperations } from "./compile.js";
import { OperationIndex, type Operation } from "./operations.js";
import { preparePrismAjv } from "./ajv.js";
import { type CheckedRequest, certainlyValid, fastCheck, LARGE_BODY_BYTES } from "./requestCheck.js";

interface PrismValidator {
  validateInput(opts: { resource: IHttpOperation; element: unknown }): { _tag: string; left?: Array<{ severity: number }> };
}
// prism as the sandbox loads it: its Ajv builds patched first (linear patterns). Loaded unpatched here, it would
// stay so for every later file of this worker, and check patterns the sandbox's prism cannot compile.
const VALIDATOR = "@stoplight/prism-http/dist/validator/index.js";
preparePrismAjv(createRequire(createRequire(import.meta.url).resolve(VALIDATOR)));
const prism = createRequire(import.meta.url)(VALIDATOR) as PrismValidator;

function prismAccepts(op: IHttpOperation, req: CheckedRequest): boolean {
  const result = prism.validateInput({
    resource: op,
    element: { method: op.method, url: { path: req.path, query: req.query }, headers: req.headers, body: req.body },
  });
  return result._tag === "Right" || !(result.left ?? []).some((d) => d.severity === 0);
}

function variants(op: Operation, generated: { path: string; headers: Record<string, string>; body: unknown }): CheckedRequest[] {
  const url = new URL(generated.path, "http://sandbox.invalid");
  const query: Record<string, string | string[]> = Object.fromEntries(url.searchParams);
  const headers: Record<string, string> = { host: "127.0.0.1:1", "x-wallet-auth": "token", "x-idempotency-key": "key-1" };
  for (const [k, v] of Object.entries(generated.headers)) headers[k.toLowerCase()] = v;
  const base = { path: url.pathname, query, headers, body: generated.body };
  const json = (body: unknown, extra: Record<string, string> = {}): CheckedRequest => ({
    ...base,
    body,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": "10" }), ...extra },
  });
  const out: CheckedRequest[] = [json(generated.body)];
  for (const body of bodyMutations(generated.body)) out.push(json(body));
  for (const contentType of ["application/json; charset=utf-8", "application/problem+json", "text/plain", "json", "", "application/x-www-form-urlencoded"]) {
    out.push(json(generated.body, { "content-type": contentType }));
  }
  out.push(json(generated.body, { "content-length": "0" }), { ...base, headers: { ...headers, "content-length": "5" } });
  for (const name of Object.keys(headers)) {
    const complete = json(generated.body);
    const { [name]: _dropped, ...rest } = complete.headers;
    out.push({ ...complete, headers: rest });
    out.push(json(generated.body, { [name]: "" }), json(generated.body, { [name]: "y".repeat(200) }));
  }
  out.push(json(generated.body, { "X-Idempotency-Key": "mixed-case" }));
  for (const q of op.http.request?.query ?? []) {
    for (const value of ["abc", "-1", "0", "1.5", "", "true", "99999999999", ["1", "2"]] as Array<string | string[]>) {
      out.push({ ...json(generated.body), query: { ...query, [q.name]: value } });
    }
    out.push({ ...json(generated.body), query: { ...query, [q.name.toUpperCase()]: "5" } });
  }
  const segments = url.pathname.split("/");
  for (let i = 1; i < segments.length; i++) {
    for (const value of ["x", "0x12", "", "a%20b", "a%2Fb", "%C3%A9", "%E2", "a%zz", "A-._~", `0x${"ab".repeat(20)}`, "abc!"]) {
      const path = [...segments.slice(0, i), value, ...segments.slice(i + 1)].join("/");
      out.push({ ...json(generated.body), path });
    }
  }
  out.push({ ...json(generated.body), path: `${url.pathname}/` });
  return out;
}

let operations: Operation[];
beforeAll(async () => {
  operations = new OperationIndex(await loadCompiledOperations(defaultSpecPath)).all;
});

describe("the fast request check", () => {
  it("vouches only for requests prism's validator accepts, for every operation and many mutations of its requests", () => {
    const wrong: string[] = [];
    let compared = 0;
    for (const op of operations) {
      const generated = generateRequest(op) ?? { path: op.pathTemplate.replace(/\{[^}]+\}/g, "x"), headers: {}, body: {} };
      for (const req of variants(op, generated)) {
        compared++;
        if (certainlyValid(op.http, req) && !prismAccepts(op.http, req)) {
          wrong.push(`${op.operationId}: ${JSON.stringify({ ...req, body: JSON.stringify(req.body)?.slice(0, 200) })}`);
        }
      }
    }
    expect(compared).toBeGreaterThan(operations.length * 50);
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("vouches for the valid requests of nearly every operation, so prism stays off the hot path", () => {
    const missed: string[] = [];
    for (const op of operations) {
      const generated = generateRequest(op);
      if (!generated) continue;
      const [valid] = variants(op, generated);
      if (prismAccepts(op.http, valid!) && !certainlyValid(op.http, valid!)) missed.push(op.operationId);
    }
    // Operations with array or object parameters are left to prism on purpose; they are few.
    expect(missed.length).toBeLessThan(operations.length / 10);
  });

  it("answers a large invalid body with its first problem, as prism words it, without prism's walk of every item", () => {
    const op = operations.find((o) => o.operationId === "prepareUserOperation")!;
    const request = (calls: unknown[]): CheckedRequest => {
      const body = { network: "base-sepolia", calls };
      const length = String(JSON.stringify(body).length);
      return {
        path: op.pathTemplate.replace("{address}", `0x${"ab".repeat(20)}`),
        query: {},
        headers: { "content-type": "application/json", "content-length": length },
        body,
      };
    };
    // Within the contract's bound on calls (100), each item large: the body is over the size, the first item wrong.
    const large = request(Array(100).fill("a".repeat(1_000)));
    expect(Number(large.headers["content-length"])).toBeGreaterThan(LARGE_BODY_BYTES);
    expect(fastCheck(op.http, large)).toEqual({ location: "body.calls.0", message: "Request body property calls.0 must be object" });
    // prism says the same of the same item (it goes on to the others); a small invalid body is still left to it.
    const small = request(["a".repeat(1_000)]);
    const said = prism.validateInput({
      resource: op.http,
      element: { method: op.http.method, url: { path: small.path, query: {} }, headers: small.headers, body: small.body },
    }) as { left?: Array<{ message: string; path?: string[] }> };
    expect(said.left?.map((d) => d.message)).toContain("Request body property calls.0 must be object");
    expect(fastCheck(op.http, small)).toBe(false);
  });

  it("refuses a long value over a maxLength without reading it a character at a time", async () => {
    const op = operations.find((o) => o.operationId === "createEvmAccount")!;
    const reads = vi.spyOn(String.prototype, "charCodeAt");
    try {
      const verdict = fastCheck(op.http, {
        path: op.pathTemplate,
        query: {},
        headers: { "content-type": "application/json" },
        body: { accountPolicy: "x".repeat(100_000) },
      });
      expect(verdict).not.toBe(true);
      expect(reads.mock.calls.length).toBeLessThan(1_000);
    } finally {
      reads.mockRestore();
    }
  });
});
