/**
 * `cdp-sandbox run [options] -- <command> [args…]`: runs a program written
 * for the production platform against a sandbox. It starts one on a free port
 * (or joins a running one with --attach and its credentials file), then runs
 * the command with a project's credentials (CDP_API_KEY_ID, CDP_API_KEY_SECRET,
 * CDP_WALLET_SECRET), the sandbox's base path (CDP_SANDBOX_BASE_PATH), the
 * client's analytics switched off, and the register hook in NODE_OPTIONS, which
 * sends what a Node program asks of the production hosts to the sandbox.
 * It forwards SIGINT, SIGTERM and SIGHUP, exits with the command's code
 * (128+n when a signal n ended it) and stops a sandbox it started.
 *
 * Exit codes of its own: 2 for a mistake in the options or a sandbox that
 * cannot be started or reached, 126 for a command that cannot be executed,
 * 127 for one that does not exist, and with --strict 1 for a command that
 * exited 0 although its requests broke the contract (docs/ci.md). --report DIR
 * writes coverage.json, junit.xml and summary.md when the sandbox stops.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { describeViolation, type Violation } from "./admin/coverage.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "./index.js";

/** What a project hands the command. */
interface RunProject {
  basePath: string;
  projectId: string;
  apiKeyId: string;
  apiKeySecret: string;
  walletSecret: string;
}

/** The sandbox the command talks to: one this run started, or one it joined. */
interface RunSandbox {
  url: string;
  project: RunProject;
  importKeyPem: string;
  adminToken?: string;
  /** The contract violations of the run's project (of the whole sandbox when this run started it). */
  violations(): Promise<Violation[]>;
  /** Where the journal of the run can be read once the run is over, if anywhere. */
  journalAfter?: string;
  close(): Promise<void>;
}

class RunError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** Every option `run` accepts; `--help` names each one (run.test.ts holds it to that). */
export const OPTIONS = {
  attach: { type: "string" },
  "credentials-file": { type: "string" },
  "new-project": { type: "boolean" },
  "no-hook": { type: "boolean" },
  port: { type: "string" },
  host: { type: "string" },
  spec: { type: "string" },
  data: { type: "string" },
  auth: { type: "string" },
  seed: { type: "string" },
  scenario: { type: "string", multiple: true },
  "validate-responses": { type: "boolean" },
  "admin-token": { type: "string" },
  mining: { type: "string" },
  "dev-accounts": { type: "string" },
  "evm-timeout": { type: "string" },
  // State files and the journal that outlives the run (docs/state-files.md).
  init: { type: "string" },
  "export-on-exit": { type: "string" },
  journal: { type: "string" },
  // A verdict on the command (docs/ci.md): fail a run whose requests broke the contract; write reports CI reads.
  strict: { type: "boolean" },
  report: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];

const USAGE =
  "usage: cdp-sandbox run [--port 0] [--host H] [--seed S] [--scenario NAME ...] [--data FILE] [--auth MODE] [--spec FILE]\n" +
  "                       [--mining MODE] [--validate-responses] [--admin-token T] [--new-project] [--no-hook]\n" +
  "                       [--init FILE] [--export-on-exit FILE] [--journal FILE] [--strict] [--report DIR] [--dev-accounts N]\n" +
  "                       [--evm-timeout MS]\n" +
  "                       [--attach URL --credentials-file FILE] [--credentials-file FILE] -- <command> [args...]\n" +
  "       cdp-sandbox run --help\n";

/** Sandbox options before the command; the command starts at `--` or at the first word that is not an option. */
function splitCommand(argv: string[]): { options: string[]; command: string[] } {
  const takesValue = new Set(Object.entries(OPTIONS).flatMap(([name, o]) => (o.type === "string" ? [`--${name}`] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return { options: argv.slice(0, i), command: argv.slice(i + 1) };
    if (!arg.startsWith("-")) return { options: argv.slice(0, i), command: argv.slice(i) };
    if (takesValue.has(arg)) i++;
  }
  return { options: argv, command: [] };
}

/** Parses the options and runs the command; resolves with the exit code for the process. */
export async function runCommand(argv: string[]): Promise<number> {
  const say = (message: string) => process.stderr.write(`cdp-sandbox run: ${message}\n`);
  try {
    const { options, command } = splitCommand(argv);
    let values: Values;
    try {
      ({ values } = parseArgs({ args: options, options: OPTIONS, strict: true, allowPositionals: false }));
    } catch (error) {
      throw new RunError(`${(error as Error).message} (cdp-sandbox run --help lists the options)`);
    }
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (command.length === 0) throw new RunError("no command to run: give it after the options, e.g. cdp-sandbox run -- node app.mjs");
    // As every option of the sandbox's own command, these two may come from the environment (CI sets them once).
    const strict = values.strict === true || process.env.CDP_SANDBOX_STRICT === "true";
    if (!values.attach) values.report ??= process.env.CDP_SANDBOX_REPORT || undefined;
    const sandbox = values.attach ? await attach(values) : await start(values);
    return await runChild(command, sandbox, { hook: !values["no-hook"], say, strict });
  } catch (error) {
    if (error instanceof RunError) {
      say(error.message);
      return error.exitCode;
    }
    throw error;
  }
}

async function start(values: Values): Promise<RunSandbox> {
  const portText = values.port ?? "0";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RunError(`--port must be an integer from 0 to 65535, got '${portText}'`);
  const auth = values.auth ?? "verify";
  if (auth !== "verify" && auth !== "strict" && auth !== "none") throw new RunError(`--auth must be verify, strict or none, got '${auth}'`);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port,
      prepareRuntimes: true,
      // Solana's web3.js looks for the WebSocket at the port plus one: served there too, whatever port was picked.
      wsPort: "next",
      host: values.host ?? "127.0.0.1",
      spec: values.spec,
      data: values.data,
      auth,
      seed: values.seed,
      scenario: values.scenario,
      validateResponses: values["validate-responses"] ?? false,
      adminToken: values["admin-token"],
      mining: values.mining as SandboxOptions["mining"],
      devAccounts: devAccountsOf(values["dev-accounts"]),
      evmTimeoutMs: evmTimeoutOf(values["evm-timeout"]),
      init: values.init,
      exportOnExit: values["export-on-exit"],
      journal: values.journal,
      report: values.report,
      log: (message) => process.stderr.write(`cdp-sandbox: ${message}\n`),
    });
  } catch (error) {
    const e = error as Error & { code?: string };
    throw new RunError(e.code === "EADDRINUSE" ? `port ${port} is already in use; pick another with --port, or leave it out for a free one` : e.message);
  }
  const project = values["new-project"] ? await sandbox.createProject("cdp-sandbox run") : sandbox.credentials;
  const credentialsFile = values["credentials-file"];
  if (credentialsFile) {
    const { basePath, apiKeyId, apiKeySecret, walletSecret, projectId } = sandbox.credentials;
    const credentials = {
      basePath,
      apiKeyId,
      apiKeySecret,
      walletSecret,
      projectId,
      encryptionPublicKey: sandbox.importKeyPem,
      adminToken: sandbox.adminToken,
    };
    // As `cdp-sandbox --credentials-file` writes it: owner only, an earlier run's file included.
    writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    chmodSync(credentialsFile, 0o600);
  }
  return {
    url: sandbox.url,
    project,
    importKeyPem: sandbox.importKeyPem,
    adminToken: sandbox.adminToken,
    violations: async () => sandbox.violations(),
    journalAfter: values.journal ?? (values.report ? `the report in ${values.report}` : undefined),
    close: () => sandbox.close(),
  };
}

/** `--dev-accounts N` as a number; anything but digits is refused here, with the flag's name. */
function devAccountsOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text)) throw new RunError(`--dev-accounts must be a whole number from 0 to 100, got '${text}'`);
  return Number(text);
}

/** `--evm-timeout MS` as a number, as the command reads it. */
function evmTimeoutOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new RunError(`--evm-timeout must be a whole number of milliseconds (0: no limit), got '${text}'`);
  return Number(text);
}

/** Joins the sandbox at --attach: it must answer its health check; the project comes from --credentials-file or is made anew. */
async function attach(values: Values): Promise<RunSandbox> {
  for (const local of [
    "port",
    "host",
    "spec",
    "data",
    "auth",
    "seed",
    "scenario",
    "validate-responses",
    "mining",
    "dev-accounts",
    "evm-timeout",
    "init",
    "export-on-exit",
    "journal",
    "report",
  ] as const) {
    if (values[local] !== undefined) throw new RunError(`--${local} configures a sandbox this run starts; it cannot change the one at --attach`);
  }
  let url: string;
  try {
    const parsed = new URL(values.attach!);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
    url = parsed.origin;
  } catch {
    throw new RunError(`--attach takes the sandbox's URL (e.g. http://127.0.0.1:8080), got '${values.attach}'`);
  }
  let saved: Partial<RunProject> & { adminToken?: string; encryptionPublicKey?: string } = {};
  const file = values["credentials-file"];
  if (file) {
    try {
      saved = JSON.parse(readFileSync(file, "utf8")) as typeof saved;
    } catch (error) {
      throw new RunError(`cannot read the credentials file ${file}: ${(error as Error).message}`);
    }
  } else if (!values["new-project"]) {
    throw new RunError("--attach needs the sandbox's --credentials-file (written by cdp-sandbox --credentials-file FILE), or --new-project");
  }
  const adminToken = values["admin-token"] ?? saved.adminToken;
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${url}/_sandbox${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...(adminToken ? { "x-sandbox-admin-token": adminToken } : {}) },
      signal: AbortSignal.timeout(5000),
    });
  try {
    const health = await admin("/health");
    if (!health.ok) throw new Error(`its health check answered ${health.status}`);
  } catch (error) {
    throw new RunError(`no sandbox answers at ${url} (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message})`);
  }
  const json = async (path: string, init?: RequestInit) => {
    const res = await admin(path, init);
    if (!res.ok) throw new RunError(`${init?.method ?? "GET"} ${url}/_sandbox${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return res.json() as Promise<Record<string, string>>;
  };
  let project: RunProject;
  if (values["new-project"])
    project = (await json("/projects", { method: "POST", body: JSON.stringify({ name: "cdp-sandbox run" }) })) as unknown as RunProject;
  else {
    const missing = (["apiKeyId", "apiKeySecret", "walletSecret", "projectId"] as const).filter((k) => typeof saved[k] !== "string");
    if (missing.length > 0) throw new RunError(`the credentials file ${file} has no ${missing.join(", ")}`);
    project = saved as RunProject;
  }
  const importKeyPem = saved.encryptionPublicKey ?? (await json("/import-key")).publicKeyPem!;
  // The sandbox is shared: the verdict is on this run's project only.
  const violations = async () => {
    const res = await fetch(`${url}/_sandbox/coverage`, {
      headers: { "x-sandbox-project": project.projectId, ...(adminToken ? { "x-sandbox-admin-token": adminToken } : {}) },
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new RunError(`GET ${url}/_sandbox/coverage answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return ((await res.json()) as { total: { violations: Violation[] } }).total.violations;
  };
  return {
    url,
    project: { ...project, basePath: `${url}/platform` },
    importKeyPem,
    adminToken,
    violations,
    journalAfter: `GET ${url}/_sandbox/requests`,
    close: async () => undefined,
  };
}

/** The environment the command runs with: the caller's, plus the project, the sandbox and the hook. */
function childEnv(sandbox: RunSandbox, hook: boolean): NodeJS.ProcessEnv {
  const { project } = sandbox;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CDP_API_KEY_ID: project.apiKeyId,
    CDP_API_KEY_SECRET: project.apiKeySecret,
    CDP_WALLET_SECRET: project.walletSecret,
    CDP_SANDBOX_URL: sandbox.url,
    CDP_SANDBOX_BASE_PATH: project.basePath,
    CDP_SANDBOX_PROJECT_ID: project.projectId,
    CDP_SANDBOX_IMPORT_KEY: sandbox.importKeyPem,
    DISABLE_CDP_USAGE_TRACKING: "true",
    DISABLE_CDP_ERROR_REPORTING: "true",
  };
  if (sandbox.adminToken) env.CDP_SANDBOX_ADMIN_TOKEN = sandbox.adminToken;
  const register = fileURLToPath(new URL("./register.js", import.meta.url));
  if (hook && existsSync(register)) env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(register).href}`.trim();
  return env;
}

async function runChild(command: string[], sandbox: RunSandbox, o: { hook: boolean; say: (message: string) => void; strict: boolean }): Promise<number> {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { stdio: "inherit", env: childEnv(sandbox, o.hook) });
  // Once the command runs (a command that does not exist gets its one line, and no other).
  child.once("spawn", () =>
    process.stderr.write(`cdp-sandbox: the journal of this run: GET ${sandbox.url}/_sandbox/requests (dashboard: ${sandbox.url}/_sandbox/ui/)\n`),
  );
  const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
  const forwarded = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of forwarded) process.on(signal, handler);
  const code = await new Promise<number>((resolve) => {
    child.once("error", (error: Error & { code?: string }) => {
      if (error.code === "ENOENT") o.say(`command not found: ${file}`);
      else o.say(`cannot run ${file}: ${error.message}`);
      resolve(error.code === "ENOENT" ? 127 : 126);
    });
    child.once("exit", (exitCode, signal) => {
      if (signal) {
        const number = constants.signals[signal] ?? 0;
        o.say(`${file} was ended by ${signal} (exit code ${128 + number})`);
        resolve(128 + number);
      } else resolve(exitCode ?? 1);
    });
  });
  for (const [signal, handler] of forwarded) process.off(signal, handler);
  // The verdict: a command that passed fails when its requests broke the contract (drawn before the sandbox stops).
  const violations = o.strict && code === 0 ? await sandbox.violations() : [];
  // A sandbox that does not close within a few seconds still must not keep the command's result waiting.
  await Promise.race([sandbox.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
  if (violations.length === 0) return code;
  const total = violations.reduce((n, v) => n + v.count, 0);
  o.say(`--strict: ${file} exited 0, but ${total} request(s) broke the platform's contract (${violations.length} distinct):`);
  for (const v of violations) o.say(`  violation: ${describeViolation(v)}`);
  o.say(
    sandbox.journalAfter
      ? `the requests are in ${sandbox.journalAfter}, under the correlation ids above`
      : "keep the requests with --journal FILE (or --report DIR) to look them up by correlation id",
  );
  return 1;
}
