#!/usr/bin/env node
// Part of `npm run build`: bundles the dashboard (src/ui, plain TypeScript and DOM) into dist/ui/app.js and
// copies its style sheet to dist/ui/app.css; the sandbox serves both at /_sandbox/ui/. Running from source
// (the tests), src/admin/dashboard.ts calls bundleDashboard() on the first request instead.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The script and the style sheet, in memory. */
export async function bundleDashboard() {
  const result = await build({
    input: join(root, "src", "ui", "main.ts"),
    platform: "browser",
    logLevel: "warn",
    write: false,
    output: { format: "esm", codeSplitting: false, minify: true },
  });
  const chunk = result.output.find((o) => o.type === "chunk");
  return { script: chunk.code, style: readFileSync(join(root, "src", "ui", "app.css"), "utf8") };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { script, style } = await bundleDashboard();
  const out = join(root, "dist", "ui");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "app.js"), script);
  writeFileSync(join(out, "app.css"), style);
  console.log(`ui: bundled into ${out} (app.js ${script.length} bytes, app.css ${style.length} bytes)`);
}
