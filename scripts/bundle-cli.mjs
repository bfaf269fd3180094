#!/usr/bin/env node
// Part of `npm run build`: bundles the command (dist/cli.bundle.js, which dist/cli.js, what `cdp-sandbox` and `npm
// start` run, loads) into one file. Loading ~1,500 separate modules (viem, express, @solana/kit, ...) was most of the start-up time and ~25 MB
// of memory; one tree-shaken file loads in a fraction of that. dist/index.js, the library, stays as tsc wrote it.
//
// Left out of the bundle: what the sandbox loads only when needed, by file at run time (prism's validator on the
// first request it must explain, json-schema-faker on the first fallback, sql.js and its WASM on the first query),
// and the secp256k1, sodium-native and litesvm native bindings (an addon cannot be bundled).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const bundled = join(dist, "cli.bundle.js");

/**
 * npm nests identical copies of a package when it cannot hoist them (express, send and body-parser each carry
 * mime-types 3.0.2 with its 2,400-entry database, built into lookup tables at load). One copy of each
 * name@version goes into the bundle.
 */
function dedupeIdenticalPackages() {
  const PACKAGE = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+))\/(.*)$/;
  const versions = new Map(); // package root -> version
  const firstRoot = new Map(); // name@version -> package root
  const versionOf = (root) => {
    if (!versions.has(root)) versions.set(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version);
    return versions.get(root);
  };
  return {
    name: "dedupe-identical-packages",
    async resolveId(source, importer, options) {
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      const match = resolved && !resolved.external ? PACKAGE.exec(resolved.id) : null;
      if (!match) return resolved;
      const [, root, name, rest] = match;
      const key = `${name}@${versionOf(root)}`;
      if (!firstRoot.has(key)) firstRoot.set(key, root);
      return firstRoot.get(key) === root ? resolved : { ...resolved, id: join(firstRoot.get(key), rest) };
    },
  };
}

await build({
  input: join(dist, "cli.js"),
  platform: "node",
  plugins: [dedupeIdenticalPackages()],
  external: [
    /^@stoplight\/prism-http(\/|$)/,
    /^json-schema-faker(\/|$)/,
    /^sql\.js(\/|$)/,
    /^secp256k1(\/|$)/,
    /^sodium-native(\/|$)/,
    /^litesvm(\/|$)/,
    /^node:/,
  ],
  logLevel: "warn",
  output: {
    file: bundled,
    format: "esm",
    codeSplitting: false,
    sourcemap: true, // for `node --enable-source-maps dist/cli.js`
  },
});
// dist/cli.js becomes the entry ahead of the bundle: it turns on Node's compile cache (V8's code for the bundle and for
// the modules it loads at run time, kept under the operating system's temporary folder or NODE_COMPILE_CACHE), which
// only covers modules loaded after it is on. A later start then skips compiling them: 0.1–0.2 s of a ~2 s start here.
writeFileSync(
  join(dist, "cli.js"),
  `#!/usr/bin/env node
// The command's entry (scripts/bundle-cli.mjs writes it): Node's compile cache on, then the bundled command.
import module from "node:module";
module.enableCompileCache?.();
await import("./cli.bundle.js");
`,
);
rmSync(join(dist, "cli.js.map"), { force: true });
console.log(`cli: bundled into ${bundled}, started by ${join(dist, "cli.js")}`);
