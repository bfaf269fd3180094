/**
 * The package as users get it: `npm pack` gives a tarball that installs with
 * `npm install --omit=dev --offline <tarball>` into a new folder (no dev
 * dependency, nothing from the network), and whose `npx cdp-sandbox`,
 * `npx cdp-sandbox run`, `node --import cdp-sandbox/register` and
 * `import { startSandbox } from "cdp-sandbox"` work there.
 *
 * `--offline` cannot resolve version ranges without the registry's metadata,
 * which a machine that installed with `npm ci` does not keep; the new folder
 * therefore gets a lockfile: the tarball plus the production entries of this
 * repository's package-lock.json (nested copies included), whose tarballs
 * that `npm ci` left in npm's cache. Bounded (a few minutes at most); skipped until `npm run build` has run.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/paths.js";
import { answers, BUILD_TIMEOUT_MS, ensureBuilt } from "#test/helpers/cli.js";

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for its own scripts. */
const userEnv = (extra: NodeJS.ProcessEnv = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_"))),
  ...extra,
});

function exec(command: string, args: string[], cwd: string, o: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(o.env), stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} took longer than ${o.timeoutMs} ms\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 60_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the packed package, installed offline with production dependencies only", () => {
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-package-"));
  const app = join(dir, "app");

  beforeAll(async () => {
    await ensureBuilt();
    // --ignore-scripts: dist/ is already built (prepare would rebuild it under the other tests' feet).
    const packed = await exec("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], packageRoot, { timeoutMs: 120_000 });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);

    mkdirSync(app);
    const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(join(packageRoot, "package-lock.json"), "utf8"));
    const spec = `file:${tarball}`;
    const packages: Record<string, unknown> = {
      "": { name: "app", dependencies: { "cdp-sandbox": spec } },
      "node_modules/cdp-sandbox": {
        version: pkg.version,
        resolved: spec,
        integrity: `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`,
        license: pkg.license,
        dependencies: pkg.dependencies,
        bin: pkg.bin,
        engines: pkg.engines,
      },
    };
    // The lock names no tarball URLs (`resolved`): npm would then ask the registry for each package's metadata,
    // which `--offline` refuses. npm ci fetched every tarball from the registry's usual URL, the key npm's cache
    // keeps it under, so that URL is written in; nested copies (a/node_modules/b) are named by their last segment.
    const registry = (await exec("npm", ["config", "get", "registry"], packageRoot)).stdout.trim().replace(/\/?$/, "/");
    type LockEntry = { dev?: boolean; link?: boolean; name?: string; version?: string; resolved?: string };
    for (const [path, entry] of Object.entries(lock.packages as Record<string, LockEntry>)) {
      if (!path.startsWith("node_modules/") || entry.dev || entry.link) continue;
      const name = entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
      packages[path] = { ...entry, resolved: entry.resolved ?? `${registry}${name}/-/${name.split("/").pop()}-${entry.version}.tgz` };
    }
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
    writeFileSync(join(app, "package-lock.json"), JSON.stringify({ name: "app", lockfileVersion: 3, requires: true, packages }));
    const installed = await exec("npm", ["install", "--omit=dev", "--offline", "--no-audit", "--no-fund", tarball], app, { timeoutMs: 240_000 });
    expect(installed.code, installed.stderr).toBe(0);
  }, BUILD_TIMEOUT_MS + 400_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }), 180_000); // the installed tree is large: slow to remove on a busy machine

  it("holds no development dependency: the official client, vitest and the compilers stay out", () => {
    expect(existsSync(join(app, "node_modules", "cdp-sandbox", "dist", "cli.js"))).toBe(true);
    expect(existsSync(join(app, "node_modules", "cdp-sandbox", "dist", "register.js"))).toBe(true);
    for (const dev of ["@coinbase/cdp-sdk", "vitest", "typescript", "rolldown"]) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
  });

  it("starts with npx cdp-sandbox", async () => {
    const child = spawn("npx", ["--offline", "cdp-sandbox", "--port", "0", "--seed", "package"], { cwd: app, env: userEnv(), detached: true });
    let stdout = "";
    child.stdout.on("data", (c) => (stdout += c));
    try {
      const basePath = await new Promise<string>((resolve, reject) => {
        const poll = setInterval(() => {
          const match = /^cdp-sandbox ready basePath=(\S+)/.exec(stdout);
          if (match) {
            clearInterval(poll);
            resolve(match[1]!);
          }
        }, 50);
        child.once("close", (code) => {
          clearInterval(poll);
          reject(new Error(`npx cdp-sandbox exited with ${code}`));
        });
      });
      const health = await fetch(`${new URL(basePath).origin}/_sandbox/health`);
      expect(health.status).toBe(200);
      // The dashboard the start line names is served from the package's dist/ui, built at npm run build.
      const dashboard = /dashboard=(\S+)/.exec(stdout)![1]!;
      expect((await fetch(dashboard)).status).toBe(200);
      const script = await fetch(`${dashboard}app.js`);
      expect([script.status, script.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
  }, 60_000);

  it("runs a command with npx cdp-sandbox run, whose hook sends the production host to the sandbox", async () => {
    const script = "fetch('https://api.cdp.coinbase.com/platform/v2/evm/accounts').then(async (r) => console.log(r.status, (await r.json()).errorType))";
    const { code, stdout, stderr } = await exec("npx", ["--offline", "cdp-sandbox", "run", "--", "node", "-e", script], app, { timeoutMs: 60_000 });
    expect(code, stderr).toBe(0);
    expect(stdout.trim()).toBe("401 unauthorized");
    const origin = /the journal of this run: GET (\S+)\/_sandbox\/requests/.exec(stderr)?.[1];
    expect(await answers(origin!)).toBe(false);
  }, 90_000);

  it("imports startSandbox, and loads the hook by its package name", async () => {
    const program = [
      'import { startSandbox } from "cdp-sandbox";',
      "const sandbox = await startSandbox();",
      "const health = await fetch(sandbox.url + '/_sandbox/health');",
      "console.log(health.status, sandbox.basePath.endsWith('/platform'));",
      "await sandbox.close();",
    ].join("\n");
    const imported = await exec("node", ["--input-type=module", "-e", program], app, { timeoutMs: 60_000 });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.trim()).toBe("200 true");

    const hooked = await exec("node", ["--import", "cdp-sandbox/register", "-e", "0"], app, { env: { CDP_SANDBOX_BASE_PATH: "" }, timeoutMs: 30_000 });
    expect(hooked.code).toBe(0);
    expect(hooked.stderr).toContain("cdp-sandbox/register: CDP_SANDBOX_BASE_PATH is not set");
  }, 90_000);
});
