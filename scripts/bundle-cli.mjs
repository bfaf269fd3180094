#!/usr/bin/env node
// Part of `npm run build`: bundles the command (dist/cli.js, what `cdp-sandbox` and `npm start` run) into one
// file. Loading ~1,500 separate modules (viem, express, @solana/kit, ...) was most of the start-up time and ~25 MB
// of memory; one tree-shaken file loads in a fraction of that. dist/index.js, the library, stays as tsc wrote it.
//
// Left out of the bundle: what the sandbox loads only when needed, by file at run time (prism's validator on the
// first request it must explain, json-schema-faker on the first fallback, sql.js and its WASM on the first query).
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const bundled = join(dist, "cli.bundle.js");

await build({
  input: join(dist, "cli.js"),
  platform: "node",
  external: [/^@stoplight\/prism-http(\/|$)/, /^json-schema-faker(\/|$)/, /^sql\.js(\/|$)/, /^node:/],
  logLevel: "warn",
  output: {
    file: bundled,
    format: "esm",
    codeSplitting: false,
    sourcemap: true, // for `node --enable-source-maps dist/cli.js`
  },
});
renameSync(bundled, join(dist, "cli.js"));
renameSync(`${bundled}.map`, join(dist, "cli.js.map"));
console.log(`cli: bundled into ${join(dist, "cli.js")}`);
