/**
 * The built command with --init, --journal and --export-on-exit: seeded state before the first request, a journal
 * file that is appended while the sandbox runs and survives a kill, an export written when it stops, and a bad init
 * file refused before it listens. Needs `npm run build` (skipped without dist/).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, startNode } from "../helpers/cli.js";
import { mintBearer } from "../helpers/tokens.js";

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-cli-state-"));
const INIT = `evmAccounts:
  - name: Funded
    balances:
      base-sepolia: { ETH: "0.1", USDC: "10" }
`;

/** Reads the journal file's lines (each one JSON object). */
const linesOf = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>)
    : [];

/**
 * Polls until `check` holds, or fails after `withinMs`. The file it looks at is written by the sandbox's process, on
 * its own time: 500 turns of this process's event loop (a few milliseconds) were not always enough on a busy machine.
 */
async function eventually(check: () => boolean, withinMs = 30_000): Promise<void> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the condition never held");
}

async function ready(run: ReturnType<typeof startNode>) {
  const line = (await run.waitFor(/cdp-sandbox ready .*\n/, "stdout"))[0];
  const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(line)![1]!;
  return { basePath: field("basePath"), apiKeyId: field("apiKeyId"), apiKeySecret: field("apiKeySecret") };
}

async function get(sandbox: { basePath: string; apiKeyId: string; apiKeySecret: string }, path: string) {
  const url = new URL(`${sandbox.basePath}${path}`);
  const token = await mintBearer(sandbox.apiKeyId, sandbox.apiKeySecret, { method: "GET", host: url.host, path: url.pathname });
  return fetch(url, { headers: { authorization: `Bearer ${token}` } });
}

describe("cdp-sandbox --init --journal --export-on-exit", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("seeds before the first request, appends the journal while running, flushes it and writes the export on SIGTERM", async () => {
    const journal = join(dir, "term.jsonl");
    const exported = join(dir, "export.json");
    const init = join(dir, "init.yaml");
    writeFileSync(init, INIT);
    const run = startNode([cliPath, "--port", "0", "--init", init, "--journal", journal, "--export-on-exit", exported]);
    const sandbox = await ready(run);
    const res = await get(sandbox, "/v2/evm/accounts/by-name/Funded");
    expect(res.status).toBe(200);
    const { address } = (await res.json()) as { address: string };
    await eventually(() => linesOf(journal).length >= 1);
    run.child.kill("SIGTERM");
    const end = await run.finished;
    expect(end.code).toBe(0);
    const entry = linesOf(journal).find((e) => e.operationId === "getEvmAccountByName")!;
    expect(entry.status).toBe(200);
    expect(JSON.parse(entry.response.body).address).toBe(address);
    expect(entry.request.headers.authorization).toMatch(/<signature removed>$/);
    const state = JSON.parse(readFileSync(exported, "utf8"));
    expect(JSON.stringify(state.projects[0].records.evmAccounts)).toContain(address);
  });

  it("leaves every answered request in the journal file when the process is killed outright", async () => {
    const journal = join(dir, "kill.jsonl");
    const run = startNode([cliPath, "--port", "0", "--journal", journal]);
    const sandbox = await ready(run);
    expect((await get(sandbox, "/v2/evm/accounts")).status).toBe(200);
    expect((await get(sandbox, "/v2/solana/accounts")).status).toBe(200);
    await eventually(() => linesOf(journal).length >= 2);
    run.child.kill("SIGKILL");
    await run.finished;
    expect(linesOf(journal).map((e) => e.operationId)).toEqual(["listEvmAccounts", "listSolanaAccounts"]);
  });

  it("refuses a bad init file before listening, naming the file and the place, with exit code 2", async () => {
    const init = join(dir, "bad.yaml");
    writeFileSync(init, "evmAccounts:\n  - name: Funded\n    balances: { base-sepolia: { ETH: 1 } }\n");
    const end = await startNode([cliPath, "--port", "0", "--init", init]).finished;
    expect(end.code).toBe(2);
    expect(end.stderr).toContain(`${init}: $.evmAccounts[0].balances.base-sepolia.ETH`);
    expect(end.stdout).not.toContain("ready");
  });
});
