/**
 * The small React apps the browser tests drive (a folder with index.html and its sources beside the test, never
 * built output in the repo): built with Vite (its own JSX transform, no plugin) into a temporary folder, then
 * served on 127.0.0.1, where every unknown path is the app's page, as a single-page app's host does.
 */
import { createReadStream, existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import type { Page } from "playwright-core";
import request from "supertest";
import { expect } from "vitest";

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };

/** Builds the app in `source` into a new temporary folder and returns that folder. */
export async function buildApp(source: string): Promise<string> {
  const { build } = await import("vite");
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-app-"));
  await build({ root: source, configFile: false, logLevel: "error", build: { outDir: dir, emptyOutDir: true } });
  return dir;
}

/** Serves the built files of `dir` on a free port of 127.0.0.1. */
export function serveApp(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(new URL(req.url ?? "/", "http://x").pathname).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path);
    const target = file.startsWith(dir) && existsSync(file) && extname(file) ? file : join(dir, "index.html");
    res.setHeader("content-type", TYPES[extname(target)] ?? "application/octet-stream");
    createReadStream(target).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * Signs in through the kit's email flow on `page`: the address typed, the code read from the sandbox's inbox once
 * auth/init is answered, then typed into the code inputs. `codeSent` runs while the code screen shows.
 */
export async function signInByEmail(page: Page, sandboxUrl: string, email: string, codeSent?: () => Promise<void>): Promise<void> {
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Email address").fill(email);
  // The code is in the inbox once the page's auth/init has been answered.
  const initiated = page.waitForResponse((r) => r.url().endsWith("/auth/init") && r.request().method() === "POST");
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  expect((await initiated).status()).toBe(200);
  const code = await codeSentTo(sandboxUrl, email);
  await codeSent?.();
  // The code's inputs replace the email field once the kit has read auth/init's answer: type only into them.
  await page
    .getByRole("paragraph")
    .filter({ hasText: /Enter the \d digit code/ })
    .first()
    .waitFor();
  await page.getByLabel("Email address").waitFor({ state: "detached" });
  await page.locator("input").first().focus();
  await page.keyboard.type(code);
}

/** The newest one-time code the sandbox's inbox holds for `to`. */
export async function codeSentTo(sandboxUrl: string, to: string): Promise<string> {
  const res = await request(sandboxUrl).get(`/_sandbox/messages?to=${encodeURIComponent(to)}`);
  const [message] = res.body.messages as Array<{ code: string }>;
  if (!message) throw new Error(`no code in ${to}'s inbox`);
  return message.code;
}
