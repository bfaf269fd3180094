/**
 * The small React apps the browser tests drive (a folder with index.html and its sources beside the test, never
 * built output in the repo): built with Vite (its own JSX transform, no plugin) into a temporary folder, then
 * served on 127.0.0.1, where every unknown path is the app's page, as a single-page app's host does.
 */
import { createReadStream, existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";

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
