/**
 * An init file's server accounts are written in bulk (keys derived on helper threads, balances credited without a
 * call per credit); the operations one by one remain the reference. A sandbox whose create operation is another
 * function (here the same one, wrapped) applies the file through them one by one, as before the bulk path: both
 * must leave the very same state, byte for byte and in the same order, and refuse a bad file with the same message.
 * The files mix what the bulk path hands back to the operations: fixed keys, a token named twice (by symbol and by
 * mint or contract), zero amounts, a second network (a wallet with a token account on each), smart accounts owned
 * by the accounts, funding after them.
 */
import { createHash } from "node:crypto";
import bs58 from "bs58";
import { afterAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/index.js";
import { handlers } from "../../src/products/index.js";
import type { Balances, StateFile } from "../../src/state-files/model.js";
import type { AnyHandler } from "../../src/wallet/types.js";
import { withSandbox } from "#test/helpers/sandbox.js";

const started: Sandbox[] = [];
afterAll(async () => {
  for (const s of started) await s.close();
});

const createEvmAccount = handlers.createEvmAccount!;
const oneByOne: Record<string, AnyHandler> = { ...handlers, createEvmAccount: (request, ctx) => createEvmAccount(request, ctx) };

const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const USDC_DEVNET = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const WSOL = "So11111111111111111111111111111111111111112";

/** 120 accounts (enough for the helper threads), every third with a case the bulk path hands to the operations. */
function mixedFile(): StateFile {
  const evmAccounts = Array.from({ length: 60 }, (_, i) => ({
    name: `evm-${i}`,
    ...(i % 7 === 3 ? { privateKey: `0x${(i + 1).toString(16).padStart(64, "0")}` } : {}),
    balances: (i % 3 === 0
      ? { "base-sepolia": { ETH: "0.5", USDC: "1", [USDC_BASE_SEPOLIA]: "2.25" }, base: { ETH: i % 2 ? "0" : "0.25" } }
      : { "base-sepolia": { ETH: `${i}.125`, USDC: "10" } }) as Balances,
  }));
  const solanaAccounts = Array.from({ length: 60 }, (_, i) => ({
    name: `sol-${i}`,
    ...(i % 11 === 5 ? { privateKey: bs58.encode(createHash("sha256").update(`sol-${i}`).digest()) } : {}),
    balances: (i % 3 === 0
      ? { "solana-devnet": { SOL: "1", [WSOL]: "0.5", USDC: "3", [USDC_DEVNET]: "4" }, solana: { USDC: i % 2 ? "0" : "1.5", SOL: "2" } }
      : { "solana-devnet": { SOL: "0", USDC: `${i}.5` } }) as Balances,
  }));
  return {
    clock: { now: "2026-11-01T00:00:00.000Z" },
    evmAccounts,
    solanaAccounts,
    evmSmartAccounts: [{ name: "smart-0", owner: "evm-1", balances: { "base-sepolia": { USDC: "5" } } }],
    fund: [{ network: "solana-devnet", address: "11111111111111111111111111111112", token: "USDC", amount: "7" }],
    projects: [{ name: "second", solanaAccounts: [{ name: "other", balances: { "solana-devnet": { USDC: "1" } } }] }],
  };
}

/** Every project's records as the export writes them, in order (the rest, such as the running clock, is the start's). */
async function exported(init: StateFile, operations?: Record<string, AnyHandler>): Promise<string> {
  const sandbox = await withSandbox({ seed: "bulk-accounts", init, ...(operations ? { handlers: operations } : {}) });
  started.push(sandbox);
  return JSON.stringify(sandbox.exportState().projects!.map((p) => [p.id, p.name, p.credentials, p.records]));
}

/** Where two long texts first differ, with some context (equal texts give ""). */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i === a.length && i === b.length ? "" : `at ${i}: ${a.slice(Math.max(0, i - 150), i + 150)}\n  vs ${b.slice(Math.max(0, i - 150), i + 150)}`;
}

async function refusal(init: StateFile, operations?: Record<string, AnyHandler>): Promise<string> {
  try {
    started.push(await withSandbox({ seed: "bulk-accounts", init, ...(operations ? { handlers: operations } : {}) }));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the file was accepted");
}

describe("an init file's accounts written in bulk", () => {
  it("leave the same state as the operations one by one, record for record and in the same order", async () => {
    const bulk = await exported(mixedFile());
    expect(firstDifference(bulk, await exported(mixedFile(), oneByOne))).toBe("");
    expect(bulk).toContain('"sol-59"');
  });

  it("refuse a bad balance, key or name with the message the operations give, naming the same entry", async () => {
    const cases: Array<(file: StateFile) => void> = [
      (f) => {
        f.evmAccounts![50]!.balances = { "base-sepolia": { ETH: `1${"0".repeat(80)}` } };
      },
      (f) => {
        f.solanaAccounts![40]!.balances = { "solana-devnet": { USDC: "18446744073709.551616" } };
      },
      (f) => {
        f.solanaAccounts![41]!.balances = { "solana-devnet": { USDC: "1.0000001" } };
      },
      (f) => {
        f.solanaAccounts![42]!.balances = { "solana-devnet": { DOGE: "1" } };
      },
      (f) => {
        f.evmAccounts![43]!.balances = { "solana-devnet": { SOL: "1" } };
      },
      (f) => {
        f.solanaAccounts![44]!.name = "sol-2";
      },
      (f) => {
        f.evmAccounts![45]!.privateKey = `0x${"ff".repeat(32)}`;
      },
      (f) => {
        f.evmAccounts![46]!.privateKey = f.evmAccounts![3]!.privateKey!.toUpperCase().replace("0X", "0x");
      },
      (f) => {
        f.solanaAccounts![47]!.privateKey = f.solanaAccounts![5]!.privateKey;
      },
      (f) => {
        f.evmAccounts![48]!.name = "evm-47";
      },
    ];
    for (const change of cases) {
      const file = mixedFile();
      change(file);
      const message = await refusal(file);
      expect(message).toMatch(/\$\.(evm|solana)Accounts\[[45]\d\]/);
      expect(message).toBe(await refusal(file, oneByOne));
    }
  });
});
