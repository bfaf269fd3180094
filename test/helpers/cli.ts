/**
 * The built command (`dist/cli.js`) run as a user runs it: a child process
 * whose output and exit are collected. Tests that use it skip without dist/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { packageRoot } from "../../src/paths.js";

export const cliPath = join(packageRoot, "dist", "cli.js");
export const registerPath = join(packageRoot, "dist", "register.js");
export const built = existsSync(cliPath) && existsSync(registerPath);
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
  const child = spawn(process.execPath, args, { env: { ...process.env, ...o.env }, cwd: o.cwd ?? packageRoot, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (out.stdout += chunk));
  child.stderr!.on("data", (chunk) => (out.stderr += chunk));
  const finished = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node ${args.join(" ")} did not finish within ${o.timeoutMs} ms\nstdout: ${out.stdout}\nstderr: ${out.stderr}`));
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
