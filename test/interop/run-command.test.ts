/**
 * `cdp-sandbox run` as a wrapper around any command: what the command gets
 * in its environment, which project it acts in, the exit code it passes on,
 * the signals it forwards, and one clear line with the right code for each
 * mistake — leaving nothing running. Spawns the built command, so it skips
 * until `npm run build` has run.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { alive, answers, BUILD_TIMEOUT_MS, cliPath, ensureBuilt, journalOrigin, startNode } from "#test/helpers/cli.js";
import { freePort } from "#test/helpers/ports.js";

const node = process.execPath;
const printEnv =
  "const e = process.env; console.log(JSON.stringify({ keyId: e.CDP_API_KEY_ID, secret: !!e.CDP_API_KEY_SECRET, wallet: !!e.CDP_WALLET_SECRET, " +
  "basePath: e.CDP_SANDBOX_BASE_PATH, projectId: e.CDP_SANDBOX_PROJECT_ID, importKey: e.CDP_SANDBOX_IMPORT_KEY, " +
  "usage: e.DISABLE_CDP_USAGE_TRACKING, errors: e.DISABLE_CDP_ERROR_REPORTING, nodeOptions: e.NODE_OPTIONS }))";
const run = (args: string[], env?: NodeJS.ProcessEnv) => startNode([cliPath, "run", ...args], { env, timeoutMs: 60_000 });
describe("cdp-sandbox run", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("runs the command with a project's credentials, the base path, analytics off and the hook in NODE_OPTIONS", async () => {
    const { code, stdout, stderr } = await run(["--seed", "run-env", "--", node, "-e", printEnv], { NODE_OPTIONS: "--max-old-space-size=256" }).finished;
    expect(code, stderr).toBe(0);
    const env = JSON.parse(stdout);
    expect(env).toMatchObject({ secret: true, wallet: true, usage: "true", errors: "true" });
    expect(env.basePath).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/platform$/);
    expect(env.importKey).toContain("-----BEGIN PUBLIC KEY-----");
    // The caller's NODE_OPTIONS stay; the hook is added by file URL, so it loads whatever the command's folder holds.
    expect(env.nodeOptions).toMatch(/^--max-old-space-size=256 --import=file:\/\/\/\S+\/dist\/register\.js$/);
    // The one line on stderr names the journal of the sandbox it started (on a free port) and stopped.
    const origin = new URL(env.basePath).origin;
    expect(stderr).toBe(`cdp-sandbox: the journal of this run: GET ${origin}/_sandbox/requests (dashboard: ${origin}/_sandbox/ui/)\n`);
    expect(await answers(new URL(env.basePath).origin)).toBe(false);

    const again = JSON.parse((await run(["--seed", "run-env", "--new-project", "--", node, "-e", printEnv]).finished).stdout);
    expect(again.projectId).not.toBe(env.projectId);
    expect(again.keyId).not.toBe(env.keyId);
  });

  it("passes the command's exit code on, and leaves NODE_OPTIONS alone with --no-hook", async () => {
    const failed = await run(["--", node, "-e", "process.exit(3)"]).finished;
    expect(failed.code).toBe(3);
    const bare = await run(["--no-hook", "--", node, "-e", "console.log(process.env.NODE_OPTIONS ?? 'unset')"], { NODE_OPTIONS: "" }).finished;
    expect(bare.stdout.trim()).toBe("");
  });

  describe("with --attach", () => {
    let sandbox: Sandbox;
    const credentialsFile = join(tmpdir(), `cdp-sandbox-run-attach-${process.pid}.json`);
    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, seed: "run-attach" });
      writeFileSync(credentialsFile, JSON.stringify(sandbox.credentials));
    });
    afterAll(() => sandbox.close());

    it("gives the command the running sandbox's project, or a new one, and leaves the sandbox running", async () => {
      const joined = await run(["--attach", sandbox.url, "--credentials-file", credentialsFile, "--", node, "-e", printEnv]).finished;
      expect(joined.code, joined.stderr).toBe(0);
      const env = JSON.parse(joined.stdout);
      expect(env).toMatchObject({ keyId: sandbox.credentials.apiKeyId, projectId: sandbox.credentials.projectId, basePath: sandbox.basePath });
      expect(env.importKey).toBe(sandbox.importKeyPem);

      const isolated = JSON.parse((await run(["--attach", sandbox.url, "--new-project", "--", node, "-e", printEnv]).finished).stdout);
      expect(isolated.projectId).not.toBe(sandbox.credentials.projectId);
      expect(isolated.basePath).toBe(sandbox.basePath);
      expect(await answers(sandbox.url)).toBe(true);
    });
  });

  describe("forwards signals and ends with 128+n", () => {
    const waiting =
      // The handler goes first: until a process has one, SIGTERM kills it outright, so it says its pid only once ready.
      "process.on('SIGTERM', () => { console.log('child got SIGTERM'); process.exit(0); }); console.log('pid', process.pid); setInterval(() => {}, 1000);";

    it("hands SIGTERM to the command, which may exit as it likes, and stops its sandbox", async () => {
      const running = run(["--", node, "-e", waiting]);
      const [, pid] = await running.waitFor(/pid (\d+)/, "stdout");
      running.child.kill("SIGTERM");
      const { code, stdout, stderr } = await running.finished;
      expect(stdout).toContain("child got SIGTERM");
      expect(code).toBe(0);
      expect(alive(Number(pid))).toBe(false);
      expect(await answers(journalOrigin(stderr)!)).toBe(false);
    });

    it("says so in one line and exits 128+n when a signal ends the command", async () => {
      const running = run(["--", node, "-e", "console.log('pid', process.pid); setInterval(() => {}, 1000);"]);
      const [, pid] = await running.waitFor(/pid (\d+)/, "stdout");
      running.child.kill("SIGINT");
      const { code, stderr } = await running.finished;
      expect(code).toBe(130);
      expect(stderr).toContain(`cdp-sandbox run: ${node} was ended by SIGINT (exit code 130)\n`);
      expect(alive(Number(pid))).toBe(false);
      expect(await answers(journalOrigin(stderr)!)).toBe(false);

      const killed = await run(["--", node, "-e", "process.kill(process.pid, 'SIGKILL')"]).finished;
      expect(killed.code).toBe(137);
      expect(killed.stderr).toContain("was ended by SIGKILL (exit code 137)");
      expect(await answers(journalOrigin(killed.stderr)!)).toBe(false);
    });
  });

  describe("bad input: one line on stderr, the right exit code, nothing left running", () => {
    it("refuses an unknown option with 2 before starting anything", async () => {
      const { code, stdout, stderr } = await run(["--bogus", "--", node, "-e", "console.log('ran')"]).finished;
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^cdp-sandbox run: Unknown option '--bogus'.*\n$/);
    });

    it("refuses a run without a command with 2", async () => {
      const { code, stderr } = await run(["--seed", "x"]).finished;
      expect(code).toBe(2);
      expect(stderr).toBe("cdp-sandbox run: no command to run: give it after the options, e.g. cdp-sandbox run -- node app.mjs\n");
    });

    it("answers a command that does not exist with 127 and stops the sandbox it started", async () => {
      const port = await freePort();
      const { code, stderr } = await run(["--port", String(port), "--", "cdp-sandbox-no-such-command"]).finished;
      expect(code).toBe(127);
      expect(stderr).toBe("cdp-sandbox run: command not found: cdp-sandbox-no-such-command\n");
      expect(await answers(`http://127.0.0.1:${port}`)).toBe(false);
    });

    it("says the port is busy with 2", async () => {
      const busy = createServer().listen(0, "127.0.0.1");
      await new Promise((resolve) => busy.once("listening", resolve));
      const port = (busy.address() as { port: number }).port;
      try {
        const { code, stdout, stderr } = await run(["--port", String(port), "--", node, "-e", "console.log('ran')"]).finished;
        expect(code).toBe(2);
        expect(stdout).toBe("");
        expect(stderr).toBe(`cdp-sandbox run: port ${port} is already in use; pick another with --port, or leave it out for a free one\n`);
      } finally {
        busy.close();
      }
    });

    it("says an --attach URL does not answer with 2", async () => {
      const port = await freePort();
      const credentialsFile = join(tmpdir(), `cdp-sandbox-run-nobody-${process.pid}.json`);
      writeFileSync(credentialsFile, "{}");
      const { code, stdout, stderr } = await run([
        "--attach",
        `http://127.0.0.1:${port}`,
        "--credentials-file",
        credentialsFile,
        "--",
        node,
        "-e",
        "console.log('ran')",
      ]).finished;
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(new RegExp(`^cdp-sandbox run: no sandbox answers at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\)\\n$`));
    });
  });
});
