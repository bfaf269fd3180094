/**
 * /_sandbox/scenarios: turn scenarios on and off at run time. With a bearer
 * token the change applies to that key's project only; without, to every project.
 *   POST   {"name": "rate-limit-exceeded"}  or  {"scenario": {name, rules: [...]}}
 *   GET    → {active: [...], available: [...]}
 *   DELETE (all of the scope) or ?name=NAME
 */
import { apiError } from "../errors/catalogue.js";
import type { ScenarioEngine } from "./engine.js";
import { parseInlineScenario, ScenarioError } from "./parse.js";

export interface ScenarioAdminCall {
  projectId?: string;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
}

export function activateScenario(engine: ScenarioEngine, { projectId, body }: ScenarioAdminCall) {
  let scenario: ReturnType<typeof parseInlineScenario> | undefined;
  if (typeof body.name === "string" && body.scenario === undefined) {
    scenario = engine.find(body.name);
    if (!scenario) throw apiError("not_found", `No scenario is named '${body.name}'; GET /_sandbox/scenarios lists the available ones.`);
  } else if (body.scenario !== undefined) {
    try {
      scenario = parseInlineScenario(body.scenario);
    } catch (error) {
      if (error instanceof ScenarioError) throw apiError("invalid_request", error.message);
      throw error;
    }
  } else {
    throw apiError("invalid_request", 'Give "name" (a shipped scenario) or "scenario" (inline {name, rules}).');
  }
  engine.activate(scenario, projectId);
  return { status: 201, body: { activated: scenario.name, scope: projectId ? "project" : "global", active: engine.list(projectId) } };
}

export function listScenarios(engine: ScenarioEngine, { projectId }: ScenarioAdminCall) {
  return {
    body: {
      active: engine.list(projectId),
      available: engine.available.map((s) => ({ name: s.name, description: s.description, rules: s.rules.length })),
    },
  };
}

export function deactivateScenarios(engine: ScenarioEngine, { projectId, query }: ScenarioAdminCall) {
  const name = typeof query.name === "string" ? query.name : undefined;
  const removed = engine.deactivate(projectId, name);
  if (name && removed === 0) throw apiError("not_found", `Scenario '${name}' is not active in this scope.`);
  return { body: { removed, active: engine.list(projectId) } };
}
