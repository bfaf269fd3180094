/**
 * Every operation of the contract answers, even without a real handler: a
 * response valid against its own schema, marked X-Sandbox-Mock: fallback.
 * Every operation has a real handler today, so the check runs on a sandbox
 * started without any (`handlers: {}`, as for a --spec with operations the
 * sandbox does not know). Requests are generated from the contract itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { OperationIndex } from "../../src/contract/operations.js";
import { validateResponse, describeProblems } from "../../src/contract/validate.js";
import { defaultSpecPath } from "../../src/paths.js";
import { generateRequest } from "#test/helpers/requests.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let index: OperationIndex;
beforeAll(async () => {
  index = new OperationIndex(await loadCompiledOperations(defaultSpecPath));
  sandbox = await withSandbox({ auth: "none", seed: "fallback-test", handlers: {} });
});
afterAll(() => sandbox.close());

describe("fallback mocking", () => {
  it("answers every operation without a real handler with a schema-valid response", async () => {
    const failures: string[] = [];
    const unbuildable: string[] = [];
    let answered = 0;
    for (const op of index.all) {
      const request = generateRequest(op);
      if (!request) {
        unbuildable.push(op.operationId);
        continue;
      }
      const res = await call(sandbox, op.method, `/platform${request.path}`, { anonymous: true, headers: request.headers, body: request.body });
      if (res.status >= 300 || res.headers["x-sandbox-mock"] !== "fallback") {
        failures.push(`${op.operationId}: status ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const body = res.text ? JSON.parse(res.text) : undefined;
      const problems = validateResponse(op.http, { status: res.status, headers: { "content-type": res.headers["content-type"] }, body });
      if (problems.length) failures.push(`${op.operationId}: ${describeProblems(problems)}`);
      else answered++;
    }
    console.log(`fallback: ${answered} operations answered with schema-valid mocks; request not generated for: ${unbuildable.join(", ") || "none"}`);
    expect(failures).toEqual([]);
    expect(unbuildable).toEqual([]);
    expect(answered).toBe(index.all.length);
  }, 120_000);
});

describe("real handlers", () => {
  it("serve every operation of the contract (nothing in the default sandbox is answered by the mock)", async () => {
    const { handlers } = await import("../../src/products/index.js");
    expect(index.all.map((o) => o.operationId).filter((id) => !handlers[id])).toEqual([]);
  });
});
