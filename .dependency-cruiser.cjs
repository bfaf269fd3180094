/**
 * The layers of src/ and the rule that arrows point down only:
 *   cli/run/tools/index/app → state-files → admin, node, scenarios → pipeline → domains → chain →
 *   store, clock, random, crypto, errors, contract, auth, projects, paths.
 * A module that needs something from above takes it as a parameter or an
 * interface it defines. The register hook (register.ts, register/) stands
 * apart: it imports nothing else of src/. Tests may import anything. `npm run lint` runs this.
 */
const layer = (folders) => `^src/(${folders.join("|")})(/|\\.ts$)`;
const BASE = ["store", "clock", "random", "crypto", "errors", "contract", "paths", "lookup"];
const ABOVE_DOMAINS = ["pipeline", "admin", "node", "scenarios", "state-files", "app", "index", "cli", "cli-early", "run", "register", "tools"];

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "Import circles hide which module owns what.", from: {}, to: { circular: true } },
    {
      name: "chain-points-down",
      severity: "error",
      comment: "The simulated chain knows nothing of the platform's areas, the request pipeline or HTTP.",
      from: { path: "^src/chain/", pathNot: "\\.test\\.ts$" },
      to: { path: [layer(["domains", "projects", "auth", ...ABOVE_DOMAINS]), "^node_modules/express/"] },
    },
    {
      name: "domains-point-down",
      severity: "error",
      comment: "Handlers never see Express objects, the pipeline, the admin API or the node.",
      from: { path: "^src/domains/", pathNot: "\\.test\\.ts$" },
      to: { path: [layer(ABOVE_DOMAINS), "^node_modules/express/"] },
    },
    {
      name: "base-points-down",
      severity: "error",
      comment: "Store, clock, randomness, cryptography, errors and the contract are the ground floor.",
      from: { path: layer(BASE), pathNot: "\\.test\\.ts$" },
      to: { path: layer(["chain", "domains", "projects", "auth", ...ABOVE_DOMAINS]) },
    },
    {
      name: "auth-and-projects-point-down",
      severity: "error",
      comment: "Credentials and token checks serve the pipeline, the node and the admin API alike.",
      from: { path: layer(["auth", "projects"]), pathNot: "\\.test\\.ts$" },
      to: { path: layer(["chain", "domains", ...ABOVE_DOMAINS]) },
    },
    {
      name: "register-hook-stands-alone",
      severity: "error",
      comment:
        "The register hook loads into every Node program `cdp-sandbox run` starts: only node: built-ins and its own small modules (docs/register.md: < 50 ms).",
      from: { path: "^src/register(/|\\.ts$)" },
      to: { path: "^src/", pathNot: "^src/register(/|\\.ts$)" },
    },
    {
      name: "ui-stands-alone",
      severity: "error",
      comment:
        "The dashboard runs in a browser and talks to the sandbox only over the admin API: it imports its own modules and the admin API's generated types.",
      from: { path: "^src/ui/" },
      to: { path: "^src/", pathNot: ["^src/ui/", "^src/contract/generated/admin-types\\.ts$"] },
    },
    {
      name: "pipeline-points-down",
      severity: "error",
      comment: "The pipeline runs under the admin API, the node and the scenario engine, never the other way.",
      from: { path: "^src/pipeline/", pathNot: "\\.test\\.ts$" },
      to: { path: layer(["admin", "node", "scenarios", "app", "index", "cli", "cli-early", "run", "register", "tools"]) },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.ts$", "^test/", "^src/contract/generated/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
