/**
 * The GitHub Action (action.yml, composite) run the way the runner runs it:
 * each step's `run` in bash, with the step's `env` mapping where `${{ inputs.* }}`
 * and `${{ github.action_path }}` are filled in, and GITHUB_ENV / GITHUB_OUTPUT
 * files the step appends to; later steps get what GITHUB_ENV holds. Then the stop
 * action (stop/action.yml). Skips until `npm run build` has run.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { packageRoot } from "../../src/paths.js";
import { alive, answers, BUILD_TIMEOUT_MS, ensureBuilt } from "#test/helpers/cli.js";
import { call } from "#test/helpers/sandbox.js";

interface Step {
  shell: string;
  run: string;
  env?: Record<string, string>;
  id?: string;
}
interface ActionFile {
  inputs?: Record<string, { default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

/** `NAME=value` lines and `NAME<<DELIMITER` blocks, as the runner reads GITHUB_ENV and GITHUB_OUTPUT. */
function readCommandFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      out[block[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
  }
  return out;
}

/** Fills `${{ inputs.x }}` and `${{ github.action_path }}` the way the runner does before the step runs. */
function expand(text: string, inputs: Record<string, string>, actionPath: string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    if (expression === "github.action_path") return actionPath;
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return inputs[input[1]!] ?? "";
    throw new Error(`the test runner does not know ${expression}`);
  });
}

/** Runs every step of a composite action; returns the runner files' contents and what the steps printed. */
async function runAction(file: string, given: Record<string, string>, runner: { dir: string; env: Record<string, string> }) {
  const action = parse(readFileSync(file, "utf8")) as ActionFile;
  expect(action.runs.using).toBe("composite");
  const actionPath = join(file, "..");
  const inputs = Object.fromEntries(Object.entries(action.inputs ?? {}).map(([name, i]) => [name, given[name] ?? i.default ?? ""]));
  const envFile = join(runner.dir, `env-${Math.random().toString(16).slice(2)}`);
  const outputFile = join(runner.dir, `output-${Math.random().toString(16).slice(2)}`);
  let printed = "";
  let code: number | null = 0;
  for (const step of action.runs.steps) {
    writeFileSync(envFile, "");
    writeFileSync(outputFile, "");
    expect(step.shell).toBe("bash");
    const env = {
      ...process.env,
      ...runner.env,
      GITHUB_ENV: envFile,
      GITHUB_OUTPUT: outputFile,
      RUNNER_TEMP: runner.dir,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, inputs, actionPath)])),
    };
    code = await new Promise<number | null>((resolve) => {
      const child = spawn("bash", ["-e", "-c", expand(step.run, inputs, actionPath)], { env, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (c) => (printed += c));
      child.stderr.on("data", (c) => (printed += c));
      child.once("close", resolve);
    });
    if (code !== 0) break; // the runner stops at a failed step
  }
  return { code, env: readCommandFile(envFile), outputs: readCommandFile(outputFile), printed };
}

describe("the GitHub Action", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-action-"));
  let pid: number | undefined;
  afterAll(() => {
    if (pid && alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the sandbox in the background, exports its credentials and base path, and the stop action ends it", async () => {
    const dataFile = join(dir, "state.json");
    const initFile = join(dir, "init.yaml");
    const journalFile = join(dir, "journal.jsonl");
    const exportFile = join(dir, "export.json");
    const reportDir = join(dir, "reports");
    const stepSummary = join(dir, "step-summary.md");
    writeFileSync(stepSummary, "## earlier steps\n");
    writeFileSync(initFile, 'evmAccounts:\n  - name: Seeded\n    balances: { base-sepolia: { USDC: "10" } }\n');
    const started = await runAction(
      join(packageRoot, "action.yml"),
      {
        port: "0",
        seed: "github-action",
        scenarios: "faucet-limit-exceeded, \nquote-expired-on-execute",
        "data-file": dataFile,
        register: "true",
        "init-file": initFile,
        "journal-file": journalFile,
        "export-file": exportFile,
        strict: "true",
        "report-dir": reportDir,
      },
      { dir, env: { NODE_OPTIONS: "" } },
    );
    const { env, outputs } = started;
    expect(started.code, started.printed).toBe(0);
    pid = Number(outputs.pid);
    expect(alive(pid)).toBe(true);

    expect(env.CDP_SANDBOX_BASE_PATH).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/platform$/);
    expect(outputs["base-path"]).toBe(env.CDP_SANDBOX_BASE_PATH);
    expect(outputs.url).toBe(env.CDP_SANDBOX_URL);
    expect(outputs).toMatchObject({
      "api-key-id": env.CDP_API_KEY_ID,
      "api-key-secret": env.CDP_API_KEY_SECRET,
      "wallet-secret": env.CDP_WALLET_SECRET,
      "project-id": env.CDP_SANDBOX_PROJECT_ID,
    });
    expect(env).toMatchObject({ DISABLE_CDP_USAGE_TRACKING: "true", DISABLE_CDP_ERROR_REPORTING: "true" });
    expect(env.NODE_OPTIONS).toBe(`--import=file://${packageRoot}/dist/register.js`);
    // Secrets are masked in the job's log.
    expect(started.printed).toContain(`::add-mask::${env.CDP_API_KEY_SECRET}`);
    expect(started.printed).toContain(`::add-mask::${env.CDP_WALLET_SECRET}`);

    // The exported credentials work against the sandbox, its import key is the one exported, and the scenarios are on.
    const sandbox = {
      url: env.CDP_SANDBOX_URL,
      credentials: { apiKeyId: env.CDP_API_KEY_ID, apiKeySecret: env.CDP_API_KEY_SECRET, walletSecret: env.CDP_WALLET_SECRET },
    } as unknown as Sandbox;
    const account = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "from-the-action" }, wallet: true });
    expect(account.status, account.text).toBe(201);
    const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { address: account.body.address, network: "base-sepolia", token: "eth" } });
    expect(faucet.body.errorType).toBe("faucet_limit_exceeded");
    const seeded = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/Seeded");
    expect(seeded.status, seeded.text).toBe(200);
    const importKey = await call(sandbox, "GET", "/_sandbox/import-key", { anonymous: true });
    expect(env.CDP_SANDBOX_IMPORT_KEY).toBe(importKey.body.publicKeyPem);
    const scenarios = await call(sandbox, "GET", "/_sandbox/scenarios", { anonymous: true });
    expect(JSON.stringify(scenarios.body)).toContain("quote-expired-on-execute");

    // One request that breaks the contract (a name the contract's pattern refuses), which a client might log and ignore.
    const invalid = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "not a valid name!" }, wallet: true });
    expect(invalid.status).toBe(400);

    // Later steps get GITHUB_ENV: the stop action finds the sandbox from it and leaves nothing running. With strict,
    // it fails on the violation, with one error line naming it, after adding the summary to the job's page.
    const stopped = await runAction(join(packageRoot, "stop", "action.yml"), {}, { dir, env: { ...env, GITHUB_STEP_SUMMARY: stepSummary } });
    expect(stopped.code, stopped.printed).toBe(1);
    const errors = stopped.printed.split("\n").filter((l) => l.startsWith("::error title=cdp-sandbox contract violation::"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`createEvmAccount 400 invalid_request: body.name: Request body property name must match pattern`);
    expect(errors[0]).toContain(invalid.body.correlationId);
    const summary = readFileSync(stepSummary, "utf8");
    expect(summary.startsWith("## earlier steps\n## cdp-sandbox: contract coverage")).toBe(true);
    expect(summary).toContain("| Contract violations | **1** (1 distinct) |");
    expect(summary).toMatch(/\| getEvmAccountByName \| 200 ×1 \|/);
    expect(JSON.parse(readFileSync(join(reportDir, "coverage.json"), "utf8")).total.summary.violations).toBe(1);
    expect(readFileSync(join(reportDir, "junit.xml"), "utf8")).toContain('failures="1"');
    expect(stopped.printed).toContain("cdp-sandbox stopped");
    expect(alive(pid)).toBe(false);
    expect(await answers(env.CDP_SANDBOX_URL!)).toBe(false);
    expect(existsSync(dataFile)).toBe(true);
    // The journal file holds the requests of the job, and the export the seeded account.
    expect(readFileSync(journalFile, "utf8")).toContain('"operationId":"getEvmAccountByName"');
    expect(readFileSync(exportFile, "utf8")).toContain(seeded.body.address);
  }, 120_000);

  it("fails the step with the sandbox's own line when it cannot start (a busy port), exporting nothing", async () => {
    const busy = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => busy.once("listening", resolve));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const failed = await runAction(join(packageRoot, "action.yml"), { port, timeout: "30" }, { dir, env: {} });
      expect(failed.code).toBe(1);
      expect(failed.printed).toContain("already in use");
      expect(failed.printed).toContain("::error title=cdp-sandbox::cdp-sandbox exited before it answered");
      expect(failed.env).toEqual({});
      expect(failed.outputs).toEqual({});
    } finally {
      busy.close();
    }
  }, 60_000);
});
