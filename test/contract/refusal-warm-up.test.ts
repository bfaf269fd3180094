/**
 * The first refusal of an operation's body costs what later ones cost when the command has warmed the refusal path
 * after listening (prism's merged body schema, the variants that phrase an unmatched oneOf): a piece of that work per
 * turn of the event loop, never one long hold, and the refusal reads the same as without it. Counted, not timed.
 */
import request from "supertest";
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { variantWarmUps } from "../../src/contract/closestVariant.js";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { bodySchemaOf, loadValidation, prepareRefusals } from "../../src/contract/validate.js";
import { defaultSpecPath } from "../../src/paths.js";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { withSandbox } from "#test/helpers/sandbox.js";

// A rule whose criterion's `type` is 1,000 strings: it matches none of a rule's 22 variants.
const REFUSED_POLICY = {
  scope: "project",
  description: "d",
  rules: [{ action: "accept", operation: "signEvmTransaction", criteria: [{ type: Array(1_000).fill("a"), ethValue: "1", operator: "<=" }] }],
};

let cold: Sandbox;
let warmed: Sandbox;
beforeAll(async () => {
  [cold, warmed] = await Promise.all([withSandbox({ auth: "none" }), withSandbox({ auth: "none", prepareRuntimes: true })]);
});
afterAll(() => Promise.all([cold?.close(), warmed?.close()]));

describe("the refusal path warmed after listening", () => {
  it("runs a piece per turn of the event loop: each operation's body through prism, then each of its variants", async () => {
    const operations = await loadCompiledOperations(defaultSpecPath);
    loadValidation();
    const withBody = operations.filter((op) => bodySchemaOf(op) !== undefined);
    const pieces = withBody.length + withBody.reduce((n, op) => n + variantWarmUps(bodySchemaOf(op)).length, 0);
    // A policy's rules alone are 22 variants, each with criteria of their own.
    expect(pieces).toBeGreaterThan(withBody.length + 22);
    const { turns } = await turnsWhile(() => prepareRefusals(operations).done);
    expect(turns).toBeGreaterThanOrEqual(pieces);
  });

  it("refuses a policy whose rule matches no variant as a cold sandbox does: 400, the closest variant named", async () => {
    const answers = await Promise.all([cold, warmed].map((sandbox) => request(sandbox.url).post("/platform/v2/policy-engine/policies").send(REFUSED_POLICY)));
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", correlationId: expect.any(String), errorLink: expect.any(String) });
      expect(res.body.errorMessage).toMatch(/^body\.rules\.0: body\.rules\.0 matches none of its 22 variants; the closest is /);
    }
    expect(answers[1]!.body.errorMessage).toBe(answers[0]!.body.errorMessage);
  });
});
