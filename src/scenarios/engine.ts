/**
 * The scenario engine: the real ScenarioHook. Rules come from three places,
 * checked in this order for every request: the request's own header flags
 * (`X-Sandbox-Scenario: NAME[,NAME]`, `X-Sandbox-Error: <case>[;status=N][;message=...]`),
 * scenarios activated for the caller's project at run time, and scenarios
 * activated for every project (at start with --scenario, or by an admin call
 * without a bearer token). The first rule that matches and is due fires; one
 * rule per request.
 */
import { ApiError, apiError, catalogue, type ErrorCase, isErrorCase } from "../errors/catalogue.js";
import type { Clock } from "../clock.js";
import type { Random } from "../random.js";
import { errorResponse } from "../pipeline/errors.js";
import type { Exchange, Outgoing } from "../pipeline/exchange.js";
import type { ScenarioHook } from "../pipeline/scenario.js";
import type { Rule, Scenario } from "./model.js";

const GLOBAL = "*";

interface Activation {
  scenario: Scenario;
  /** Matching calls seen per rule, for nth/times/after. */
  seen: number[];
  fired: number[];
}

function activate(scenario: Scenario): Activation {
  return { scenario, seen: scenario.rules.map(() => 0), fired: scenario.rules.map(() => 0) };
}

function bodyValue(body: unknown, dotted: string): unknown {
  let node = body;
  for (const key of dotted.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function matches(rule: Rule, ex: Exchange): boolean {
  const m = rule.match;
  if (m.operationId && !m.operationId.includes(ex.operation?.operationId ?? "")) return false;
  if (m.method && m.method !== ex.method) return false;
  if (m.path && !m.path.test(ex.path)) return false;
  if (m.projectId && m.projectId !== ex.projectId) return false;
  for (const [name, value] of Object.entries(m.headers ?? {})) if (ex.headers[name] !== value) return false;
  for (const [path, value] of Object.entries(m.body ?? {})) if (JSON.stringify(bodyValue(ex.body, path)) !== JSON.stringify(value)) return false;
  return true;
}

/** Counts the call and says whether the rule is due now. */
function due(activation: Activation, index: number, random: Random): boolean {
  const rule = activation.scenario.rules[index];
  const n = ++activation.seen[index];
  const w = rule.when;
  if (w.nth !== undefined && n !== w.nth) return false;
  if (w.after !== undefined && n <= w.after) return false;
  if (w.times !== undefined && activation.fired[index] >= w.times) return false;
  if (w.probability !== undefined && random.float() >= w.probability) return false;
  activation.fired[index]++;
  return true;
}

/** `X-Sandbox-Error: rate_limit_exceeded;status=429;message=slow down` → a one-off rule. */
function ruleFromErrorFlag(flag: string): Rule {
  const [name, ...params] = flag.split(";").map((s) => s.trim());
  const options = Object.fromEntries(params.map((p) => [p.slice(0, p.indexOf("=")).trim(), p.slice(p.indexOf("=") + 1).trim()]));
  if (!isErrorCase(name)) throw apiError("invalid_request", `X-Sandbox-Error names no error case '${name}'; see the catalogue table in docs/scenarios.md.`);
  const status = options.status === undefined ? undefined : Number(options.status);
  if (status !== undefined && !(Number.isInteger(status) && status >= 400 && status <= 599)) {
    throw apiError("invalid_request", `X-Sandbox-Error status must be 400-599, got '${options.status}'.`);
  }
  const phase = options.phase === "after" ? "after" : "before";
  return { name: `header:${name}`, match: {}, when: {}, error: name, status, message: options.message, phase };
}

export class ScenarioEngine implements ScenarioHook {
  private readonly active = new Map<string, Activation[]>();

  constructor(
    private readonly shipped: Map<string, Scenario>,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** Known scenario definitions by name (shipped files and --scenario files). */
  get available(): Scenario[] {
    return [...this.shipped.values()];
  }

  find(name: string): Scenario | undefined {
    return this.shipped.get(name);
  }

  activate(scenario: Scenario, projectId?: string): void {
    const key = projectId ?? GLOBAL;
    const list = (this.active.get(key) ?? []).filter((a) => a.scenario.name !== scenario.name);
    list.push(activate(scenario));
    this.active.set(key, list);
  }

  /** Removes one scenario by name, or all of a scope; returns how many were removed. */
  deactivate(projectId?: string, name?: string): number {
    const key = projectId ?? GLOBAL;
    const list = this.active.get(key) ?? [];
    const kept = name ? list.filter((a) => a.scenario.name !== name) : [];
    this.active.set(key, kept);
    return list.length - kept.length;
  }

  list(projectId?: string): Array<{ name: string; scope: "project" | "global"; source: string; rules: number }> {
    const view = (key: string, scope: "project" | "global") =>
      (this.active.get(key) ?? []).map((a) => ({ name: a.scenario.name, scope, source: a.scenario.source, rules: a.scenario.rules.length }));
    return [...(projectId ? view(projectId, "project") : []), ...view(GLOBAL, "global")];
  }

  private fromHeaders(ex: Exchange): Activation[] {
    const out: Activation[] = [];
    const names = ex.headers["x-sandbox-scenario"];
    if (names) {
      for (const name of names
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean)) {
        const scenario = this.shipped.get(name);
        if (!scenario) throw apiError("invalid_request", `X-Sandbox-Scenario names no known scenario '${name}'; GET /_sandbox/scenarios lists them.`);
        out.push(activate(scenario)); // fresh counters: a header flag is about this one request
      }
    }
    const flag = ex.headers["x-sandbox-error"];
    if (flag) out.push(activate({ name: "x-sandbox-error", source: "header", rules: [ruleFromErrorFlag(flag)] }));
    return out;
  }

  private pick(ex: Exchange): Rule | undefined {
    const sources = [...this.fromHeaders(ex), ...(this.active.get(ex.projectId ?? "") ?? []), ...(this.active.get(GLOBAL) ?? [])];
    for (const activation of sources) {
      for (let i = 0; i < activation.scenario.rules.length; i++) {
        const rule = activation.scenario.rules[i];
        if (matches(rule, ex) && due(activation, i, this.random)) return rule;
      }
    }
    return undefined;
  }

  async around(ex: Exchange, run: () => Promise<Outgoing>): Promise<Outgoing> {
    const rule = this.pick(ex);
    if (!rule) return run();
    ex.scenarios.push(rule.name);
    if (rule.advanceMs) this.clock.advance(rule.advanceMs);
    if (rule.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
    const real = rule.phase === "after" ? await run() : undefined;
    const injected = this.answer(rule, ex);
    if (injected) return injected;
    return real ?? run(); // latency or clock only: the operation runs normally
  }

  /** The injected answer, or undefined when the rule only delays or moves the clock. */
  private answer(rule: Rule, ex: Exchange): Outgoing | undefined {
    if (rule.fault) {
      ex.fault = rule.fault;
      return rule.error ? this.errorOf(rule, ex) : { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, bodyText: "{}" };
    }
    if (rule.raw) return { status: rule.raw.status, headers: { "content-type": rule.raw.contentType, ...rule.headers }, bodyText: rule.raw.body };
    if (rule.error) return this.errorOf(rule, ex);
    return undefined;
  }

  private errorOf(rule: Rule, ex: Exchange): Outgoing {
    const base = apiError(rule.error as never);
    const fields = rule.fields ?? catalogue[rule.error as ErrorCase].injectedFields ?? {};
    const error = new ApiError(rule.status ?? base.status, base.errorType, rule.message ?? base.message, { ...fields }, rule.headers ?? {});
    return errorResponse(error, ex.correlationId);
  }
}
