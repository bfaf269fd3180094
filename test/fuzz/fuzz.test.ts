/**
 * The fuzzer's short run in `npm test` (scripts/fuzz-core.mjs; `npm run fuzz`
 * runs it long against the built command): a fixed seed, a few thousand
 * requests to every operation, valid and spoiled, against the source with
 * every response checked against the contract. Any 5xx, dropped connection,
 * error that is not the platform's error body, accepted forgery or
 * cross-project read fails it, with a reproduction. Slowness is left to the
 * long run (`npm run fuzz`): a test must not depend on the machine's load.
 */
import { describe, expect, it } from "vitest";
import { startSandbox } from "cdp-sandbox";
import { type AllowedFinding, formatReport, runFuzz } from "../../scripts/fuzz-core.mjs";
import { loadCompiledOperations } from "../../src/contract/compile.js";
import { pruneRecursion } from "../../src/contract/fallback.js";
import { OperationIndex } from "../../src/contract/operations.js";
import { validateRequest } from "../../src/contract/validate.js";
import { defaultSpecPath } from "../../src/paths.js";

/** Findings known and not fixed yet, each with why it is still open; fixed ones leave the list (test/core/fuzz-findings.test.ts keeps them fixed). */
const KNOWN_OPEN: AllowedFinding[] = [];

const REQUESTS = 3000;

describe("the fuzzer's short run", () => {
  it("answers every operation's fuzzed requests without a finding", async () => {
    // The sandbox's own account of each unexpected error (its stack) goes with the report.
    const logged: string[] = [];
    const log = (message: string) => void (/unexpected error|does not match the contract/.test(message) && logged.length < 20 && logged.push(message));
    const sandbox = await startSandbox({ port: 0, seed: "fuzz-in-suite", validateResponses: true, auth: "strict", log });
    try {
      const operations = new OperationIndex(await loadCompiledOperations(defaultSpecPath)).all;
      const result = await runFuzz({
        url: sandbox.url,
        credentials: sandbox.credentials,
        operations,
        validateRequest,
        pruneRecursion,
        seed: "npm-test",
        requests: REQUESTS,
        // Nothing here depends on the machine's speed: the run is its number of requests, however long they take
        // (a time cap once ended it early on a busy machine, before every operation was exercised), and slowness
        // is measured by `npm run fuzz` on a quiet machine, not judged here.
        seconds: 3600,
        slowMs: Number.POSITIVE_INFINITY,
        allow: KNOWN_OPEN,
      });
      const report = `${formatReport(result, { operations: false })}\n\nthe sandbox's log:\n${logged.join("\n")}`;
      expect(result.findings.filter((f) => !f.allowedBy).length, report).toBe(0);
      expect([...result.byOperation.keys()], "every operation is exercised").toEqual(expect.arrayContaining(operations.map((op) => op.operationId)));
    } finally {
      await sandbox.close();
    }
  }, 900_000);
});
