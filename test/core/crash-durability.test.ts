/**
 * kill -9 in the middle of a burst of writes: the built command with
 * `--data FILE` is killed without warning while creates are in flight,
 * restarted on the same file, and must still have every create it answered
 * 2xx (an acknowledged write is durable), with the file loading cleanly.
 * Three kills at random moments, then a last start that checks them all; after the first, a clean stop writes the
 * snapshot's index, so the later starts read through it.
 * Skipped until `npm run build` has run.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, type Running, startNode } from "#test/helpers/cli.js";
import { call } from "#test/helpers/sandbox.js";

const ROUNDS = 3;
const WRITERS = 8;

/** A started command and the sandbox its ready line describes. */
async function start(file: string): Promise<{ run: Running; sandbox: Sandbox }> {
  const run = startNode([cliPath, "--port", "0", "--data", file], { timeoutMs: 120_000 });
  const [line] = await run.waitFor(/^cdp-sandbox ready .*$/m, "stdout");
  const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  const sandbox = { url: new URL(fields.basePath!).origin, basePath: fields.basePath, credentials: fields } as unknown as Sandbox;
  return { run, sandbox };
}

interface Written {
  kind: "evm" | "solana";
  address: string;
  name: string;
}

const accountsPath = (kind: Written["kind"]) => (kind === "evm" ? "/platform/v2/evm/accounts" : "/platform/v2/solana/accounts");

/** Every acknowledged account, read back: the ones missing or changed. */
async function missing(sandbox: Sandbox, written: Written[]): Promise<string[]> {
  const problems: string[] = [];
  for (const w of written) {
    const res = await call(sandbox, "GET", `${accountsPath(w.kind)}/${w.address}`);
    if (res.status !== 200 || res.body.name !== w.name) problems.push(`${w.kind} ${w.address} (${w.name}): ${res.status} ${res.text}`);
  }
  return problems;
}

/**
 * Writers create accounts until the process dies; it is killed with SIGKILL once `killAfter` creates were answered,
 * plus a random fraction of a millisecond, while the other writers' creates are in flight.
 */
async function burstAndKill(run: Running, sandbox: Sandbox, round: number, killAfter: number, written: Written[]): Promise<number> {
  let acknowledged = 0;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    setTimeout(() => run.child.kill("SIGKILL"), Math.random());
  };
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      const kind = (w + i) % 2 === 0 ? "evm" : "solana";
      const name = `crash-${round}-${w}-${i}`;
      try {
        const res = await call(sandbox, "POST", accountsPath(kind), { body: { name }, wallet: true });
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
        written.push({ kind, address: res.body.address, name });
        if (++acknowledged >= killAfter) kill();
      } catch (error) {
        if (killed) return; // the connection died with the process: this write was never acknowledged
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  const exit = await run.finished;
  expect(exit.signal).toBe("SIGKILL");
  return acknowledged;
}

describe("the built command killed with SIGKILL during writes", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-crash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every write it acknowledged, and its data file loads after each crash", async () => {
    const file = join(dir, "state.json");
    const written: Written[] = [];
    const moments: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { run, sandbox } = await start(file);
      expect(await missing(sandbox, written), `after kill(s) at ${moments.join(", ")} acknowledged creates`).toEqual([]);
      const killAfter = 5 + Math.floor(Math.random() * 60);
      moments.push(killAfter);
      await burstAndKill(run, sandbox, round, killAfter, written);
      if (round === 0) {
        // A clean stop after the first crash writes the snapshot and its index: the later rounds start through the
        // index (the records left unparsed until read) and crash on top of it.
        const clean = await start(file);
        clean.run.child.kill("SIGTERM");
        await clean.run.finished;
        expect(JSON.parse(readFileSync(`${file}.index`, "utf8")).snapshotId).toBe(JSON.parse(readFileSync(file, "utf8")).snapshotId);
      }
    }
    const { run, sandbox } = await start(file);
    try {
      expect(await missing(sandbox, written), `after kills at ${moments.join(", ")} acknowledged creates`).toEqual([]);
      const list = await call(sandbox, "GET", "/platform/v2/evm/accounts?pageSize=100");
      expect(list.status).toBe(200);
    } finally {
      run.child.kill("SIGTERM");
      await run.finished;
    }
  }, 180_000);
});
