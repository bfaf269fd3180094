#!/usr/bin/env node
/**
 * Prints the scenario catalogue table of docs/scenarios.md from scenarios/*.yaml: name,
 * effect, the per-request header flag, what the official client reports, and
 * what a client should do (the file's leading comment).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const catalogueText = readFileSync(join(root, "src", "errors", "catalogue.ts"), "utf8");
const statusOf = (name) => Number(new RegExp(`\\b${name}: e\\((\\d{3})`).exec(catalogueText)?.[1]);
const typeOf = (name) => new RegExp(`\\b${name}: e\\(\\d{3}, "[^"]*", "([a-z_]+)"\\)`).exec(catalogueText)?.[1] ?? name;

function clientReport(rule) {
  if (rule.error) {
    const status = rule.status ?? statusOf(rule.error);
    const retried = status === 429 || status >= 500 ? "; GET/PUT/DELETE retried 3 times first" : "";
    return `\`APIError\` ${status} \`${typeOf(rule.error)}\`${retried}`;
  }
  if (rule.raw) return rule.raw.status === 403 ? "`NetworkError` `network_ip_blocked`" : `status ${rule.raw.status}, text body`;
  if (rule.fault === "reset") return "`NetworkError` `network_connection_failed` (after 3 retries, any method)";
  if (rule.fault === "hang") return "nothing: the client has no timeout and waits";
  // Headers without a body: the client's HTTP library resolves with an empty answer, which the client wraps.
  if (rule.fault === "close-after-headers") return "`APIError` `unexpected_error` (headers, then no body)";
  if (rule.fault) return "`NetworkError` (connection closed mid-answer)";
  if (rule.advance) return "the normal answer; later calls see the clock moved";
  return "the normal answer, late";
}

const cell = (text) => String(text ?? "").replace(/\|/g, "\\|");
console.log("| scenario | effect | one request only | official client reports | what a client should do |");
console.log("|---|---|---|---|---|");
for (const file of readdirSync(join(root, "scenarios"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()) {
  const text = readFileSync(join(root, "scenarios", file), "utf8");
  const advice = text.match(/^#\s*(.*)$/m)?.[1] ?? "";
  const doc = parse(text);
  const rule = doc.rules[0];
  const flag = rule.error ? `\`X-Sandbox-Error: ${rule.error}\`` : `\`X-Sandbox-Scenario: ${doc.name}\``;
  console.log(`| \`${doc.name}\` | ${cell(doc.description)} | ${flag} | ${clientReport(rule)} | ${cell(advice)} |`);
}
