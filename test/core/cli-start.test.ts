/**
 * The built command (`dist/cli.js` and the one bundled file it loads) as users start it: it
 * prints its one start line (the import key stays off stdout), answers at once, and still reaches
 * what it loads only on first use (prism's diagnostics, the fallback faker,
 * sql.js and its WASM). Skipped until `npm run build` has run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, ensureBuilt, startNode } from "#test/helpers/cli.js";
import type { Sandbox } from "cdp-sandbox";
import { defaultSpecPath, packageRoot } from "../../src/paths.js";
import { call } from "#test/helpers/sandbox.js";

const cli = join(packageRoot, "dist", "cli.js");

describe("the built cdp-sandbox command", () => {
  let child: ChildProcess;
  let output = "";
  let specDir: string | undefined;
  let sandbox: Sandbox;

  beforeAll(async () => {
    await ensureBuilt();
    // Every operation of openapi.yaml has a handler: one extra operation, unknown to the sandbox, shows the fallback.
    const spec = parse(readFileSync(defaultSpecPath, "utf8"), { maxAliasCount: -1 });
    spec.paths["/v2/sandbox-probe"] = {
      get: {
        operationId: "probeFallback",
        tags: ["Faucets"],
        summary: "An operation only this test's contract has",
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } } } },
          },
        },
      },
    };
    specDir = mkdtempSync(join(tmpdir(), "cdp-sandbox-cli-"));
    const specFile = join(specDir, "openapi.yaml");
    writeFileSync(specFile, stringify(spec));
    child = spawn(process.execPath, [cli, "--port", "0", "--seed", "cli-start", "--spec", specFile], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`cdp-sandbox exited with ${code}`)));
      const poll = setInterval(() => {
        if (output.includes("\n")) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    const fields = Object.fromEntries([...output.split("\n")[0]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    const url = new URL(fields.basePath!).origin;
    sandbox = { url, basePath: fields.basePath, credentials: fields } as unknown as Sandbox;
  }, BUILD_TIMEOUT_MS + 60_000);
  afterAll(() => {
    child?.kill("SIGTERM");
    if (specDir) rmSync(specDir, { recursive: true, force: true });
  });

  it("prints one start line, with the mining mode, and answers health; the import key is served by the admin API", async () => {
    const health = await fetch(`${sandbox.url}/_sandbox/health`);
    expect(health.status).toBe(200);
    const importKey = (await (await fetch(`${sandbox.url}/_sandbox/import-key`)).json()) as { publicKeyPem: string };
    expect(importKey.publicKeyPem).toContain("-----BEGIN PUBLIC KEY-----");
    // Written in the same tick as the start line, anything more would have arrived during those two round trips.
    expect(output).toMatch(
      /^cdp-sandbox ready basePath=http:\/\/127\.0\.0\.1:\d+\/platform projectId=\S+ apiKeyId=\S+ apiKeySecret=\S+ walletSecret=\S+ clientApiKey=[0-9a-f]{32} mining=auto dashboard=http:\/\/127\.0\.0\.1:\d+\/_sandbox\/ui\/\n$/,
    );
  });

  it("creates an account and signs with its real key", async () => {
    const account = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "cli-start" }, wallet: true });
    expect(account.status).toBe(201);
    const signed = await call(sandbox, "POST", `/platform/v2/evm/accounts/${account.body.address}/sign/message`, { body: { message: "hi" }, wallet: true });
    expect(signed.status).toBe(200);
    expect(await verifyMessage({ address: account.body.address, message: "hi", signature: signed.body.signature })).toBe(true);
  });

  it("explains an invalid request with the validator's diagnostics", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "not a valid name!" }, wallet: true });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/body\.name: .*pattern/);
  });

  it("refuses a malformed percent-escape with 400, as the source does (the bundle must keep the check)", async () => {
    for (const path of ["/platform/v2/evm/accounts/%ZZ", "/_sandbox/projects/%ZZ"]) {
      const res = await call(sandbox, "GET", path);
      expect(res.status, path).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
  });

  it("answers an operation without a handler from the contract", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/sandbox-probe");
    expect(res.status).toBe(200);
    expect(res.headers["x-sandbox-mock"]).toBe("fallback");
    expect(typeof res.body.ok).toBe("boolean");
  });

  it("runs SQL over the ledger", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/data/query/run", { body: { sql: "SELECT count(*) AS n FROM base.blocks" } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([{ n: 0 }]);
  });
});

describe("the built cdp-sandbox command bound to every address", () => {
  let child: ChildProcess;
  let output = "";
  let errors = "";
  let dir: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-cli-"));
    const args = ["--port", "0", "--host", "0.0.0.0", "--seed", "cli-admin-token", "--credentials-file", join(dir, "creds.json")];
    // The mining mode from the environment, as CDP_SANDBOX_<FLAG> names every flag.
    child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CDP_SANDBOX_MINING: "interval" } });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (errors += chunk));
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`cdp-sandbox exited with ${code}: ${errors}`)));
      const poll = setInterval(() => {
        if (output.includes("\n")) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
  }, BUILD_TIMEOUT_MS + 60_000);
  afterAll(() => {
    child?.kill("SIGTERM");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("makes up an admin token, prints it (and the mining mode from the environment) on its one start line and in a warning, writes it to the credentials file, and requires it", async () => {
    const startLine = output.split("\n")[0]!;
    expect(startLine).toMatch(
      /^cdp-sandbox ready basePath=http:\/\/127\.0\.0\.1:\d+\/platform projectId=\S+ apiKeyId=\S+ apiKeySecret=\S+ walletSecret=\S+ clientApiKey=[0-9a-f]{32} mining=interval dashboard=http:\/\/127\.0\.0\.1:\d+\/_sandbox\/ui\/ adminToken=[0-9a-f]{48} optIns=none$/,
    );
    const token = startLine.match(/adminToken=(\S+)/)![1]!;
    const warnings = errors.split("\n").filter((line) => line.includes("X-Sandbox-Admin-Token"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/reachable from the network/);
    expect(warnings[0]).toContain(token);
    const credentials = JSON.parse(readFileSync(join(dir, "creds.json"), "utf8"));
    expect(credentials.adminToken).toBe(token);
    expect(credentials.clientApiKey).toBe(startLine.match(/clientApiKey=(\S+)/)![1]);
    expect(credentials.encryptionPublicKey).toContain("-----BEGIN PUBLIC KEY-----");
    const url = new URL(startLine.match(/basePath=(\S+)/)![1]!).origin;
    expect((await fetch(`${url}/_sandbox/health`)).status).toBe(401);
    expect((await fetch(`${url}/_sandbox/health`, { headers: { "X-Sandbox-Admin-Token": token } })).status).toBe(200);
  });
});

describe("a program that starts the sandbox in process", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("exits on its own once it closed the sandbox (the idle signature thread holds nothing open)", async () => {
    const program = `const { startSandbox } = await import(${JSON.stringify(join(packageRoot, "dist", "index.js"))});
      const sandbox = await startSandbox();
      await fetch(sandbox.url + "/_sandbox/health");
      await sandbox.close();
      console.log("closed");`;
    // The 15 s count from the close: loading and starting took 20 s of wall time on a machine at load 19.
    const running = startNode(["--input-type=module", "-e", program], { timeoutMs: 120_000 });
    await running.waitFor(/^closed$/m, "stdout");
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      running.finished.then((f) => f.code),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 15_000))),
    ]);
    clearTimeout(timer);
    running.child.kill("SIGKILL");
    expect(exited, "still running 15 s after close").toBe(0);
  }, 150_000);
});

describe("the command's entry", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("turns on Node's compile cache before it loads the bundle, so a later start reuses the compiled code", async () => {
    // Nothing in the environment asks for a cache: where it lands (the temporary folder's node-compile-cache) comes
    // from the entry's call alone.
    const temp = mkdtempSync(join(tmpdir(), "cdp-compile-cache-"));
    const env = { TMPDIR: temp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };
    try {
      const kept = () => readdirSync(temp, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
      const first = await startNode([cli, "--help"], { env }).finished;
      expect(first.code).toBe(0);
      expect(readdirSync(temp)).toEqual(["node-compile-cache"]);
      expect(kept(), "the bundle's compiled code was kept").toBeGreaterThan(0);
      // Node's own switch turns it off: the entry keeps nothing of its own.
      rmSync(join(temp, "node-compile-cache"), { recursive: true, force: true });
      const off = await startNode([cli, "--help"], { env: { ...env, NODE_DISABLE_COMPILE_CACHE: "1" } }).finished;
      expect(off.code).toBe(0);
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }, 120_000);
});
