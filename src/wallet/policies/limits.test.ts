/** A policy's limits: at most 100 rules (the contract's maxItems), taking at most 8 MiB as JSON; a refused policy changes nothing. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { checkPolicySize, MAX_RULES_BYTES } from "./rules.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "policy-limits" });
});
afterAll(() => sandbox.close());

const POLICIES = "/platform/v2/policy-engine/policies";
const rule = (i: number) => ({
  action: "reject" as const,
  operation: "signEvmTransaction" as const,
  criteria: [{ type: "ethValue", ethValue: String(i), operator: ">" }],
});
const rules = (n: number) => Array.from({ length: n }, (_, i) => rule(i));

describe("policy limits", () => {
  it("accepts 100 rules and refuses 101 with 400 invalid_request, on create and on update", async () => {
    const created = await call(sandbox, "POST", POLICIES, { body: { scope: "account", rules: rules(100) } });
    expect(created.status).toBe(201);
    expect(created.body.rules).toHaveLength(100);

    const tooMany = await call(sandbox, "POST", POLICIES, { body: { scope: "account", rules: rules(101) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({
      errorType: "invalid_request",
      errorMessage: expect.stringMatching(/body\.rules: .*must NOT have more than 100 items/),
    });

    const update = await call(sandbox, "PUT", `${POLICIES}/${created.body.id}`, { body: { rules: rules(101) } });
    expect(update.status).toBe(400);
    expect((await call(sandbox, "GET", `${POLICIES}/${created.body.id}`)).body.rules).toHaveLength(100);
    expect((await call(sandbox, "GET", `${POLICIES}?scope=account`)).body.policies).toHaveLength(1);
  });

  it("refuses rules over 8 MiB serialized (a body that size exceeds the sandbox's 5 MB request limit, so the check is direct)", () => {
    const big = [
      { action: "accept" as const, operation: "signEvmMessage" as const, criteria: [{ type: "evmMessage" as const, match: "a".repeat(MAX_RULES_BYTES) }] },
    ];
    expect(() => checkPolicySize(big)).toThrow(/at most 8 MiB/);
    const fits = [{ ...big[0]!, criteria: [{ type: "evmMessage" as const, match: "a".repeat(MAX_RULES_BYTES - 200) }] }];
    expect(() => checkPolicySize(fits)).not.toThrow();
  });
});
