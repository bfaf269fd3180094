import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    // Tests import the package by its public name, served from source.
    alias: { "cdp-sandbox": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    env: { DISABLE_CDP_USAGE_TRACKING: "true", DISABLE_CDP_ERROR_REPORTING: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
