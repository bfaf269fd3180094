import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: [
      // Tests import the package by its public name, served from source, and the shared helpers as #test/…
      { find: /^cdp-sandbox$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
      { find: /^#test\/(.*)\.js$/, replacement: `${fileURLToPath(new URL("./test/", import.meta.url))}$1.ts` },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    env: { DISABLE_CDP_USAGE_TRACKING: "true", DISABLE_CDP_ERROR_REPORTING: "true" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
