/**
 * The code samples of the README and docs/ run here, as a reader would run them: TypeScript and JavaScript as
 * programs (the package imported by its name, from the built dist/), shell commands with the built command, state
 * files through --init, and example bodies compared with what the sandbox answers. Every fenced block of every page
 * is listed below, keyed by its page and first line: with the way it runs, or with why it does not (a diagram, a
 * workflow for GitHub's runners, another language's client), so a new or changed sample fails here until it
 * runs or says why not.
 */
import { spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, startNode } from "#test/helpers/cli.js";
import { type Receiver, startReceiver } from "#test/helpers/receiver.js";
import { call } from "#test/helpers/sandbox.js";
import { flush, subscribe } from "#test/helpers/webhooks.js";
import { packageRoot } from "../../src/paths.js";

interface Sample {
  page: string;
  line: number;
  lang: string;
  code: string;
}

/** Every fenced block of README.md and docs/*.md. */
function samplesOf(): Sample[] {
  const pages = [
    "README.md",
    ...readdirSync(join(packageRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const samples: Sample[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(packageRoot, page), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\w*)\s*$/.exec(lines[i]!);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
      samples.push({ page, line: i + 1, lang: open[1]!, code: lines.slice(i + 1, end).join("\n") });
      i = end;
    }
  }
  return samples;
}

/** Pages whose blocks are all drawings (the layers and folders), whatever their first lines. */
const DRAWINGS = new Set(["docs/architecture.md"]);
const keyOf = (s: Sample) => (DRAWINGS.has(s.page) ? s.page : `${s.page}: ${s.code.split("\n")[0]!.trim()}`);
const samples = samplesOf();
const sampleAt = (key: string) => samples.find((s) => keyOf(s) === key)!.code;

let sandbox: Sandbox;
let receiver: Receiver;
const workRoot = join(packageRoot, "test-results", "doc-samples");
let folders = 0;

/**
 * A fresh folder inside the package, so that a sample's imports resolve as in a user's project: the dependencies
 * from the package's node_modules, and `cdp-sandbox` itself through a link to the package (its dist/).
 */
function workFolder(files: Record<string, string> = {}): string {
  const dir = join(workRoot, `${process.pid}-${++folders}`);
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(packageRoot, join(dir, "node_modules", "cdp-sandbox"), "dir");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const toJs = (code: string) =>
  ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false } }).outputText;

/** Runs a program with node in `dir` and expects it to exit 0 on its own. */
async function runProgram(dir: string, code: string): Promise<void> {
  writeFileSync(join(dir, "sample.mjs"), code);
  const { code: exit, stdout, stderr } = await startNode([join(dir, "sample.mjs")], { cwd: dir, timeoutMs: 120_000 }).finished;
  expect(exit, `${stdout}\n${stderr}`).toBe(0);
}

/**
 * Runs a shell script in `dir`. Never spawnSync: the sandbox the script talks to answers from this process, whose
 * event loop must keep running.
 */
function runBash(dir: string, args: string[], timeoutMs = 120_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`bash ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The environment the official client and the register hook read. */
const clientEnv = () => ({
  CDP_API_KEY_ID: sandbox.credentials.apiKeyId,
  CDP_API_KEY_SECRET: sandbox.credentials.apiKeySecret,
  CDP_WALLET_SECRET: sandbox.credentials.walletSecret,
  CDP_SANDBOX_BASE_PATH: sandbox.basePath,
});

/** A shell command line of a page run with the built command in place of `cdp-sandbox` / `npx cdp-sandbox`. */
async function runCommandLine(dir: string, line: string): Promise<void> {
  const words = line.replace(/#.*$/, "").trim().split(/\s+/);
  const start = words[0] === "npx" ? 2 : 1;
  const args = words.slice(start);
  if (args[0] === "run") {
    const { code, stdout, stderr } = await startNode([cliPath, ...args], { cwd: dir, timeoutMs: 120_000 }).finished;
    expect(code, `${line}\n${stdout}\n${stderr}`).toBe(0);
    return;
  }
  // A sandbox that serves until stopped: it must come up, then stop cleanly.
  const running = startNode([cliPath, ...args, "--port", "0"], { cwd: dir, timeoutMs: 120_000 });
  await running.waitFor(/cdp-sandbox ready /);
  running.child.kill("SIGTERM");
  const done = await running.finished;
  expect(done.code, `${line}: signal ${done.signal}\n${done.stdout}\n${done.stderr}`).toBe(0);
}

const stateYaml = () => sampleAt("docs/state-files.md: # yaml-language-server: $schema=node_modules/cdp-sandbox/schemas/state-file.schema.json");
const e2eYaml = () => sampleAt("docs/test-recipes.md: # e2e.yaml");
/** A package.json whose `npm test` stands for the reader's own suite. */
const packageWithTest = (test: string) => JSON.stringify({ name: "reader-app", private: true, type: "module", scripts: { test } });

/** A program of the reader's: creates an account through the official client, configured from the environment. */
const APP = `import { CdpClient } from "@coinbase/cdp-sdk";
const cdp = new CdpClient();
const account = await cdp.evm.createAccount();
if (!/^0x[0-9a-fA-F]{40}$/.test(account.address)) throw new Error("no account");
console.log(account.address);
`;

/** The same, as a test suite passes the sandbox it started in a global setup: its base path from the environment. */
const APP_WITH_BASE_PATH = APP.replace("new CdpClient()", "new CdpClient({ basePath: process.env.CDP_SANDBOX_BASE_PATH })");

type Run = () => Promise<void>;

/**
 * The programs a shell sample calls beyond bash and node. One missing on a developer's machine skips that sample
 * and names what to install; with CI=true it fails instead, as a missing browser does (test/globalSetup.ts).
 */
const TOOLS: Record<string, string[]> = {
  "docs/other-languages.md: BASE=http://127.0.0.1:8080                  # the sandbox's origin": ["openssl", "xxd", "curl"],
  "docs/test-recipes.md: # what failed, and why": ["jq"],
};
const missingTools = (key: string) => (TOOLS[key] ?? []).filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);

/** How each sample runs, or (a string) why it does not run here. */
const SAMPLES: Record<string, Run | string> = {
  "README.md: npm ci      # install (also builds the sandbox)": "the project's own install, start and suite: .ci/run runs them on a clean checkout",
  "README.md: cdp-sandbox ready basePath=http://127.0.0.1:8080/platform projectId=… apiKeyId=… apiKeySecret=… walletSecret=… clientApiKey=… mining=auto dashboard=http://127.0.0.1:8080/_sandbox/ui/":
    async () => {
      const running = startNode([cliPath, "--port", "0"], { timeoutMs: 120_000 });
      const [line] = await running.waitFor(/cdp-sandbox ready .*/);
      running.child.kill("SIGTERM");
      await running.finished;
      const keys = (text: string) => [...text.matchAll(/ (\w+)=/g)].map((m) => m[1]);
      expect(keys(line)).toEqual(
        keys(
          sampleAt(
            "README.md: cdp-sandbox ready basePath=http://127.0.0.1:8080/platform projectId=… apiKeyId=… apiKeySecret=… walletSecret=… clientApiKey=… mining=auto dashboard=http://127.0.0.1:8080/_sandbox/ui/",
          ),
        ),
      );
    },
  'README.md: import { CdpClient } from "@coinbase/cdp-sdk";': async () => {
    const { apiKeyId, apiKeySecret, walletSecret } = sandbox.credentials;
    const code = sampleAt('README.md: import { CdpClient } from "@coinbase/cdp-sdk";')
      .replace(
        'apiKeyId: "…", apiKeySecret: "…", walletSecret: "…"',
        `apiKeyId: ${JSON.stringify(apiKeyId)}, apiKeySecret: ${JSON.stringify(apiKeySecret)}, walletSecret: ${JSON.stringify(walletSecret)}`,
      )
      .replace('"http://127.0.0.1:8080/platform"', JSON.stringify(sandbox.basePath));
    await runProgram(
      workFolder(),
      `${toJs(code)}\nconst account = await cdp.evm.createAccount();\nif (!account.address.startsWith("0x")) throw new Error("no account");\n`,
    );
  },
  'README.md: import { startSandbox } from "cdp-sandbox";': async () => {
    await runProgram(workFolder(), toJs(sampleAt('README.md: import { startSandbox } from "cdp-sandbox";')));
  },
  "README.md: npm run lint       # Biome formatter and linter, plus the layer check": "the project's own checks: .ci/run runs each of them",
  "docs/architecture.md": "drawings of the layers and the source folders",
  'docs/authentication.md: import { createHash, randomUUID, sign } from "node:crypto";':
    "a fragment: method, uri, bodyText and privateKey are those of the request being signed; test/core/request-signing.test.ts signs requests this way with node:crypto alone",
  'docs/client-rpc.md: import { setOnchainKitConfig } from "@coinbase/onchainkit";': async () => {
    const code = `import { startSandbox } from "cdp-sandbox";\nconst sandbox = await startSandbox();\n${sampleAt('docs/client-rpc.md: import { setOnchainKitConfig } from "@coinbase/onchainkit";')}
const tokens = await getTokens({ search: "USDC" });
if (!Array.isArray(tokens) || tokens.length === 0) throw new Error(\`getTokens: \${JSON.stringify(tokens)}\`);
await sandbox.close();
`;
    await runProgram(workFolder(), toJs(code));
  },
  "docs/disbursements.md: create ──▶ pending ──lands on the sandbox clock──▶ succeeded | failed": "a state diagram",
  "docs/payment-sessions.md: created ──authorize──▶ authorization_pending ──lands──▶ authorization_succeeded | authorization_failed": "a state diagram",
  "docs/embedded-wallets.md: // @coinbase/cdp-core":
    "runs in a browser page (the embedded-wallet client needs window and localStorage): test/ui/embedded-wallet-app.test.ts initializes the kit against the sandbox in Chromium",
  "docs/embedded-wallets.md: GET /_sandbox/messages?to=ada@example.com": async () => {
    const res = await call(sandbox, "GET", "/_sandbox/messages?to=ada@example.com", { anonymous: true });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.messages)).toBe(true);
  },
  'docs/embedded-wallets.md: <CDPReactProvider config={{ projectId, basePath: "http://127.0.0.1:8080/platform",':
    "JSX in a React app: test/ui/export-key-app.test.ts renders this provider, secure iframe included, in Chromium",
  'docs/errors.md: { "errorType": "invalid_request", "errorMessage": "body.name: …must match pattern…",': async () => {
    const shown = JSON.parse(sampleAt('docs/errors.md: { "errorType": "invalid_request", "errorMessage": "body.name: …must match pattern…",')) as Record<
      string,
      string
    >;
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "a!" }, wallet: true });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(shown).sort());
    expect(res.body.errorType).toBe(shown.errorType);
    expect(res.body.errorLink).toBe(shown.errorLink);
    expect(res.body.errorMessage).toMatch(/^body\.name: .*must match pattern/);
    expect(res.body.correlationId).toMatch(/-SBX$/);
  },
  "docs/github-action.md: jobs:": "a GitHub Actions workflow, run by GitHub's runners: test/core/action.test.ts runs action.yml's steps here",
  "docs/test-recipes.md: - uses: OWNER/cdp-sandbox@REF": "GitHub Actions steps, run by GitHub's runners: test/core/action.test.ts runs action.yml's steps here",
  "docs/hardening.md: npm run build": "long runs (30 to 50 minutes; the soak 10): test/fuzz/fuzz.test.ts runs the same fuzzer briefly",
  'docs/in-process.md: import { CdpClient } from "@coinbase/cdp-sdk";': async () => {
    const dir = workFolder({
      "suite.test.ts": `import { afterAll, beforeAll, expect, it } from "vitest";\n${sampleAt('docs/in-process.md: import { CdpClient } from "@coinbase/cdp-sdk";')}`,
      "vitest.config.mjs": "export default { test: { include: ['suite.test.ts'] } };\n",
    });
    const { code, stdout, stderr } = await startNode([join(packageRoot, "node_modules", "vitest", "vitest.mjs"), "run", "--root", dir], {
      cwd: dir,
      timeoutMs: 180_000,
    }).finished;
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/1 passed/);
  },
  "docs/ci.md: npx cdp-sandbox run --strict --report reports --journal reports/journal.jsonl -- npm test":
    "runs a project's own suite: test/interop/run-strict.test.ts runs the built command's run --strict --report --journal around a program",
  "docs/ci.md: // vitest.global-setup.ts": async () => {
    const dir = workFolder({
      "vitest.global-setup.ts": sampleAt("docs/ci.md: // vitest.global-setup.ts"),
      "suite.test.ts": `import { expect, inject, it } from "vitest";
it("calls a route the contract does not have", async () => {
  const { basePath } = inject("cdpSandbox" as never) as { basePath: string };
  expect((await fetch(\`\${basePath}/v2/no-such-route\`)).status).toBe(404);
});
`,
      "vitest.config.mjs": "export default { test: { include: ['suite.test.ts'], globalSetup: ['vitest.global-setup.ts'] } };\n",
    });
    const { code, stdout, stderr } = await startNode([join(packageRoot, "node_modules", "vitest", "vitest.mjs"), "run", "--root", dir], {
      cwd: dir,
      timeoutMs: 180_000,
    }).finished;
    // The test passes, yet the run fails: the teardown names the violation and sets the exit code.
    expect(stdout).toMatch(/1 passed/);
    expect(code, `${stdout}\n${stderr}`).toBe(1);
    expect(`${stdout}${stderr}`).toContain("/v2/no-such-route");
    expect(readFileSync(join(dir, "reports", "cdp-sandbox", "summary.md"), "utf8")).toMatch(/violation/i);
  },
  "docs/ci.md: - uses: OWNER/cdp-sandbox@REF          # this repository, at a tag or commit":
    "GitHub Actions steps, run by GitHub's runners: test/core/action.test.ts runs action.yml's steps, strict and report-dir included",
  "docs/ci.md: contract-tests:": "a GitLab CI job, run by GitLab's runners: it runs the same command as the run --strict sample",
  "docs/ci.md: ## cdp-sandbox: contract coverage":
    "an example of summary.md with made-up counts: test/interop/run-strict.test.ts checks the summary a run writes",
  "docs/mcp.md: {": async () => {
    const config = JSON.parse(sampleAt("docs/mcp.md: {")) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const server = config.mcpServers["cdp-sandbox"]!;
    expect([server.command, ...server.args].slice(0, 3)).toEqual(["npx", "cdp-sandbox", "mcp"]);
  },
  'docs/testing-front-ends.md: import { createTestClient, http, parseEther } from "viem";': async () => {
    const code = `import { startSandbox } from "cdp-sandbox";
import { createPublicClient } from "viem";
const sandbox = await startSandbox();
const { clientApiKey } = sandbox.credentials;
const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
${sampleAt('docs/testing-front-ends.md: import { createTestClient, http, parseEther } from "viem";')}
const read = createPublicClient({ chain: baseSepolia, transport: http(\`\${sandbox.url}/rpc/v1/base-sepolia/\${clientApiKey}\`) });
const balance = await read.getBalance({ address });
if (balance !== parseEther("10")) throw new Error(\`balance \${balance}\`);
await sandbox.close();
`;
    await runProgram(workFolder(), toJs(code));
  },
  'docs/testing-front-ends.md: import { signInPage, signInEndUser, readCode } from "cdp-sandbox/testing";':
    "a Playwright suite's page: test/ui/embedded-wallet-app.test.ts starts the cdp-react app signed in with signInPage in Chromium",
  'docs/testing-front-ends.md: import { createConfig, http } from "wagmi";':
    "a wagmi app's configuration, run in a browser: test/ui/swap-app.test.ts settles OnchainKit's Swap with this mock connector in Chromium",
  "docs/webhooks.md: cdp-sandbox trigger onramp.transaction.success --url http://127.0.0.1:8080   # a running sandbox (admin token off loopback)":
    "needs a sandbox already running at that URL: test/tools/trigger.test.ts runs the built command's trigger --url against one, and every event type in process",
  "docs/other-languages.md: import os": "Python: the platform's Python client is not an npm package, so it is not installed here",
  "docs/other-languages.md: client, err := cdp.NewClient(cdp.ClientOptions{": "Go: the platform's Go client is not an npm package, so it is not installed here",
  "docs/other-languages.md: BASE=http://127.0.0.1:8080                  # the sandbox's origin": async () => {
    const { apiKeyId, apiKeySecret } = sandbox.credentials;
    const script = sampleAt("docs/other-languages.md: BASE=http://127.0.0.1:8080                  # the sandbox's origin")
      .replace("BASE=http://127.0.0.1:8080", `BASE=${sandbox.url}`)
      .replace("KEY_ID=…; KEY_SECRET=…", `KEY_ID='${apiKeyId}'; KEY_SECRET='${apiKeySecret}'`);
    const dir = workFolder({ "sample.sh": script });
    const done = await runBash(dir, ["-euo", "pipefail", "sample.sh"]);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).not.toContain("errorType");
    expect(done.stdout).toContain('"accounts"');
    expect(done.stdout).toContain('"transactionHash"');
  },
  "docs/register.md: export CDP_SANDBOX_BASE_PATH=http://127.0.0.1:8080/platform  # the sandbox": async () => {
    const env = clientEnv();
    const script = sampleAt("docs/register.md: export CDP_SANDBOX_BASE_PATH=http://127.0.0.1:8080/platform  # the sandbox")
      .replace("http://127.0.0.1:8080/platform", env.CDP_SANDBOX_BASE_PATH)
      .replace(
        "CDP_API_KEY_ID=… CDP_API_KEY_SECRET=… CDP_WALLET_SECRET=…",
        `CDP_API_KEY_ID='${env.CDP_API_KEY_ID}' CDP_API_KEY_SECRET='${env.CDP_API_KEY_SECRET}' CDP_WALLET_SECRET='${env.CDP_WALLET_SECRET}'`,
      )
      .replace(/^node /m, `'${process.execPath}' `);
    const dir = workFolder({ "app.mjs": APP, "sample.sh": script });
    const done = await runBash(dir, ["-eu", "sample.sh"]);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^0x[0-9a-fA-F]{40}$/m);
  },
  "docs/run.md: npx cdp-sandbox run -- node app.mjs          # a sandbox on a free port for this one command": async () => {
    const dir = workFolder({ "app.mjs": APP, "package.json": packageWithTest("node app.mjs") });
    for (const line of sampleAt("docs/run.md: npx cdp-sandbox run -- node app.mjs          # a sandbox on a free port for this one command").split("\n")) {
      await runCommandLine(dir, line);
    }
  },
  'docs/scenarios.md: const transaction = serializeTransaction({ to, value: 1000n, chainId: 84532, type: "eip1559" });':
    "a fragment (the body of a function): test/scenarios/after-commit-sends.test.ts sends through the official client under these faults",
  "docs/state-files.md: # yaml-language-server: $schema=node_modules/cdp-sandbox/schemas/state-file.schema.json": async () => {
    const seeded = await startSandbox({ init: parse(stateYaml()) });
    try {
      const res = await call(seeded, "GET", "/platform/v2/evm/accounts/by-name/Funded");
      expect(res.status).toBe(200);
    } finally {
      await seeded.close();
    }
  },
  "docs/state-files.md: cdp-sandbox --init state.yaml": async () => {
    const dir = workFolder({ "state.yaml": stateYaml(), "package.json": packageWithTest('node -e ""') });
    for (const line of sampleAt("docs/state-files.md: cdp-sandbox --init state.yaml").split("\n")) await runCommandLine(dir, line);
  },
  'docs/state-files.md: const sandbox = await startSandbox({ init: "state.yaml" });            // a file': async () => {
    const code = `import { startSandbox } from "cdp-sandbox";\n${sampleAt('docs/state-files.md: const sandbox = await startSandbox({ init: "state.yaml" });            // a file')}\nawait other.close();\nawait sandbox.close();\n`;
    await runProgram(workFolder({ "state.yaml": stateYaml() }), toJs(code));
  },
  "docs/state-files.md: projects:": async () => {
    // The sample's elided keys, filled with keys of the kinds it names.
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const wallet = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "der" }).toString("base64");
    const apiKeyId = "organizations/5b2a8b9e-2c4d-4f6a-9b1c-3d5e7f9a1b2c/apiKeys/0f1e2d3c-4b5a-4968-8776-655443322110";
    const text = sampleAt("docs/state-files.md: projects:")
      .replace("apiKeyId: organizations/…/apiKeys/…", `apiKeyId: ${apiKeyId}`)
      .replace('"-----BEGIN PRIVATE KEY-----…"', JSON.stringify(privateKey.export({ type: "pkcs8", format: "pem" })))
      .replace("MIGHAgEAMBMGByqGSM49AgEG…", wallet);
    const seeded = await startSandbox({ init: parse(text) });
    try {
      const res = await call(seeded, "GET", "/_sandbox/projects", { anonymous: true });
      expect(JSON.stringify(res.body)).toContain("payments-tests");
    } finally {
      await seeded.close();
    }
  },
  'docs/state-files.md: cdp-sandbox: state.yaml: $.evmAccounts[0].balances.base-sepolia.ETH: expected string (Decimal token units, e.g. "0.1"), got 0.1':
    "messages of broken files: test/core/state-files.test.ts makes each of them",
  "docs/state-files.md: {": "the shape of an export, abbreviated with …: test/core/state-roundtrip.test.ts exports and reads back whole states",
  'docs/state-files.md: {"sequence":12,"correlationId":"…-SBX","time":"…","method":"POST","path":"/platform/v2/evm/accounts","operationId":"createEvmAccount","status":201,"durationMs":3.1,"request":{"headers":{"authorization":"Bearer eyJ….eyJ….<signature removed>"},"query":"","body":"{\\"name\\":\\"a\\"}"},"response":{"status":201,"headers":{…},"body":"{…}"}}':
    "one journal line, abbreviated with …: test/core/cli-state.test.ts reads the journal file's lines",
  "docs/test-recipes.md: # e2e.yaml": async () => {
    const seeded = await startSandbox({ init: parse(e2eYaml()) });
    try {
      expect((await call(seeded, "GET", "/platform/v2/evm/smart-accounts/by-name/E2ESmartAccount2")).status).toBe(200);
    } finally {
      await seeded.close();
    }
  },
  "docs/test-recipes.md: cdp-sandbox run --init e2e.yaml --journal e2e-journal.jsonl -- npx vitest run e2e": async () => {
    // The reader's e2e suite stands in as one program that uses the sandbox through the official client.
    const dir = workFolder({ "e2e.yaml": e2eYaml(), "app.mjs": APP });
    const line = sampleAt("docs/test-recipes.md: cdp-sandbox run --init e2e.yaml --journal e2e-journal.jsonl -- npx vitest run e2e");
    await runCommandLine(dir, line.replace("npx vitest run e2e", "node app.mjs"));
    expect(readFileSync(join(dir, "e2e-journal.jsonl"), "utf8")).toContain('"operationId":"createEvmAccount"');
  },
  "docs/test-recipes.md: // vitest.global-setup.ts": async () => {
    // The global setup and the config that names it, a state file, and one test of the reader's; no test-results/ yet.
    const dir = workFolder({
      "vitest.global-setup.ts": sampleAt("docs/test-recipes.md: // vitest.global-setup.ts"),
      "vitest.config.ts": sampleAt("docs/test-recipes.md: // vitest.config.ts"),
      "test/state.yaml": e2eYaml(),
      "app.test.ts": `import { expect, it } from "vitest";\nit("creates an account", async () => {\n  const { execFileSync } = await import("node:child_process");\n  expect(execFileSync(process.execPath, ["app.mjs"], { encoding: "utf8" })).toMatch(/^0x/);\n}, 120_000);\n`,
      "app.mjs": APP_WITH_BASE_PATH,
    });
    const { code, stdout, stderr } = await startNode([join(packageRoot, "node_modules", "vitest", "vitest.mjs"), "run", "--root", dir], {
      cwd: dir,
      timeoutMs: 180_000,
    }).finished;
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(readFileSync(join(dir, "test-results", "journal.jsonl"), "utf8")).toContain('"operationId":"createEvmAccount"');
  },
  "docs/test-recipes.md: // vitest.config.ts": "run with the global setup above",
  "docs/test-recipes.md: # what failed, and why": async () => {
    const journal = join(workFolder(), "journal.jsonl");
    const journaled = await startSandbox({ journal });
    try {
      expect((await call(journaled, "POST", "/platform/v2/evm/accounts", { body: { name: "a!" }, wallet: true })).status).toBe(400);
    } finally {
      await journaled.close();
    }
    for (const line of sampleAt("docs/test-recipes.md: # what failed, and why")
      .split("\n")
      .filter((l) => l.startsWith("jq "))) {
      const done = await runBash(join(journal, ".."), ["-c", line]);
      expect(done.status, `${line}\n${done.stderr}`).toBe(0);
      if (line.includes("status >= 400")) expect(done.stdout).toContain('"errorType":"invalid_request"');
    }
  },
  'docs/webhooks.md: import { createHmac, timingSafeEqual } from "node:crypto";': async () => {
    const dir = workFolder();
    writeFileSync(
      join(dir, "verify.mjs"),
      `${toJs(sampleAt('docs/webhooks.md: import { createHmac, timingSafeEqual } from "node:crypto";'))}\nexport { verify };\n`,
    );
    const { verify } = (await import(join(dir, "verify.mjs"))) as { verify: (body: string, headers: Record<string, string>, secret: string) => boolean };
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.created"]);
    const sent = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-1" } } });
    expect(sent.status).toBeLessThan(300);
    await flush(sandbox);
    const [delivery] = receiver.received(sub.path);
    const headers = Object.fromEntries(Object.entries(delivery!.headers).map(([k, v]) => [k, String(v)]));
    expect(verify(delivery!.rawBody, headers, sub.secret)).toBe(true);
    expect(verify(`${delivery!.rawBody} `, headers, sub.secret)).toBe(false);
  },
};

beforeAll(async () => {
  await ensureBuilt();
  rmSync(workRoot, { recursive: true, force: true });
  [sandbox, receiver] = await Promise.all([startSandbox({ seed: "doc-samples" }), startReceiver()]);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await receiver?.close();
  await sandbox?.close();
  if (existsSync(workRoot)) rmSync(workRoot, { recursive: true, force: true });
});

describe("the samples of the README and docs/", () => {
  it("are each run below, or say why they cannot be", () => {
    const keys = samples.map(keyOf);
    expect(
      keys.filter((k) => !(k in SAMPLES)),
      "samples with no entry",
    ).toEqual([]);
    expect(
      Object.keys(SAMPLES).filter((k) => !keys.includes(k)),
      "entries no sample has",
    ).toEqual([]);
  });

  const runs = Object.entries(SAMPLES).filter((e): e is [string, Run] => typeof e[1] === "function");
  it.for(runs)("%s", { timeout: 240_000 }, async ([key, run], context) => {
    const missing = missingTools(key);
    if (missing.length > 0) {
      const how = `needs ${missing.join(", ")}: apt-get install ${missing.join(" ")}`;
      if (process.env.CI === "true" || process.env.CI === "1") throw new Error(`CI=true and this sample cannot run: ${how}`);
      context.skip(how);
    }
    await run();
  });
});

describe("figures and lists the docs state", () => {
  const contract = parse(readFileSync(join(packageRoot, "openapi.yaml"), "utf8"), { maxAliasCount: -1 }) as {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
  };
  const operations = Object.values(contract.paths).flatMap((item) => Object.values(item).filter((op) => typeof op === "object" && op?.operationId));
  const page = (name: string) => readFileSync(join(packageRoot, name), "utf8").replace(/\s+/g, " ");

  it("count the contract's operations as openapi.yaml has them", () => {
    expect(/Every operation of `openapi\.yaml` \((\d+):/.exec(page("README.md"))?.[1]).toBe(String(operations.length));
    expect(/every one of the (\d+) \(/.exec(page("docs/stateful.md"))?.[1]).toBe(String(operations.length));
  });

  it("name every area (tag) of the contract in docs/contract.md", () => {
    const tags = [...new Set(operations.flatMap((op) => op.tags ?? []))];
    const text = page("docs/contract.md");
    expect(tags.filter((tag) => !text.includes(tag.replace(/^x402 /, "the x402 ")))).toEqual([]);
  });
});
