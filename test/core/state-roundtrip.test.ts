/**
 * Round trip, over generated states: init → use → export → init of the export → the same state. The generator is
 * seeded (each case prints its seed), so a failing case can be replayed; every case starts two sandboxes on frozen
 * clocks, so nothing depends on timing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClock, type Sandbox, type StateFile, startSandbox } from "cdp-sandbox";
import { createRandom, type Random } from "../../src/random.js";
import { call } from "../helpers/sandbox.js";

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function start(options: Parameters<typeof startSandbox>[0]): Promise<Sandbox> {
  const sandbox = await startSandbox(options);
  open.push(sandbox);
  return sandbox;
}

const frozen = (iso: string) => createClock(() => Date.parse(iso));
const NETWORKS: Record<string, string[]> = { "base-sepolia": ["ETH", "USDC"], "ethereum-sepolia": ["ETH"], base: ["ETH", "USDC"] };

function amount(r: Random): string {
  return `${r.int(1000)}.${String(r.int(1_000_000)).padStart(6, "0")}`;
}

function balances(r: Random): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [network, tokens] of Object.entries(NETWORKS)) {
    if (r.int(2) === 0) continue;
    out[network] = Object.fromEntries(tokens.filter(() => r.int(2) === 0).map((t) => [t, amount(r)]));
  }
  return out;
}

/** A state file drawn from `r`: EVM and Solana accounts (some with fixed keys), smart accounts, outside funding, a second project. */
function generate(r: Random): StateFile {
  const evm = Array.from({ length: 1 + r.int(4) }, (_, i) => ({
    name: `Evm-${i}-${r.hex(2)}`,
    ...(r.int(2) === 0 ? { privateKey: `0x${"1".padStart(2, "0")}${r.hex(31)}` } : {}),
    balances: balances(r),
  }));
  return {
    evmAccounts: evm,
    solanaAccounts: Array.from({ length: r.int(3) }, (_, i) => ({
      name: `Sol-${i}`,
      balances: r.int(2) ? { "solana-devnet": { SOL: amount(r) } } : undefined,
    })),
    evmSmartAccounts: r.int(2) ? [{ name: "Smart", owner: evm[0]!.name, balances: balances(r) }] : [],
    fund: Array.from({ length: r.int(3) }, () => ({ network: "base-sepolia", address: `0x${r.hex(20)}`, token: "USDC", amount: amount(r) })),
    projects: r.int(2) ? [{ name: `second-${r.hex(2)}`, evmAccounts: [{ name: "Elsewhere" }] }] : [],
  };
}

/** Uses the sandbox as a client would: new accounts, a faucet drip, a signature. */
async function use(sandbox: Sandbox, r: Random): Promise<void> {
  const made = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: `Made-${r.hex(3)}` }, wallet: true });
  expect(made.status).toBe(201);
  const drip = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address: made.body.address, token: "eth" } });
  expect(drip.status).toBe(200);
  if (r.int(2)) expect((await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: {}, wallet: true })).status).toBe(201);
}

describe("an export given back as an init file", () => {
  for (const seed of ["a", "b", "c", "d", "e"]) {
    it(`reproduces the same names, addresses, keys, balances and records (case ${seed})`, async () => {
      const r = createRandom(`roundtrip-${seed}`);
      const first = await start({ init: generate(r), clock: frozen("2026-03-04T05:06:07.000Z"), seed });
      await use(first, r);
      const exported = first.exportState();
      const names = await call(first, "GET", "/platform/v2/evm/accounts");
      await first.close();
      open.splice(0);

      const second = await start({ init: JSON.parse(JSON.stringify(exported)) as StateFile, clock: frozen("2026-01-01T00:00:00.000Z") });
      expect(second.exportState()).toEqual(exported);
      // Seen by a client: the same credentials reach the same accounts at the same addresses.
      expect(second.credentials.apiKeyId).toBe(first.credentials.apiKeyId);
      expect((await call(second, "GET", "/platform/v2/evm/accounts", { credentials: first.credentials })).body).toEqual(names.body);
    });
  }
});
