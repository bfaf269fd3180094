/**
 * The fast response check must never vouch for an answer prism's validator refuses: for every declared response of
 * every operation of both contracts, a valid body (the contract's example or a generated one), an error body, and
 * many mutations of them, under several content types, are put to both, and prism's verdict is the truth.
 */
import { createRequire } from "node:module";
import type { IHttpOperation } from "@stoplight/types";
import { beforeAll, describe, expect, it } from "vitest";
import { bodyMutations } from "#test/helpers/requests.js";
import { adminSpecPath, defaultSpecPath } from "../paths.js";
import { createRandom } from "../random.js";
import { loadCompiledOperations } from "./compile.js";
import { fallbackResponse } from "./fallback.js";
import { preparePrismAjv } from "./ajv.js";
import { certainlyValidResponse } from "./responseCheck.js";

interface PrismValidator {
  validateOutput(opts: { resource: IHttpOperation; element: unknown }): { _tag: string; left?: Array<{ severity: number }> };
}
// prism as the sandbox loads it: its Ajv builds patched first (linear patterns). Loaded unpatched here, it would
// stay so for every later file of this worker, and check patterns the sandbox's prism cannot compile.
const VALIDATOR = "@stoplight/prism-http/dist/validator/index.js";
preparePrismAjv(createRequire(createRequire(import.meta.url).resolve(VALIDATOR)));
const prism = createRequire(import.meta.url)(VALIDATOR) as PrismValidator;

type Answer = { status: number; headers: Record<string, string>; body: unknown };

function prismAccepts(op: IHttpOperation, res: Answer): boolean {
  const result = prism.validateOutput({ resource: op, element: { statusCode: res.status, headers: res.headers, body: res.body } });
  return result._tag === "Right" || !(result.left ?? []).some((d) => d.severity === 0);
}

const ERROR_BODY = { errorType: "invalid_request", errorMessage: "refused", correlationId: "c0ffee", errorLink: "https://docs.cdp.coinbase.com" };
const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/problem+json"];

describe("the fast response check", () => {
  let operations: IHttpOperation[];
  beforeAll(async () => {
    operations = [...(await loadCompiledOperations(defaultSpecPath)), ...(await loadCompiledOperations(adminSpecPath))];
  });

  it("vouches only for answers prism's validator accepts, for every declared response and many mutations of its body", () => {
    const random = createRandom("response-check");
    const wrong: string[] = [];
    let vouched = 0;
    let compared = 0;
    for (const op of operations) {
      const success = fallbackResponse(op, random.fork(op.iid ?? op.id), (status, body) =>
        prismAccepts(op, { status, headers: { "content-type": "application/json" }, body }),
      );
      for (const response of op.responses) {
        const status = Number(response.code);
        if (!Number.isInteger(status)) continue;
        const body = status === success.status ? success.body : status >= 400 ? ERROR_BODY : {};
        for (const candidate of [body, ...bodyMutations(body)])
          for (const contentType of CONTENT_TYPES) {
            const answer = { status, headers: { "content-type": contentType }, body: candidate };
            compared++;
            if (!certainlyValidResponse(op, answer)) continue;
            vouched++;
            if (!prismAccepts(op, answer)) wrong.push(`${op.iid} ${status} ${contentType}: ${JSON.stringify(candidate).slice(0, 160)}`);
          }
      }
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(10_000);
    expect(vouched).toBeGreaterThan(1_000);
  }, 180_000);

  it("vouches for the valid answers of nearly every declared response, so prism stays off the answer's path", () => {
    const random = createRandom("response-check-valid");
    const asked: string[] = [];
    let accepted = 0;
    for (const op of operations) {
      const { status, body } = fallbackResponse(op, random.fork(op.iid ?? op.id), (s, b) =>
        prismAccepts(op, { status: s, headers: { "content-type": "application/json" }, body: b }),
      );
      const answer = { status, headers: { "content-type": "application/json" }, body };
      if (!prismAccepts(op, answer)) continue;
      accepted++;
      if (!certainlyValidResponse(op, answer)) asked.push(`${op.iid} ${status}`);
    }
    // Left to prism: answers without a body of their own schema (no content, several media types) and recursive schemas.
    expect(asked.length, asked.join(", ")).toBeLessThan(accepted / 10);
  }, 180_000);
});
