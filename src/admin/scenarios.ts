/**
 * Scenarios switched on and off at run time. With a bearer token the change
 * applies to that key's project only; without, to every project.
 */
import { apiError, catalogue } from "../errors/catalogue.js";
import type { ScenarioEngine } from "../scenarios/engine.js";
import { parseInlineScenario, ScenarioError } from "../scenarios/parse.js";
import type { AdminContext, AdminHandler } from "./types.js";

function engineOf(ctx: AdminContext): ScenarioEngine {
  if (!ctx.scenarioEngine) throw apiError("not_found", "Scenarios are not available in this sandbox (a custom scenario hook is installed).");
  return ctx.scenarioEngine;
}

export const listSandboxScenarios: AdminHandler<"listSandboxScenarios"> = ({ projectId }, ctx) => {
  const engine = engineOf(ctx);
  return {
    status: 200,
    body: {
      active: engine.list(projectId),
      available: engine.available.map((s) => ({ name: s.name, description: s.description, rules: s.rules.length })),
      errors: Object.entries(catalogue).map(([name, entry]) => ({ name, status: entry.status })),
    },
  };
};

/** A shipped scenario by `name`, or an inline one as `scenario` (the shape of a scenario file). */
export const activateSandboxScenario: AdminHandler<"activateSandboxScenario"> = ({ projectId, body }, ctx) => {
  const engine = engineOf(ctx);
  let scenario: ReturnType<typeof parseInlineScenario> | undefined;
  if ("scenario" in body && body.scenario !== undefined) {
    try {
      scenario = parseInlineScenario(body.scenario);
    } catch (error) {
      if (error instanceof ScenarioError) throw apiError("invalid_request", error.message);
      throw error;
    }
  } else if ("name" in body && typeof body.name === "string") {
    scenario = engine.find(body.name);
    if (!scenario) throw apiError("not_found", `No scenario is named '${body.name}'; GET /_sandbox/scenarios lists the available ones.`);
  } else {
    throw apiError("invalid_request", 'Give "name" (a shipped scenario) or "scenario" (inline {name, rules}).');
  }
  engine.activate(scenario, projectId);
  return { status: 201, body: { activated: scenario.name, scope: projectId ? "project" : "global", active: engine.list(projectId) } };
};

export const deactivateSandboxScenarios: AdminHandler<"deactivateSandboxScenarios"> = ({ projectId, query }, ctx) => {
  const name = typeof query.name === "string" ? query.name : undefined;
  const removed = engineOf(ctx).deactivate(projectId, name);
  if (name && removed === 0) throw apiError("not_found", `Scenario '${name}' is not active in this scope.`);
  return { status: 200, body: { removed, active: engineOf(ctx).list(projectId) } };
};
