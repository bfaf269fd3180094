#!/usr/bin/env node
/**
 * `npm run fuzz`: starts the built command (`dist/cli.js --port 0
 * --validate-responses --auth strict`, on loopback, never another host) and
 * fuzzes it (fuzz-core.mjs says what is sent and checked). Prints counts by
 * status and by operation and every finding with a curl-like reproduction;
 * exits 1 on any finding, 0 on none. The sandbox's event loop is watched from inside
 * (scripts/fuzz-loop-monitor.mjs): a stall over 100 ms is a finding naming the request that held it, and the longest
 * stall, with how many passed 100 ms, closes the report. Run `npm run build` first.
 *
 *   npm run fuzz -- [--seed S] [--requests N] [--seconds S] [--slow-ms MS] [--node-share F] [--socket-every N]
 *                   [--brief] [--out findings.json]
 *
 * --node-share (0.3 by default; 0 leaves the node out) is the share of requests sent to the JSON-RPC node, EVM and
 * Solana (scripts/fuzz-node.mjs); one node request in --socket-every (5) also sends a message on a node WebSocket.
 *
 * The same seed draws the same requests (the sandbox is started with a seed
 * derived from it, so its ids repeat too); `request #i` in a finding counts
 * from the start of that run. --out writes the findings with their requests in
 * full (bodies up to 256 kB; tokens named, not shown) as JSON.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatReport, runFuzz } from "./fuzz-core.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => join(root, "dist", p);

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    requests: { type: "string", default: "5000" },
    seconds: { type: "string", default: "600" },
    "slow-ms": { type: "string", default: "1000" },
    "node-share": { type: "string", default: "0.3" },
    "socket-every": { type: "string", default: "5" },
    brief: { type: "boolean", default: false },
    out: { type: "string" },
  },
});
const positive = (name) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`fuzz: --${name} must be a positive number, got '${values[name]}'\n`);
    process.exit(2);
  }
  return n;
};
const requests = positive("requests");
const seconds = positive("seconds");
const slowMs = positive("slow-ms");
const nodeShare = Number(values["node-share"]);
if (!(nodeShare >= 0 && nodeShare < 1)) {
  process.stderr.write(`fuzz: --node-share must be a fraction from 0 to below 1, got '${values["node-share"]}'\n`);
  process.exit(2);
}
const socketEvery = positive("socket-every");

if (!existsSync(dist("cli.js"))) {
  process.stderr.write("fuzz: dist/cli.js is missing; run `npm run build` first\n");
  process.exit(2);
}

const [{ loadCompiledOperations }, { OperationIndex }, { validateRequest }, { pruneRecursion }, { evmMethods }, { clientRpcMethods }, { solanaMethods }] =
  await Promise.all([
    import(dist("contract/compile.js")),
    import(dist("contract/operations.js")),
    import(dist("contract/validate.js")),
    import(dist("contract/fallback.js")),
    import(dist("node/evm/methods.js")),
    import(dist("node/clientRpc/methods.js")),
    import(dist("node/solana/methods.js")),
  ]);
const nodeMethods = { evm: [...Object.keys(evmMethods), ...Object.keys(clientRpcMethods)], solana: Object.keys(solanaMethods) };
const operations = new OperationIndex(await loadCompiledOperations(join(root, "openapi.yaml"))).all;

const child = spawn(
  process.execPath,
  [
    "--import",
    join(root, "scripts", "fuzz-loop-monitor.mjs"),
    dist("cli.js"),
    "--port",
    "0",
    "--host",
    "127.0.0.1",
    "--seed",
    `fuzz-${values.seed}`,
    "--validate-responses",
    "--auth",
    "strict",
  ],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
);
let exited;
child.once("exit", (code, signal) => {
  exited = `the sandbox process exited (${signal ?? `code ${code}`})`;
});
// "close": the process has exited and its stderr, with the loop monitor's last line, has been read.
const gone = new Promise((resolve) => child.once("close", resolve));
/** The sandbox's event loop, from scripts/fuzz-loop-monitor.mjs: its longest stall and the stalls over 100 ms. */
let loop;
/** Stalls over 100 ms reported as they happen, with the requests in flight; the fuzzer takes them as findings. */
const stalls = [];
/** The sandbox's log lines about unexpected errors: their stacks say where a 5xx came from. */
const sandboxErrors = [];
let stderrTail = "";
let capturing = false; // inside the stack of a logged error
child.stderr.on("data", (chunk) => {
  stderrTail = (stderrTail + chunk).slice(-200_000);
  const lines = stderrTail.split("\n");
  stderrTail = lines.pop() ?? "";
  for (const line of lines) {
    const summary = /^fuzz-loop max=(\d+) over100=(\d+) gc=(\d+) requests=(.*)$/.exec(line);
    if (summary) loop = { maxMs: Number(summary[1]), over100: Number(summary[2]), gcMs: Number(summary[3]), requests: JSON.parse(summary[4]) };
    const stall = /^fuzz-loop-stall ms=(\d+) gc=(\d+) requests=(.*)$/.exec(line);
    if (stall) stalls.push({ ms: Number(stall[1]), gcMs: Number(stall[2]), requests: JSON.parse(stall[3]) });
    if (/unexpected error|does not match the contract|could not send/.test(line)) capturing = sandboxErrors.length < 100;
    else if (!/^\s+at /.test(line)) capturing = false;
    if (capturing) sandboxErrors.push(line);
  }
});
const ready = await new Promise((resolve, reject) => {
  let text = "";
  child.once("exit", (code) => reject(new Error(`dist/cli.js exited with code ${code} before it was ready`)));
  child.stdout.on("data", (chunk) => {
    text += chunk;
    const end = text.indexOf("\n");
    if (end >= 0) resolve(text.slice(0, end));
  });
});
child.kill("SIGUSR2"); // the loop monitor starts counting now
const fields = Object.fromEntries([...ready.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));

let result;
try {
  result = await runFuzz({
    url: new URL(fields.basePath).origin,
    credentials: { apiKeyId: fields.apiKeyId, apiKeySecret: fields.apiKeySecret, walletSecret: fields.walletSecret },
    operations,
    validateRequest,
    pruneRecursion,
    seed: values.seed,
    requests,
    seconds,
    slowMs,
    nodeShare,
    nodeMethods,
    socketEvery,
    alive: () => exited,
    takeStalls: () => stalls.splice(0),
    log: (line) => process.stderr.write(`fuzz: ${line}\n`),
    progressEvery: 10_000,
  });
} finally {
  child.kill("SIGTERM");
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 10_000))]);
}
process.stdout.write(`${formatReport(result, { operations: !values.brief })}\n`);
process.stdout.write(
  loop
    ? `\nthe sandbox's event loop: longest stall ${loop.maxMs} ms (${loop.gcMs} ms of it the garbage collector's pauses; ` +
        `under ${loop.requests.length ? loop.requests.map((r) => r.slice(0, 160)).join(", ") : "no request"}); ${loop.over100} stalls over 100 ms\n`
    : "\nthe sandbox's event loop: not measured (the process left no report)\n",
);
if (values.out) writeFileSync(values.out, `${JSON.stringify(result.findings, null, 2)}\n`);
if (sandboxErrors.length) process.stdout.write(`\nthe sandbox's log of unexpected errors and contract mismatches:\n${sandboxErrors.join("\n")}\n`);
process.exit(result.findings.some((f) => !f.allowedBy) ? 1 : 0);
