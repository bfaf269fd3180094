/**
 * The layers of src/ and the rule that arrows point down only:
 *   cli/run/tools/index/app → state-files, admin, node, scenarios → pipeline → products → wallet → chain →
 *   store, clock, random, crypto, errors, contract, auth, projects, paths.
 * A module that needs something from above takes it as a parameter or an
 * interface it defines. The register hook (register.ts, register/) stands
 * apart: it imports nothing else of src/. Tests may import anything. `npm run lint` runs this.
 */
const layer = (folders) => `^src/(${folders.join("|")})(/|\\.ts$)`;
const BASE = ["store", "clock", "byTurns", "random", "crypto", "errors", "contract", "paths", "lookup"];
/**
 * The platform's areas floor by floor, from the bottom: the wallet core (src/wallet/), then the products built on
 * it (src/products/). An area imports only areas on the floors beneath its own: never one above, never a
 * neighbour on its floor. A new area takes the lowest floor whose areas it does not import.
 */
const AREA_FLOORS = [
  ["wallet/types", "wallet/shared"],
  ["wallet/records", "wallet/events"],
  ["wallet/policies"],
  ["wallet/server-accounts"],
  ["wallet/evm-accounts", "wallet/solana-accounts"],
  ["wallet/evm-smart-accounts"],
  ["wallet/spend-permissions", "wallet/identity"],
  ["wallet/end-users"],
  ["products/shared"],
  [
    "products/webhooks",
    "products/customers",
    "products/payment-methods",
    "products/x402",
    "products/swaps",
    "products/onramp",
    "products/sql",
    "products/token-balances",
    "products/faucets",
  ],
  ["products/accounts", "products/borrowing"],
  ["products/transfers"],
  ["products/deposit-destinations", "products/payment-sessions"],
  ["products/disbursements"],
  ["products/index", "products/settle", "products/sandboxContracts"],
];
const areaFloorRules = AREA_FLOORS.flatMap((floor, i) =>
  floor.map((area) => ({
    name: `area-floor:${area}`,
    severity: "error",
    comment: `${area} (floor ${i} of AREA_FLOORS) imports only areas on the floors beneath it.`,
    from: { path: layer([area]), pathNot: "\\.test\\.ts$" },
    to: {
      path: layer(
        AREA_FLOORS.slice(i)
          .flat()
          .filter((other) => other !== area),
      ),
    },
  })),
);
const ABOVE_DOMAINS = ["pipeline", "admin", "node", "scenarios", "state-files", "app", "index", "cli", "cli-early", "run", "register", "tools"];

module.exports = {
  forbidden: [
    ...areaFloorRules,
    {
      name: "areas-see-the-chain-through-its-faces",
      severity: "error",
      comment:
        "The wallet core and the products reach the chain through its three faces: the shared ledger (chain/index.ts), chain/evm/index.ts and chain/solana/index.ts; never the engines behind them or their storage keys.",
      from: { path: "^src/(wallet|products)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^src/chain/", pathNot: "^src/chain/(index|evm/index|solana/index)\\.ts$" },
    },
    {
      name: "wallet-beneath-products",
      severity: "error",
      comment: "The wallet core knows no product: a product plugs into it through a parameter or an interface the core defines (HandlerContext's contracts).",
      from: { path: "^src/wallet/", pathNot: "\\.test\\.ts$" },
      to: { path: "^src/products/" },
    },
    { name: "no-circular", severity: "error", comment: "Import circles hide which module owns what.", from: {}, to: { circular: true } },
    {
      name: "chain-points-down",
      severity: "error",
      comment: "The simulated chain knows nothing of the platform's areas, the request pipeline or HTTP.",
      from: { path: "^src/chain/", pathNot: "\\.test\\.ts$" },
      to: { path: [layer(["wallet", "products", "projects", "auth", ...ABOVE_DOMAINS]), "^node_modules/express/"] },
    },
    {
      name: "areas-point-down",
      severity: "error",
      comment: "Handlers never see Express objects, the pipeline, the admin API or the node.",
      from: { path: "^src/(wallet|products)/", pathNot: "\\.test\\.ts$" },
      to: { path: [layer(ABOVE_DOMAINS), "^node_modules/express/"] },
    },
    {
      name: "base-points-down",
      severity: "error",
      comment: "Store, clock, randomness, cryptography, errors and the contract are the ground floor.",
      from: { path: layer(BASE), pathNot: "\\.test\\.ts$" },
      to: { path: layer(["chain", "wallet", "products", "projects", "auth", ...ABOVE_DOMAINS]) },
    },
    {
      name: "auth-and-projects-point-down",
      severity: "error",
      comment: "Credentials and token checks serve the pipeline, the node and the admin API alike.",
      from: { path: layer(["auth", "projects"]), pathNot: "\\.test\\.ts$" },
      to: { path: layer(["chain", "wallet", "products", ...ABOVE_DOMAINS]) },
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
      name: "admin-and-state-files-apart",
      severity: "error",
      comment:
        "The admin API and the state files (--init, export) sit side by side: what both need lies beneath them (chain/credit.ts), and the admin API gets the exporter from the assembly.",
      from: { path: "^src/(admin|state-files)/", pathNot: "\\.test\\.ts$" },
      // $1 is the folder the import starts from: within it, imports are fine
      to: { path: "^src/(admin|state-files)/", pathNot: "^src/$1/" },
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
