/**
 * An init file makes the same accounts whatever the code path: the same seed and file give the same addresses,
 * private keys, token accounts and balances as the sandbox made before its start-up was made fast (libsodium for
 * Solana keys and program addresses, bs58, a lean EVM address). The digest below was taken from the code before
 * that change; a derivation that drifts by one byte changes it. Fixed keys skip the import envelope now, and are
 * refused as importing them was.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/index.js";
import { handlers } from "../../src/products/index.js";
import { withSandbox } from "#test/helpers/sandbox.js";

const started: Sandbox[] = [];
afterAll(async () => {
  for (const s of started) await s.close();
});

const N = 40;
const initFile = {
  clock: { now: "2026-11-01T00:00:00.000Z" },
  evmAccounts: [
    { name: "fixed-evm", privateKey: `0x${"11".repeat(32)}`, balances: { "base-sepolia": { ETH: "1", USDC: "2.5" } } },
    ...Array.from({ length: N }, (_, i) => ({ name: `evm-${i}`, balances: { "base-sepolia": { ETH: "0.1", USDC: "10" } } })),
  ],
  solanaAccounts: [
    { name: "fixed-sol", privateKey: "3JF3sEqM796hk5WFqA6EtmEwJQ9quALszsfJyvXNQKy3", balances: { "solana-devnet": { SOL: "1", USDC: "3" } } },
    ...Array.from({ length: N }, (_, i) => ({ name: `sol-${i}`, balances: { "solana-devnet": { SOL: "0.5", USDC: "7" } } })),
  ],
};

/** What identifies the accounts an init file made: every address and key, every ledger balance, every Solana account's bytes. */
function fingerprint(records: Record<string, Record<string, unknown>>): string {
  const rows: string[] = [];
  for (const r of Object.values(records.evmAccounts ?? {}) as Array<{ name: string; address: string; privateKey: string }>)
    rows.push(`evm ${r.name} ${r.address} ${r.privateKey}`);
  for (const r of Object.values(records.solanaAccounts ?? {}) as Array<{ name: string; address: string; seedHex: string }>)
    rows.push(`sol ${r.name} ${r.address} ${r.seedHex}`);
  for (const [id, r] of Object.entries(records.ledgerBalances ?? {}) as Array<[string, { amount: string }]>) rows.push(`balance ${id} ${r.amount}`);
  for (const [id, r] of Object.entries(records.solanaChainAccounts ?? {}) as Array<[string, { lamports: string; owner: string; data: string }]>)
    rows.push(`account ${id} ${r.lamports} ${r.owner} ${r.data}`);
  return createHash("sha256").update(rows.sort().join("\n")).digest("hex");
}

describe("an init file's accounts", () => {
  it("are the same addresses, keys, token accounts and balances for the same seed and file", async () => {
    const sandbox = await withSandbox({ seed: "same-accounts", init: initFile });
    started.push(sandbox);
    const records = sandbox.exportState().projects![0]!.records!;
    expect(Object.keys(records.evmAccounts!)).toHaveLength(N + 1);
    expect(Object.keys(records.solanaAccounts!)).toHaveLength(N + 1);
    // Each Solana account holds its USDC in an associated token account: one per account, besides the mint.
    const tokenAccounts = Object.values(records.solanaChainAccounts!).filter((a) => (a as { owner: string }).owner.startsWith("Tokenkeg"));
    expect(tokenAccounts).toHaveLength(N + 2);
    expect(fingerprint(records)).toBe("b1881a29ff3e606035f3e379bd3437bae4d039add6bfce8bbc9d2b835addabe4");
  });

  // A file of this many accounts has its keys drawn and derived ahead, while the start-up loads the rest; with the
  // create operations wrapped, the sandbox makes the accounts one operation call each, as it did before any of that.
  const AHEAD = 1040;
  const largeFile = (extra: Record<string, unknown> = {}) => ({
    ...extra,
    evmAccounts: [
      { name: "fixed-evm", privateKey: `0x${"22".repeat(32)}` },
      ...Array.from({ length: AHEAD / 2 }, (_, i) => ({ name: `evm-${i}`, balances: { "base-sepolia": { USDC: "1" } } })),
    ],
    solanaAccounts: Array.from({ length: AHEAD / 2 }, (_, i) => ({ name: `sol-${i}`, balances: { "solana-devnet": { SOL: "0.5", USDC: "7" } } })),
  });
  const throughTheOperations = {
    ...handlers,
    createEvmAccount: (...args: Parameters<typeof handlers.createEvmAccount>) => handlers.createEvmAccount!(...args),
    createSolanaAccount: (...args: Parameters<typeof handlers.createSolanaAccount>) => handlers.createSolanaAccount!(...args),
  };
  const accountsOf = async (options: Parameters<typeof withSandbox>[0]) => {
    const sandbox = await withSandbox(options);
    try {
      const records = sandbox.exportState().projects![0]!.records!;
      return { count: Object.keys(records.evmAccounts!).length + Object.keys(records.solanaAccounts!).length, fingerprint: fingerprint(records) };
    } finally {
      await sandbox.close();
    }
  };

  it("are the same when derived ahead of the file's application as when made one operation at a time", { timeout: 120_000 }, async () => {
    const ahead = await accountsOf({ seed: "ahead", init: largeFile() });
    expect(ahead.count).toBe(AHEAD + 1);
    expect(ahead).toEqual(await accountsOf({ seed: "ahead", init: largeFile(), handlers: throughTheOperations }));
  });

  it("are the same when something drew from the stream before the keys (what was derived ahead is not used)", { timeout: 120_000 }, async () => {
    // The policy's id is drawn before the accounts' keys: the keys drawn ahead, from the stream's start, are not theirs.
    const policies = [{ scope: "account", rules: [{ action: "accept", operation: "signEvmMessage", criteria: [] }] }];
    const ahead = await accountsOf({ seed: "ahead", init: largeFile({ policies }) });
    expect(ahead).toEqual(await accountsOf({ seed: "ahead", init: largeFile({ policies }), handlers: throughTheOperations }));
    expect(ahead.fingerprint).not.toBe((await accountsOf({ seed: "ahead", init: largeFile() })).fingerprint);
  });

  it("of a large file that does not check out are refused as before, whether or not their keys could be drawn ahead", async () => {
    // The last account's balance is no amount (its keys were drawn ahead); the first entry is no account at all.
    const badAmount = largeFile();
    badAmount.solanaAccounts.at(-1)!.balances["solana-devnet"].USDC = "seven";
    await expect(withSandbox({ seed: "ahead", init: badAmount })).rejects.toThrow(/\$\.solanaAccounts\[519\]\.balances\.solana-devnet\.USDC: /);
    const notAnAccount = { ...largeFile(), evmAccounts: [null, ...largeFile().evmAccounts] };
    await expect(withSandbox({ seed: "ahead", init: notAnAccount as never })).rejects.toThrow(/\$\.evmAccounts\[0\]: expected object/);
  });

  it("refuse a fixed key that is no secp256k1 scalar, and a fixed key's name already taken, naming the entry", async () => {
    const zero = `0x${"00".repeat(32)}`;
    await expect(withSandbox({ init: { evmAccounts: [{ name: "ab" }, { name: "zero", privateKey: zero }] } })).rejects.toThrow(
      /\$\.evmAccounts\[1\]: .*valid secp256k1 scalar/,
    );
    await expect(
      withSandbox({ init: { solanaAccounts: [{ name: "same" }, { name: "same", privateKey: "3JF3sEqM796hk5WFqA6EtmEwJQ9quALszsfJyvXNQKy3" }] } }),
    ).rejects.toThrow(/\$\.solanaAccounts\[1\]: A Solana account named same already exists/);
  });
});
