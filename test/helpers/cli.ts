/**
 * The built command (`dist/cli.js`) run as a user runs it: a child process
 * whose output and exit are collected. Tests that use it call ensureBuilt()
 * first, which runs `npm run build` when dist/ is missing or older than its
 * sources: a fresh clone's `npm test` tests what it would ship, never skips.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../src/paths.js";

export const cliPath = join(packageRoot, "dist", "cli.js");
export const registerPath = join(packageRoot, "dist", "register.js");

/** What `npm run build` reads, and what it writes last of all (the contract cache is warmed from dist/). */
const BUILD_INPUTS = [
  "src",
  "openapi.yaml",
  "admin-openapi.yaml",
  "tsconfig.json",
  "tsconfig.build.json",
  "package-lock.json",
  "scripts/bundle-cli.mjs",
  "scripts/bundle-ui.mjs",
  "scripts/warm-contract.mjs",
];
const BUILD_OUTPUTS = [cliPath, registerPath, join(packageRoot, "dist", "index.js"), join(packageRoot, "dist", "ui", "app.js")];
/** A build takes ~20 s alone; on a busy 2-core machine (load 15) it took 7 minutes: the limit only catches a hang. */
export const BUILD_TIMEOUT_MS = 900_000;

function newestMtime(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Why dist/ must be built again, or undefined when it is newer than everything it is built from. */
function staleness(): string | undefined {
  const outputs = BUILD_OUTPUTS.map((path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (outputs.includes(0)) return "dist/ is missing";
  const newest = BUILD_INPUTS.map((input) => ({ input, mtime: newestMtime(join(packageRoot, input)) })).find(({ mtime }) => mtime > Math.min(...outputs));
  return newest && `${newest.input} changed since the last build`;
}

let building: Promise<void> | undefined;

/**
 * Builds dist/ unless it is up to date. Test files run in several worker processes at once: a lock folder (mkdir
 * is atomic) lets one of them build while the others wait and then find dist/ fresh.
 */
export function ensureBuilt(): Promise<void> {
  building ??= (async () => {
    const lock = join(tmpdir(), `cdp-sandbox-build-${createHash("sha256").update(packageRoot).digest("hex").slice(0, 12)}.lock`);
    for (;;) {
      if (!staleness()) return;
      try {
        mkdirSync(lock);
      } catch {
        // Another worker builds; a lock older than a build can take was left by a killed run.
        if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > BUILD_TIMEOUT_MS) rmSync(lock, { recursive: true, force: true });
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      try {
        const reason = staleness();
        if (!reason) return;
        console.log(`building dist/ first (${reason}): npm run build`);
        const build = startCommand("npm", ["run", "build"], { timeoutMs: BUILD_TIMEOUT_MS });
        const { code, stdout, stderr } = await build.finished;
        if (code !== 0) throw new Error(`npm run build failed (exit ${code})\n${stdout}\n${stderr}`);
        return;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  })();
  return building;
}
export const programPath = (name: string) => join(packageRoot, "test", "fixtures", "programs", name);

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves when the process has exited (rejects after `timeoutMs`, killing it). */
  finished: Promise<Finished>;
  /** Resolves once stdout or stderr matches. */
  waitFor(pattern: RegExp, stream?: "stdout" | "stderr"): Promise<RegExpMatchArray>;
}

/** Starts `node <args>` (the command with `cliPath` first, or a program) with `env` on top of this process's. */
export function startNode(args: string[], o: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {}): Running {
  return startCommand(process.execPath, args, o);
}

function startCommand(command: string, args: string[], o: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string }): Running {
  const child = spawn(command, args, { env: { ...process.env, ...o.env }, cwd: o.cwd ?? packageRoot, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (out.stdout += chunk));
  child.stderr!.on("data", (chunk) => (out.stderr += chunk));
  const finished = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${command === process.execPath ? "node" : command} ${args.join(" ")} did not finish within ${o.timeoutMs} ms\nstdout: ${out.stdout}\nstderr: ${out.stderr}`,
        ),
      );
    }, o.timeoutMs ?? 60_000);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...out });
    });
  });
  const waitFor = (pattern: RegExp, stream?: "stdout" | "stderr") =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const poll = setInterval(() => {
        const match = (stream ? out[stream] : `${out.stdout}\n${out.stderr}`).match(pattern);
        if (match) {
          clearInterval(poll);
          resolve(match);
        }
      }, 20);
      finished.then(
        () => {
          clearInterval(poll);
          reject(new Error(`exited before printing ${pattern}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`));
        },
        () => clearInterval(poll),
      );
    });
  return { child, output: () => ({ ...out }), finished, waitFor };
}

/** The origin of the sandbox a `cdp-sandbox run` announced on stderr. */
export function journalOrigin(stderr: string): string | undefined {
  return /the journal of this run: GET (http:\/\/\S+)\/_sandbox\/requests/.exec(stderr)?.[1];
}

/** Whether anything accepts connections at `origin` (false once a sandbox has stopped). */
export function answers(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Whether a process with this id still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
