import { configDefaults, defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

/**
 * Test files that need a module graph of their own: they mock a module or define browser globals (vi.mock replaces it only where it is
 * imported after the mock, so a module another file loaded first would keep the real one), or they assert
 * what the process looks like before any sandbox starts (prism's Ajv classes are patched once per process).
 */
const ISOLATED = [
  "src/contract/ajv.test.ts", // asserts the plain Ajv class, before preparePrismAjv patches it for the process
  "src/products/webhooks/send.test.ts", // vi.mock("node:dns")
  // defines browser globals (window, localStorage) for the embedded-wallet client: other clients (OnchainKit's
  // Farcaster SDK) would then take the worker for a browser
  "test/interop/cdp-core-sign-in.test.ts",
  "test/interop/cdp-core-delegation.test.ts",
  "test/core/attacks-mfa.test.ts",
];

export default defineConfig({
  resolve: {
    alias: [
      // Tests import the package by its public name, served from source, and the shared helpers as #test/…
      { find: /^cdp-sandbox$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
      { find: /^cdp-sandbox\/testing$/, replacement: fileURLToPath(new URL("./src/testing.ts", import.meta.url)) },
      { find: /^#test\/(.*)\.js$/, replacement: `${fileURLToPath(new URL("./test/", import.meta.url))}$1.ts` },
    ],
  },
  test: {
    env: { DISABLE_CDP_USAGE_TRACKING: "true", DISABLE_CDP_ERROR_REPORTING: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most files share their worker's modules (importing the sandbox's graph once per worker, not once per
    // file: import was a third of the suite's time); the few that need a fresh graph get one each.
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
          // Says once whether the browser tests run (they are all in this project).
          globalSetup: ["test/globalSetup.ts"],
        },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED, isolate: true } },
    ],
  },
});
