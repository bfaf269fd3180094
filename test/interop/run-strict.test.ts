/**
 * `cdp-sandbox run --strict`: a program written with the official client that sends one request the contract refuses,
 * logs the 400, handles a 404 and exits 0 passes a plain run but fails a strict one, which names only the violation;
 * `--report DIR` writes the reports when the sandbox stops, and a folder that cannot be written is refused before
 * anything starts. The built command spawns the program; dist/ is built first when missing or stale.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseJunit, type TestSuites } from "junit2json";
import { afterAll, describe, expect, it, beforeAll } from "vitest";
import { startSandbox } from "cdp-sandbox";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, programPath, startNode } from "#test/helpers/cli.js";
import { call } from "#test/helpers/sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-run-strict-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const careless = (...options: string[]) =>
  startNode([cliPath, "run", "--seed", "run-strict", ...options, "--", process.execPath, programPath("careless-client.mjs")], { timeoutMs: 90_000 });

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

describe("cdp-sandbox run --strict -- node <a client that logs a 400 and carries on>", () => {
  it("exits 0 without --strict: the client handled both errors", async () => {
    const { code, stdout, stderr } = await careless().finished;
    expect(code, stderr).toBe(0);
    const { seen } = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(seen).toEqual([
      { call: "createAccount", statusCode: 400, errorType: "invalid_request" },
      { call: "getAccount", statusCode: 404, errorType: "not_found" },
    ]);
    expect(stderr).not.toContain("violation");
  }, 120_000);

  it("exits 1 with --strict, naming only the invalid request on stderr, and writes the reports", async () => {
    const report = join(dir, "report");
    const journal = join(dir, "journal.jsonl");
    const { code, stderr } = await careless("--strict", "--report", report, "--journal", journal).finished;
    expect(code, stderr).toBe(1);
    const lines = stderr.split("\n").filter((l) => l.includes("violation: "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /violation: createEvmAccount 400 invalid_request: body\.name: Request body property name must match pattern.*\(×1, first [0-9a-f]+-SBX\)/,
    );
    expect(stderr).not.toMatch(/violation: getEvmAccount/);
    expect(stderr).toContain(`the requests are in ${journal}`);
    // The violation's correlation id finds its request in the journal file.
    const correlationId = /first ([0-9a-f]+-SBX)/.exec(lines[0]!)![1]!;
    const entry = readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.correlationId === correlationId);
    expect(entry).toMatchObject({ operationId: "createEvmAccount", status: 400, violation: "validation" });

    const coverage = JSON.parse(readFileSync(join(report, "coverage.json"), "utf8"));
    expect(coverage.journal).toBe(journal);
    expect(coverage.total.violations).toHaveLength(1);
    expect(coverage.total.operations.find((o: { operationId: string }) => o.operationId === "getEvmAccount").statuses).toEqual({ "404": 1 });
    const junit = (await parseJunit(readFileSync(join(report, "junit.xml"), "utf8"))) as TestSuites;
    expect(junit.failures).toBe(1);
    expect(readFileSync(join(report, "summary.md"), "utf8")).toContain("| Contract violations | **1** (1 distinct) |");
  }, 120_000);

  it("takes --strict from CDP_SANDBOX_STRICT=true", async () => {
    const run = startNode([cliPath, "run", "--seed", "run-strict-env", "--", process.execPath, programPath("careless-client.mjs")], {
      timeoutMs: 90_000,
      env: { CDP_SANDBOX_STRICT: "true" },
    });
    const { code, stderr } = await run.finished;
    expect(code, stderr).toBe(1);
    expect(stderr).toContain("violation: createEvmAccount 400");
  }, 120_000);

  it("refuses a --report folder that cannot be written before it starts anything or runs the command", async () => {
    const file = join(dir, "plain-file");
    writeFileSync(file, "");
    const marker = join(dir, "ran");
    const run = startNode(
      [cliPath, "run", "--report", join(file, "out"), "--", process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
      {
        timeoutMs: 60_000,
      },
    );
    const { code, stderr } = await run.finished;
    expect(code).toBe(2);
    expect(stderr).toMatch(/cdp-sandbox run: the report folder .*plain-file\/out cannot be written/);
    expect(existsSync(marker)).toBe(false);
  }, 90_000);

  it("with --attach, judges the run's own project on the shared sandbox", async () => {
    const shared = await startSandbox({ port: 0, seed: "run-strict-attach" });
    try {
      // Another project's violation on the shared sandbox is not this run's.
      const other = await shared.createProject("someone else");
      const credentialsFile = join(dir, "attach-credentials.json");
      writeFileSync(credentialsFile, JSON.stringify(shared.credentials));
      const theirs = await call(shared, "POST", "/platform/v2/evm/accounts", { credentials: other, body: { name: "theirs, not ours" }, wallet: true });
      expect(theirs.status).toBe(400);
      expect(shared.violations()).toHaveLength(1);
      const run = startNode(
        [cliPath, "run", "--attach", shared.url, "--credentials-file", credentialsFile, "--strict", "--", process.execPath, programPath("careless-client.mjs")],
        { timeoutMs: 90_000 },
      );
      const { code, stderr } = await run.finished;
      expect(code, stderr).toBe(1);
      const lines = stderr.split("\n").filter((l) => l.includes("violation: "));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("createEvmAccount 400 invalid_request");
      expect(stderr).toContain(`the requests are in GET ${shared.url}/_sandbox/requests`);
    } finally {
      await shared.close();
    }
  }, 120_000);

  it("the sandbox's own command: SIGTERM writes the reports, and with --strict exits 1 naming the violation", async () => {
    const report = join(dir, "server-report");
    const server = startNode([cliPath, "--port", "0", "--seed", "server-strict", "--strict", "--report", report], { timeoutMs: 60_000 });
    const [, basePath] = await server.waitFor(/basePath=(\S+)/, "stdout");
    const unknown = await fetch(`${basePath}/v2/no-such-operation`);
    expect(unknown.status).toBe(404);
    const { correlationId } = (await unknown.json()) as { correlationId: string };
    server.child.kill("SIGTERM");
    const { code, stderr } = await server.finished;
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`GET /platform/v2/no-such-operation 404 not_found`);
    expect(stderr).toContain(correlationId);
    const coverage = JSON.parse(readFileSync(join(report, "coverage.json"), "utf8"));
    expect(coverage.total.violations).toMatchObject([{ operation: "GET /platform/v2/no-such-operation", check: "route", count: 1, correlationId }]);
  }, 90_000);
});
