#!/usr/bin/env node
/**
 * `npm ci` refuses a lock file that lacks any optional dependency a locked package declares, even one for
 * another platform (the darwin and win32 builds of a native tool). `npm install` leaves such entries out
 * when the registry it reached had not yet published them, so the tree installs here and CI fails on a
 * clean clone. This check finds that offline, before CI does: it lists every optional dependency of a
 * locked package that the lock file does not hold.
 */
import { readFileSync } from "node:fs";

const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
const packages = lock.packages ?? {};

/** Where npm would look for `name` required by the package at `from`: its own node_modules, then each parent's. */
function resolves(from, name) {
  let dir = from;
  for (;;) {
    if (packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

const missing = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!resolves(path, name)) missing.push(`${name} (optional dependency of ${path || "the project"})`);
  }
}
if (missing.length > 0) {
  console.error(`package-lock.json lacks ${missing.length} optional dependencies, so \`npm ci\` would refuse it:`);
  for (const line of missing) console.error(`  ${line}`);
  console.error("Pin the package that declares them to a version whose builds for every platform are published, then run `npm install`.");
  process.exit(1);
}
console.log(`package-lock.json: every optional dependency of ${Object.keys(packages).length} locked packages is locked`);
