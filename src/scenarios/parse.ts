/**
 * Reads scenario definitions (YAML or JSON) and checks them field by field,
 * so that a mistake is reported with its file, line and field instead of
 * surfacing later as a strange answer.
 */
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";
import { parseDuration } from "../clock.js";
import { isErrorCase } from "../errors/catalogue.js";
import { FAULTS, type Rule, type Scenario } from "./model.js";

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScenarioError";
  }
}

type Where = (path: Array<string | number>) => string;

const RULE_KEYS = new Set(["name", "match", "when", "error", "status", "message", "fields", "headers", "raw", "delay", "fault", "phase", "advance"]);
const MATCH_KEYS = new Set(["operationId", "method", "path", "project", "headers", "body"]);
const WHEN_KEYS = new Set(["nth", "times", "after", "probability"]);

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split("/")
    .map((seg) => (seg === "**" ? "**" : seg.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")))
    .join("/")
    .replace(/\/?\*\*/g, "(?:/.*)?");
  return new RegExp(`^${escaped}/?$`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks one scenario object; `where` turns a field path into "file:line field". */
function checkScenario(value: unknown, source: string, where: Where): Scenario {
  const fail = (path: Array<string | number>, problem: string): never => {
    throw new ScenarioError(`${where(path)}: ${problem}`);
  };
  if (!isObject(value)) fail([], "a scenario must be an object with name and rules");
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v))
    if (!["name", "description", "rules"].includes(key)) fail([key], `unknown field '${key}' (expected name, description, rules)`);
  if (typeof v.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(v.name)) fail(["name"], "name must be lowercase letters, digits and hyphens");
  if (!Array.isArray(v.rules) || v.rules.length === 0) fail(["rules"], "rules must be a non-empty list");
  const rules = (v.rules as unknown[]).map((r, i) => checkRule(r, `${v.name as string}#${i + 1}`, fail, i));
  return { name: v.name as string, description: typeof v.description === "string" ? v.description : undefined, source, rules };
}

function checkRule(value: unknown, defaultName: string, failAt: (p: Array<string | number>, m: string) => never, index: number): Rule {
  const fail = (path: Array<string | number>, problem: string): never => failAt(["rules", index, ...path], problem);
  if (!isObject(value)) fail([], "a rule must be an object");
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) if (!RULE_KEYS.has(key)) fail([key], `unknown field '${key}' (expected one of ${[...RULE_KEYS].join(", ")})`);
  const rule: Rule = { name: typeof r.name === "string" ? r.name : defaultName, match: {}, when: {}, phase: "before" };

  if (r.match !== undefined) {
    if (!isObject(r.match)) fail(["match"], "match must be an object");
    const m = r.match as Record<string, unknown>;
    for (const key of Object.keys(m)) if (!MATCH_KEYS.has(key)) fail(["match", key], `unknown field '${key}' (expected ${[...MATCH_KEYS].join(", ")})`);
    if (m.operationId !== undefined) {
      const ids = Array.isArray(m.operationId) ? m.operationId : [m.operationId];
      if (!ids.every((id) => typeof id === "string")) fail(["match", "operationId"], "operationId must be a string or a list of strings");
      rule.match.operationId = ids as string[];
    }
    if (m.method !== undefined) {
      if (typeof m.method !== "string") fail(["match", "method"], "method must be a string");
      rule.match.method = (m.method as string).toUpperCase();
    }
    if (m.path !== undefined) {
      if (typeof m.path !== "string" || !m.path.startsWith("/")) fail(["match", "path"], "path must start with / (relative to /platform)");
      rule.match.path = globToRegExp(m.path as string);
      rule.match.pathText = m.path as string;
    }
    if (m.project !== undefined) {
      if (typeof m.project !== "string") fail(["match", "project"], "project must be a project id");
      rule.match.projectId = m.project as string;
    }
    if (m.headers !== undefined) {
      if (!isObject(m.headers) || !Object.values(m.headers).every((h) => typeof h === "string"))
        fail(["match", "headers"], "headers must map names to string values");
      rule.match.headers = Object.fromEntries(Object.entries(m.headers as Record<string, string>).map(([k, h]) => [k.toLowerCase(), h]));
    }
    if (m.body !== undefined) {
      if (!isObject(m.body)) fail(["match", "body"], "body must map dotted field paths to values");
      rule.match.body = m.body as Record<string, unknown>;
    }
  }

  if (r.when !== undefined) {
    if (!isObject(r.when)) fail(["when"], "when must be an object");
    const w = r.when as Record<string, unknown>;
    for (const key of Object.keys(w)) if (!WHEN_KEYS.has(key)) fail(["when", key], `unknown field '${key}' (expected nth, times, after, probability)`);
    for (const key of ["nth", "times", "after"] as const) {
      if (w[key] !== undefined) {
        if (!Number.isInteger(w[key]) || (w[key] as number) < (key === "after" ? 0 : 1))
          fail(["when", key], `${key} must be a whole number${key === "after" ? "" : " of at least 1"}`);
        rule.when[key] = w[key] as number;
      }
    }
    if (w.probability !== undefined) {
      if (typeof w.probability !== "number" || w.probability < 0 || w.probability > 1)
        fail(["when", "probability"], "probability must be a number from 0 to 1");
      rule.when.probability = w.probability as number;
    }
  }

  if (r.error !== undefined) {
    if (typeof r.error !== "string" || !isErrorCase(r.error)) fail(["error"], `error must be a case of the error catalogue, got ${JSON.stringify(r.error)}`);
    rule.error = r.error as string;
  }
  if (r.status !== undefined) {
    if (!Number.isInteger(r.status) || (r.status as number) < 400 || (r.status as number) > 599)
      fail(["status"], "status must be an HTTP error status (400-599)");
    rule.status = r.status as number;
  }
  if (r.message !== undefined) {
    if (typeof r.message !== "string") fail(["message"], "message must be a string");
    rule.message = r.message as string;
  }
  if (r.fields !== undefined) {
    if (!isObject(r.fields)) fail(["fields"], "fields must be an object of extra error body fields");
    rule.fields = r.fields as Record<string, unknown>;
  }
  if (r.headers !== undefined) {
    if (!isObject(r.headers) || !Object.values(r.headers).every((h) => typeof h === "string")) fail(["headers"], "headers must map names to string values");
    rule.headers = Object.fromEntries(Object.entries(r.headers as Record<string, string>).map(([k, h]) => [k.toLowerCase(), h]));
  }
  if (r.raw !== undefined) {
    const raw = r.raw as Record<string, unknown>;
    if (!isObject(raw) || !Number.isInteger(raw.status) || typeof raw.body !== "string")
      fail(["raw"], "raw needs status (integer) and body (string), and may give contentType");
    rule.raw = { status: raw.status as number, body: raw.body as string, contentType: typeof raw.contentType === "string" ? raw.contentType : "text/plain" };
  }
  if (r.delay !== undefined) {
    const ms = typeof r.delay === "string" || typeof r.delay === "number" ? parseDuration(r.delay) : undefined;
    if (ms === undefined || ms < 0) fail(["delay"], 'delay must be a duration such as "250ms" or "2s"');
    rule.delayMs = ms;
  }
  if (r.advance !== undefined) {
    const ms = typeof r.advance === "string" || typeof r.advance === "number" ? parseDuration(r.advance) : undefined;
    if (ms === undefined) fail(["advance"], 'advance must be a duration such as "16m"');
    rule.advanceMs = ms;
  }
  if (r.fault !== undefined) {
    if (!FAULTS.includes(r.fault as never)) fail(["fault"], `fault must be one of ${FAULTS.join(", ")}`);
    rule.fault = r.fault as Rule["fault"];
  }
  if (r.phase !== undefined) {
    if (r.phase !== "before" && r.phase !== "after") fail(["phase"], "phase must be before or after");
    rule.phase = r.phase as "before" | "after";
  }
  if (rule.status !== undefined && !rule.error) fail(["status"], "status needs an error to go with it");
  if (rule.error && rule.raw) fail(["raw"], "give either error or raw, not both");
  if (!rule.error && !rule.raw && !rule.fault && rule.delayMs === undefined && rule.advanceMs === undefined) {
    fail([], "a rule must do something: error, raw, fault, delay or advance");
  }
  return rule;
}

/** Parses a scenario file (YAML or JSON), naming file, line and field on any mistake. */
function parseScenarioText(text: string, file: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = lines.linePos(e.pos[0]);
    throw new ScenarioError(`${file}:${pos.line}: ${e.message.split("\n")[0]}`);
  }
  const where: Where = (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number] } | undefined;
      if (node?.range) return `${file}:${lines.linePos(node.range[0]).line} ${path.join(".") || "(top level)"}`;
    }
    return `${file} ${path.join(".")}`;
  };
  return checkScenario(doc.toJS(), file, where);
}

export function parseScenarioFile(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ScenarioError(`${file}: cannot be read (${(error as Error).message})`);
  }
  return parseScenarioText(text, file);
}

/** Inline rules from the admin API: same checks, field paths instead of lines. */
export function parseInlineScenario(value: unknown): Scenario {
  return checkScenario(value, "inline", (path) => `scenario ${path.join(".") || "(top level)"}`);
}
