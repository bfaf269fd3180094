/**
 * The command line refuses a scenario file with a mistake: exit code 2 and a
 * message naming the file, the line and the field. Runs the built CLI
 * (npm ci builds it through `prepare`).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { BUILD_TIMEOUT_MS, ensureBuilt } from "#test/helpers/cli.js";
import { packageRoot } from "../../src/paths.js";

const cli = join(packageRoot, "dist", "cli.js");

describe("cdp-sandbox --scenario FILE", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("exits with code 2 and names file, line and field of a broken scenario", () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-scenario-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "broken.yaml");
    writeFileSync(file, ["name: broken", "rules:", "  - error: rate_limit_exceeded", "  - error: no_such_error_case", ""].join("\n"));
    const result = spawnSync(process.execPath, [cli, "--port", "0", "--scenario", file], { encoding: "utf8", timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("broken.yaml:4");
    expect(result.stderr).toMatch(/error/);
  });

  it("exits with code 2 for an unknown scenario name", () => {
    const result = spawnSync(process.execPath, [cli, "--port", "0", "--scenario", "no-such-scenario"], { encoding: "utf8", timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("no-such-scenario");
  });
});
