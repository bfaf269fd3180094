/**
 * Scenarios: named lists of rules that make the sandbox answer the way the
 * platform does when something goes wrong. A rule matches a request (which
 * operation, which project, which header or body values, which call) and acts:
 * an error of the catalogue, latency, a network fault, a raw gateway answer,
 * a jump of the clock; in phase `before` (the operation does not happen) or
 * `after` (it happens and is committed, then the error is returned: the
 * platform's "status unknown after a 5xx" case).
 */
import type { Fault } from "../pipeline/exchange.js";

interface RuleMatch {
  operationId?: string[];
  method?: string;
  /** Path relative to /platform; `*` stands for one segment, `**` for any number. */
  path?: RegExp;
  pathText?: string;
  projectId?: string;
  /** Lowercase header name → exact value. */
  headers?: Record<string, string>;
  /** Dotted body path → exact value (compared as JSON). */
  body?: Record<string, unknown>;
}

interface RuleWhen {
  /** Only the nth matching call (1-based). */
  nth?: number;
  /** At most this many times. */
  times?: number;
  /** Skip the first N matching calls. */
  after?: number;
  /** Chance of firing, drawn from the seeded random source. */
  probability?: number;
}

interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface Rule {
  name: string;
  match: RuleMatch;
  when: RuleWhen;
  /** Catalogue case name. */
  error?: string;
  status?: number;
  message?: string;
  /** Extra error body fields, e.g. unauthorizedCapabilities. */
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
  raw?: RawAnswer;
  delayMs?: number;
  fault?: Fault;
  phase: "before" | "after";
  advanceMs?: number;
}

export interface Scenario {
  name: string;
  description?: string;
  /** Where it came from: a file path, "inline" or "header". */
  source: string;
  rules: Rule[];
}

export const FAULTS: readonly Fault[] = ["reset", "hang", "close-after-headers", "truncate"];
