#!/usr/bin/env node
/** Prints the README's scenario catalogue table from scenarios/*.yaml (name, effect, what a client should do). */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "scenarios");
console.log("| scenario | effect | what a client should do |");
console.log("|---|---|---|");
for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort()) {
  const text = readFileSync(join(dir, file), "utf8");
  const advice = (text.match(/^#\s*(.*)$/m)?.[1] ?? "").replace(/\|/g, "\\|");
  const doc = parse(text);
  console.log(`| \`${doc.name}\` | ${String(doc.description ?? "").replace(/\|/g, "\\|")} | ${advice} |`);
}
