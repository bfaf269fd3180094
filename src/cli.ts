#!/usr/bin/env node
/**
 * `cdp-sandbox` / `npm start`: starts the sandbox and prints one line with the
 * base path, the default project's credentials and the mining mode (the import
 * key is served at GET /_sandbox/import-key and written to --credentials-file).
 * Flags (each also as an environment variable CDP_SANDBOX_<FLAG>):
 *   --port N (0 = any free port; default 8080)  --host H (default 127.0.0.1)
 *   --ws-port N (the node's WebSockets also on N; default port + 1 when free, as Solana's clients look there; 0 = none)
 *   --spec FILE  --data FILE  --auth verify|strict|none  --credentials-file FILE
 *   --seed S  --validate-responses  --scenario NAME_OR_FILE (repeatable)  --mining auto|interval
 *   --admin-token T (required by /_sandbox; made up and printed when the host is not loopback)
 *   --accept-unknown-keys  --allow-private-webhook-targets  --open-sign-in-pages (off loopback, each is refused
 *   unless given; the ready line then lists them as optIns=…)
 *   --init FILE (seed state: docs/state-files.md)  --export-on-exit FILE  --journal FILE (JSON Lines)
 *   --strict (stopping exits 1 when a request broke the contract)  --report DIR (coverage reports: docs/ci.md)
 *   --dev-accounts N (keys the node holds: docs/testing-front-ends.md)  --allow-test-methods (off loopback, the
 *   node's anvil_/evm_ methods without the admin token; listed under optIns=…)
 *   --evm-timeout MS (the node's read-only EVM work per request: eth_call, eth_estimateGas…; default 400, 0 = none)
 * A scenario file that does not check out stops the start with exit code 2.
 * `cdp-sandbox run [options] -- <command> [args…]` runs a command against a sandbox (src/run.ts).
 * `cdp-sandbox mcp` serves the sandbox to a coding assistant over MCP (src/tools/mcp.ts); `trigger` runs the flow
 * behind a webhook event and `listen` forwards a project's webhooks to a local endpoint (src/tools/).
 */
import "./cli-early.js"; // first: starts work that runs while the rest loads
import { chmodSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { isLoopbackHost } from "./admin/guard.js";
import { ContractViolationError, startSandbox } from "./index.js";
import { MAX_DEV_ACCOUNTS } from "./node/evm/devAccounts.js";
import { runCommand } from "./run.js";

function env(name: string): string | undefined {
  return process.env[`CDP_SANDBOX_${name.toUpperCase().replace(/-/g, "_")}`];
}

function fail(message: string): never {
  process.stderr.write(`cdp-sandbox: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  // `cdp-sandbox run [options] -- <command>`: a sandbox for one command (src/run.ts).
  if (process.argv[2] === "run") return process.exit(await runCommand(process.argv.slice(3)));
  // `cdp-sandbox mcp`: tools for a coding assistant, over stdio (src/tools/mcp.ts).
  // Loaded on demand: the MCP SDK costs the plain start nothing.
  if (process.argv[2] === "mcp") return process.exit(await (await import("./tools/mcp.js")).runMcp(process.argv.slice(3)));
  // `cdp-sandbox trigger <event-type>` and `listen`: webhook events on demand, and a local receiver (src/tools/).
  if (process.argv[2] === "trigger") return process.exit(await (await import("./tools/trigger.js")).runTrigger(process.argv.slice(3)));
  if (process.argv[2] === "listen") return process.exit(await (await import("./tools/listen.js")).runListen(process.argv.slice(3)));
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        spec: { type: "string" },
        data: { type: "string" },
        auth: { type: "string" },
        "credentials-file": { type: "string" },
        "admin-token": { type: "string" },
        seed: { type: "string" },
        scenario: { type: "string", multiple: true },
        "validate-responses": { type: "boolean" },
        mining: { type: "string" },
        "accept-unknown-keys": { type: "boolean" },
        "allow-private-webhook-targets": { type: "boolean" },
        "allow-test-methods": { type: "boolean" },
        "dev-accounts": { type: "string" },
        "evm-timeout": { type: "string" },
        "ws-port": { type: "string" },
        "open-sign-in-pages": { type: "boolean" },
        // State files and the journal that outlives the process (docs/state-files.md).
        init: { type: "string" },
        "export-on-exit": { type: "string" },
        journal: { type: "string" },
        // A verdict on the clients (docs/ci.md).
        strict: { type: "boolean" },
        report: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(
      "usage: cdp-sandbox [--port 8080] [--host 127.0.0.1] [--spec openapi.yaml] [--data state.json]\n" +
        "                   [--auth verify|strict|none] [--credentials-file creds.json] [--seed S] [--validate-responses]\n" +
        "                   [--scenario NAME_OR_FILE ...] [--admin-token T] [--mining auto|interval]\n" +
        "                   [--accept-unknown-keys] [--allow-private-webhook-targets] [--open-sign-in-pages]   (off loopback: opt-ins)\n" +
        "                   [--init state.yaml] [--export-on-exit state.json] [--journal journal.jsonl]\n" +
        "                   [--strict] [--report DIR]   (contract verdict and coverage reports: docs/ci.md)\n" +
        "                   [--dev-accounts N (0-100)] [--allow-test-methods]   (test nodes: docs/testing-front-ends.md)\n" +
        "                   [--evm-timeout MS (default 400, 0 = none)]   (the node's eth_call/eth_estimateGas time: docs/chain.md)\n" +
        "       cdp-sandbox run [options] -- <command> [args...]   (cdp-sandbox run --help)\n" +
        "       cdp-sandbox mcp [options] [--attach URL]           an MCP server over stdio for coding assistants\n" +
        "       cdp-sandbox trigger <event-type> [--url URL]       the real flow behind a webhook event (trigger --list)\n" +
        "       cdp-sandbox listen --forward-to URL [--events T,...] forward a project's webhooks to a local endpoint\n",
    );
    return;
  }
  const get = (name: string) => (values[name] as string | undefined) ?? env(name);
  const portText = get("port") ?? process.env.PORT ?? "8080";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535, got '${portText}'`);
  const wsPortText = get("ws-port");
  const wsPort = wsPortText === undefined ? undefined : Number(wsPortText);
  if (wsPort !== undefined && (!/^\d+$/.test(wsPortText!) || wsPort > 65535)) fail(`--ws-port must be an integer from 0 to 65535, got '${wsPortText}'`);
  const auth = get("auth") ?? "verify";
  if (auth !== "verify" && auth !== "strict" && auth !== "none") fail(`--auth must be verify, strict or none, got '${auth}'`);
  const mining = get("mining") ?? "auto";
  if (mining !== "auto" && mining !== "interval") fail(`--mining must be auto or interval, got '${mining}'`);
  const devAccountsText = get("dev-accounts");
  const devAccounts = devAccountsText === undefined ? undefined : /^\d{1,4}$/.test(devAccountsText) ? Number(devAccountsText) : Number.NaN;
  if (devAccounts !== undefined && !(devAccounts <= MAX_DEV_ACCOUNTS))
    fail(`--dev-accounts must be a whole number from 0 to ${MAX_DEV_ACCOUNTS}, got '${devAccountsText}'`);
  const evmTimeoutText = get("evm-timeout");
  if (evmTimeoutText !== undefined && !/^\d{1,9}$/.test(evmTimeoutText))
    fail(`--evm-timeout must be a whole number of milliseconds (0: no limit), got '${evmTimeoutText}'`);
  if (auth === "none") process.stderr.write("cdp-sandbox: --auth none accepts any request without checking credentials; never expose it.\n");

  const host = get("host") ?? "127.0.0.1";
  // Given, true; otherwise undefined, and the sandbox decides by the host (allowed on loopback only).
  const optIn = (name: string) => (values[name] || env(name) === "true" ? true : undefined);
  const sandbox = await startSandbox({
    port,
    prepareRuntimes: true,
    wsPort,
    host,
    spec: get("spec"),
    data: get("data"),
    auth,
    seed: get("seed"),
    scenario: (values.scenario as string[] | undefined) ?? env("scenario")?.split(",").filter(Boolean),
    validateResponses: Boolean(values["validate-responses"]) || env("validate-responses") === "true",
    adminToken: get("admin-token"),
    mining,
    acceptUnknownKeys: optIn("accept-unknown-keys"),
    allowPrivateWebhookTargets: optIn("allow-private-webhook-targets"),
    allowTestMethods: optIn("allow-test-methods"),
    devAccounts,
    evmTimeoutMs: evmTimeoutText === undefined ? undefined : Number(evmTimeoutText),
    openSignInPages: optIn("open-sign-in-pages"),
    init: get("init"),
    exportOnExit: get("export-on-exit"),
    journal: get("journal"),
    strict: Boolean(values.strict) || env("strict") === "true",
    report: get("report"),
    log: (message) => process.stderr.write(`cdp-sandbox: ${message}\n`),
  });
  // Whatever ends the process, the journal file gets what is pending.
  process.on("exit", () => sandbox.flushJournal());
  const { adminToken } = sandbox;
  if (adminToken && !isLoopbackHost(host)) {
    process.stderr.write(
      `cdp-sandbox: listening on ${host}: the admin API (/_sandbox) is reachable from the network and requires the header X-Sandbox-Admin-Token: ${adminToken}\n`,
    );
  }
  const { basePath, apiKeyId, apiKeySecret, walletSecret, projectId, clientApiKey } = sandbox.credentials;
  const credentialsFile = get("credentials-file");
  if (credentialsFile) {
    const encryptionPublicKey = sandbox.importKeyPem;
    const credentials = { basePath, apiKeyId, apiKeySecret, walletSecret, projectId, clientApiKey, encryptionPublicKey, adminToken };
    writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    // A file left by an earlier run keeps its mode through the write: it holds the API key secret, so owner only.
    chmodSync(credentialsFile, 0o600);
  }
  // Before the ready line: a script that stops the sandbox as soon as it reads the line must get a clean stop
  // (export on exit, journal flushed, report written), not the signal's default death. With --strict, closing fails
  // when a client broke the contract: exit 1, saying how.
  const journalFile = get("journal");
  const stop = () =>
    void sandbox.close().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`${error.message}\n`);
        if (journalFile) process.stderr.write(`cdp-sandbox: the requests are in ${journalFile}, under the correlation ids above\n`);
        process.exit(error instanceof ContractViolationError ? 1 : 2);
      },
    );
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // One line, so scripts can read the fields from the first line of stdout.
  process.stdout.write(
    `cdp-sandbox ready basePath=${basePath} projectId=${projectId} apiKeyId=${apiKeyId} apiKeySecret=${apiKeySecret} walletSecret=${walletSecret} clientApiKey=${clientApiKey} mining=${sandbox.mining}${sandbox.wsPort ? ` wsPort=${sandbox.wsPort}` : ""}${sandbox.devAccounts.length > 0 ? ` devAccounts=${sandbox.devAccounts.length}` : ""} dashboard=${sandbox.url}/_sandbox/ui/${adminToken ? ` adminToken=${adminToken}` : ""}${isLoopbackHost(host) ? "" : ` optIns=${sandbox.optIns.join(",") || "none"}`}\n`,
  );
}

main().catch((error: Error & { code?: string }) => {
  fail(error.code === "EADDRINUSE" ? `the port is already in use (${error.message}); pick another with --port` : error.message);
});
