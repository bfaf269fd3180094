/**
 * `cdp-sandbox run --init --journal`: a production-style program (the official client with no options, viem on the
 * public RPC) finds the named, funded account the init file declares, and every request it made — platform calls
 * and the node's JSON-RPC — is in the journal file after the run. Spawns the built command (skipped without dist/).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, programPath, startNode } from "#test/helpers/cli.js";

describe("cdp-sandbox run --init --journal", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("gives the program its named, funded account, and keeps every request of the run in the journal file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-run-state-"));
    const init = join(dir, "init.yaml");
    const journal = join(dir, "journal.jsonl");
    writeFileSync(init, 'evmAccounts:\n  - name: Funded\n    balances:\n      base-sepolia: { ETH: "0.1", USDC: "10" }\n');
    const { code, stdout, stderr } = await startNode(
      [cliPath, "run", "--init", init, "--journal", journal, "--", process.execPath, programPath("named-funded.mjs")],
      { timeoutMs: 90_000 },
    ).finished;
    expect(code, stderr).toBe(0);
    const seen = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(seen).toMatchObject({ usdc: "10000000", eth: "100000000000000000" });
    const lines = readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines.some((e) => e.operationId === "getEvmAccountByName" && e.status === 200)).toBe(true);
    const balance = lines.find((e) => e.kind === "node" && e.rpcMethod === "eth_getBalance");
    expect(balance, JSON.stringify(lines.map((e) => e.rpcMethod ?? e.operationId))).toBeDefined();
    expect(JSON.parse(balance!.response.body).result).toBe("0x16345785d8a0000");
  });
});
