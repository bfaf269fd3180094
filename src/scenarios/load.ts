/**
 * Loads the shipped scenarios (scenarios/*.yaml|yml|json) and the ones named
 * at start (`--scenario NAME_OR_FILE`). Any bad file stops the start with a
 * message naming file, line and field.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { scenariosDir } from "../paths.js";
import type { Scenario } from "./model.js";
import { parseScenarioFile, ScenarioError } from "./parse.js";

const SCENARIO_FILE = /\.(ya?ml|json)$/;

export function loadShippedScenarios(dir: string = scenariosDir): Map<string, Scenario> {
  const byName = new Map<string, Scenario>();
  if (!existsSync(dir)) return byName;
  for (const file of readdirSync(dir)
    .filter((f) => SCENARIO_FILE.test(f))
    .sort()) {
    const scenario = parseScenarioFile(join(dir, file));
    const existing = byName.get(scenario.name);
    if (existing) throw new ScenarioError(`${join(dir, file)}: scenario name '${scenario.name}' is already used by ${existing.source}`);
    byName.set(scenario.name, scenario);
  }
  return byName;
}

/** `--scenario` values: a shipped name, or a path to a scenario file (which also becomes known by its name). */
export function resolveStartupScenarios(values: string[], known: Map<string, Scenario>): Scenario[] {
  return values.map((value) => {
    if (SCENARIO_FILE.test(value) || value.includes("/")) {
      const scenario = parseScenarioFile(value);
      known.set(scenario.name, scenario);
      return scenario;
    }
    const scenario = known.get(value);
    if (!scenario) throw new ScenarioError(`--scenario ${value}: no shipped scenario has this name and it is not a file path`);
    return scenario;
  });
}
