/**
 * The state file around a sandbox's life: seeding it at start (`--init`), and
 * writing the export when it stops (`--export-on-exit`).
 */
import { mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ScenarioEngine } from "../scenarios/engine.js";
import { resolveStartupScenarios } from "../scenarios/load.js";
import type { Scenario } from "../scenarios/model.js";
import { drawAhead, type Random } from "../random.js";
import { type AccountsAhead, deriveAccountsAhead } from "./accounts.js";
import { type ApplyDeps, applyStateFile } from "./apply.js";
import type { EntryDeps } from "./entries.js";
import { stopWarmThreads, warmDeriveThreads } from "./deriveThreads.js";
import type { StateFile } from "./model.js";
import { checkStateFile, parseStateFile } from "./read.js";

/** An init file (a path, or its content) as the start reads it: the name errors give, and the checked content. */
export interface InitRead {
  (): { file: string; content: StateFile };
  /** The content as parsed, before it is checked (what a step may look at ahead, never apply). */
  parsed(): unknown;
}

/**
 * Reads (or takes) and checks an init file on first call, once however many steps of the start ask for it: a file
 * of 100,000 accounts is ~20 MB to parse and check. Before a large file is read, the threads that will derive its
 * accounts' addresses start, so that they load their libraries meanwhile.
 */
export function initReader(init: string | StateFile): InitRead {
  const file = typeof init === "string" ? init : "init";
  let parsed: { content: unknown } | undefined;
  let read: ReturnType<InitRead> | undefined;
  const parse = () => {
    if (parsed) return parsed.content;
    if (typeof init === "string") warmFor(init);
    parsed = { content: typeof init === "string" ? parseStateFile(init) : init };
    return parsed.content;
  };
  return Object.assign(() => (read ??= { file, content: checkStateFile(file, parse()) }), { parsed: parse });
}

/**
 * Starts the helper threads for a file of more than a few dozen accounts while it is read (a compact JSON account
 * with balances is ~70 bytes: its size says about how many it holds).
 */
function warmFor(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // the read says what is wrong
  }
  if (size > 16 * 1024) warmDeriveThreads(size / 70);
}

/** An init file's start ahead of its application: the source its entries draw from, and what was derived ahead. */
export interface InitAhead {
  random: Random;
  accounts?: AccountsAhead;
  /** Stops the derivation ahead (the start failed before the file was applied). */
  close(): void;
}

/**
 * Reads and checks the init file now, and meanwhile draws its accounts' keys from `random` (the source its entries
 * draw from) and starts deriving their addresses on the helper threads, so that they work while the file is
 * checked and the start-up loads the contract and the rest. The entries then draw from the returned source: the
 * same keys again first, so the file is applied as it would have been, with whatever was derived ahead for them.
 */
export function startInitAhead(init: InitRead, random: Random, deps: Pick<EntryDeps, "handlers">): InitAhead {
  const drawing = drawAhead(random);
  const accounts = deriveAccountsAhead(init.parsed(), drawing.ahead, deps);
  const ahead: InitAhead = { random: drawing.replay(), accounts, close: () => accounts?.derived.close() };
  try {
    init(); // a file that does not check out stops the start here, as it would have later
  } catch (error) {
    ahead.close();
    throw error;
  }
  return ahead;
}

/**
 * Applies an init file: everything or nothing. Then sets the clock and activates the scenarios it names, which
 * live outside the store.
 */
export async function seedState(
  init: InitRead,
  deps: Omit<ApplyDeps, "checkScenarios"> & { engine: ScenarioEngine; shipped: Map<string, Scenario> },
): Promise<void> {
  const { file, content } = init();
  const resolve = (names: string[]) => resolveStartupScenarios(names, deps.shipped);
  const extras = await applyStateFile(file, content, { ...deps, checkScenarios: (names) => void resolve(names) }).finally(() => {
    stopWarmThreads();
    deps.accountsAhead?.derived.close();
  });
  if (extras.clockMs !== undefined) deps.clock.set(extras.clockMs);
  for (const s of extras.scenarios) for (const scenario of resolve(s.names)) deps.engine.activate(scenario, s.projectId);
}

/**
 * What an init file says about the start rather than the state (read before the sandbox is built, and on every
 * start: a data file started before keeps its state, not its start settings).
 */
export function initStartSettings(init: InitRead): { devAccounts?: number } {
  return { devAccounts: init().content.devAccounts };
}

/** Writes a state file whole or not at all (a temporary file renamed over the target). */
export function writeExport(file: string, state: StateFile): void {
  // The folder is made as the journal's is: an export into test-results/ must not fail at the very end of a run.
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  // Owner only: an export holds private keys and API key secrets.
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
