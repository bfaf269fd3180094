/**
 * The built command's flags for test tools: dev accounts and the WebSocket port on the ready line, the node
 * signing for a dev account, the node's time budget for read-only EVM work, and the bounds refused before anything
 * starts.
 */
import { afterAll, describe, expect, it, beforeAll } from "vitest";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, type Running, startNode } from "#test/helpers/cli.js";
import { freePort } from "#test/helpers/ports.js";

/** A port that was free a moment ago (the command binds it next; a rare race is retried). */

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

describe("cdp-sandbox --dev-accounts, --ws-port and --evm-timeout", () => {
  const running: Running[] = [];
  afterAll(() => {
    for (const r of running) r.child.kill("SIGTERM");
  });

  it("says wsPort= and devAccounts= on the ready line, and the node signs for the first dev account", async () => {
    let line: string | undefined;
    let port = 0;
    for (let attempt = 0; attempt < 5 && !line; attempt++) {
      port = await freePort();
      const started = startNode([cliPath, "--port", String(port), "--dev-accounts", "2", "--seed", "cli-test-tools"]);
      running.push(started);
      line = await started.waitFor(/^cdp-sandbox ready .*$/m, "stdout").then(
        (m) => m[0],
        () => undefined,
      );
    }
    expect(line).toMatch(new RegExp(` mining=auto wsPort=${port + 1} devAccounts=2 dashboard=`));
    const token = /clientApiKey=(\S+)/.exec(line!)![1];
    const answer = await fetch(`http://127.0.0.1:${port}/rpc/v1/base-sepolia/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_accounts" }),
    }).then((r) => r.json() as Promise<{ result: string[] }>);
    expect(answer.result).toEqual(["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"]);
  }, 120_000);

  it("refuses more than 100 dev accounts and a port out of range, with exit code 2", async () => {
    const many = await startNode([cliPath, "--port", "0", "--dev-accounts", "101"]).finished;
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/--dev-accounts must be a whole number from 0 to 100, got '101'/);
    const ws = await startNode([cliPath, "--port", "0", "--ws-port", "70000"]).finished;
    expect(ws.code).toBe(2);
    expect(ws.stderr).toMatch(/--ws-port must be an integer from 0 to 65535, got '70000'/);
  }, 60_000);

  it("bounds the node's read-only EVM work with --evm-timeout, and refuses a value that is not milliseconds", async () => {
    let line: string | undefined;
    let port = 0;
    for (let attempt = 0; attempt < 5 && !line; attempt++) {
      port = await freePort();
      const started = startNode([cliPath, "--port", String(port), "--ws-port", "0", "--evm-timeout", "1", "--seed", "cli-evm-timeout"]);
      running.push(started);
      line = await started.waitFor(/^cdp-sandbox ready .*$/m, "stdout").then(
        (m) => m[0],
        () => undefined,
      );
    }
    const token = /clientApiKey=(\S+)/.exec(line!)![1];
    // An endless loop at the 10M gas cap: far past a 1 ms budget on any machine.
    const answer = await fetch(`http://127.0.0.1:${port}/rpc/v1/base-sepolia/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: "0x5b600056" }, "latest"] }),
    }).then((r) => r.json() as Promise<{ error?: { code: number; message: string } }>);
    expect(answer.error?.code).toBe(-32000);
    expect(answer.error?.message).toMatch(/^execution aborted \(timeout = 1ms\): .*--evm-timeout/);
    for (const args of [
      ["--evm-timeout", "fast"],
      ["run", "--evm-timeout", "soon", "--", process.execPath, "-e", ""],
    ]) {
      const refused = await startNode([cliPath, ...args, ...(args[0] === "run" ? [] : ["--port", "0"])]).finished;
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr).toMatch(/--evm-timeout must be a whole number of milliseconds \(0: no limit\), got '(fast|soon)'/);
    }
  }, 120_000);

  it("cdp-sandbox run --dev-accounts gives the command a node that holds their keys, and serves it on port + 1", async () => {
    const program = [
      "const base = process.env.CDP_SANDBOX_URL, token = process.env.CDP_SANDBOX_PROJECT_ID;",
      "const ask = (origin) => fetch(origin + '/rpc/v1/base/' + token, { method: 'POST', headers: { 'content-type': 'application/json' },",
      "  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_accounts' }) }).then((r) => r.json());",
      "const next = base.replace(/:(\\d+)$/, (_, p) => ':' + (Number(p) + 1));",
      "Promise.all([ask(base), ask(next)]).then(([a, b]) => console.log(JSON.stringify([a.result, b.result])));",
    ].join("\n");
    const run = await startNode([cliPath, "run", "--dev-accounts", "1", "--", process.execPath, "-e", program]).finished;
    expect(run.code, run.stderr).toBe(0);
    const first = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
    expect(JSON.parse(run.stdout.trim().split("\n").at(-1)!)).toEqual([[first], [first]]);
    const refused = await startNode([cliPath, "run", "--dev-accounts", "many", "--", process.execPath, "-e", ""]).finished;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--dev-accounts must be a whole number from 0 to 100, got 'many'/);
  }, 120_000);
});
