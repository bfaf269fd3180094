/**
 * The helper threads derive what the main thread would: EVM addresses (checked against viem), Solana addresses
 * (against noble's ed25519) and associated token accounts (against @solana/kit's program-derived addresses), for
 * both token programs; and they did work, rather than the main thread standing in for them.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { address, getAddressEncoder, getBase58Decoder, getProgramDerivedAddress } from "@solana/kit";
import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it, vi } from "vitest";
import { associatedTokenAddress } from "../chain/solana/addresses.js";
import { ASSOCIATED_TOKEN_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../chain/solana/tokens.js";
import { evmAddressOf } from "../crypto/evm.js";
import { solanaKeyFromSeed } from "../crypto/solana.js";
import { aliveDeriveThreads, deriveAccounts, stopWarmThreads, type TokenAccountKey, warmDeriveThreads } from "./deriveThreads.js";

const bytes = (label: string, i: number) => new Uint8Array(createHash("sha256").update(`${label}/${i}`).digest());
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const OTHER_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("deriving an init file's accounts on helper threads", () => {
  it("gives the main thread's addresses and token accounts, and independent libraries agree", async () => {
    const n = 1200; // more than one message per thread
    const evmKeys = Array.from({ length: n }, (_, i) => `0x${Buffer.from(bytes("evm", i)).toString("hex")}` as const);
    const solanaSeeds = Array.from({ length: n }, (_, i) => bytes("solana", i));
    const tokenAccounts: TokenAccountKey[][] = solanaSeeds.map((_, i) =>
      i % 3 === 0 ? [] : [{ mint: USDC, program: TOKEN_PROGRAM }, ...(i % 2 ? [{ mint: OTHER_MINT, program: TOKEN_2022_PROGRAM }] : [])],
    );
    const derived = deriveAccounts({ evmKeys: [...evmKeys, undefined], solanaSeeds: [...solanaSeeds, undefined], tokenAccounts: [...tokenAccounts, []] });
    try {
      for (let i = 0; i < n; i++) {
        expect(await derived.evmAddress(i)).toBe(evmAddressOf(evmKeys[i]!));
        const solana = await derived.solana(i);
        const address = solanaKeyFromSeed(solanaSeeds[i]!).address;
        expect(solana.address).toBe(address);
        expect(solana.tokenAccounts).toEqual(tokenAccounts[i]!.map((t) => associatedTokenAddress(address, t.mint, t.program)));
      }
      // The main thread derives the next job itself while it waits; the threads derive the others.
      expect(derived.derivedOnThreads()).toBeGreaterThan(0);
      // Independent libraries, on a sample: viem, noble, @solana/kit.
      const encoder = getAddressEncoder();
      for (let i = 1; i < n; i += 97) {
        expect(await derived.evmAddress(i)).toBe(privateKeyToAddress(evmKeys[i]!));
        const solana = await derived.solana(i);
        expect(solana.address).toBe(getBase58Decoder().decode(ed25519.getPublicKey(solanaSeeds[i]!)));
        expect(Buffer.from(solana.publicKey).equals(Buffer.from(ed25519.getPublicKey(solanaSeeds[i]!)))).toBe(true);
        for (const [k, t] of tokenAccounts[i]!.entries()) {
          const [pda] = await getProgramDerivedAddress({
            programAddress: address(ASSOCIATED_TOKEN_PROGRAM),
            seeds: [encoder.encode(address(solana.address)), encoder.encode(address(t.program)), encoder.encode(address(t.mint))],
          });
          expect(solana.tokenAccounts[k]).toBe(pda);
        }
      }
    } finally {
      derived.close();
    }
  });

  it("takes the threads started ahead (while the file is read), which derive the same", async () => {
    warmDeriveThreads(100);
    const evmKeys = Array.from({ length: 100 }, (_, i) => `0x${Buffer.from(bytes("warm", i)).toString("hex")}` as const);
    const derived = deriveAccounts({ evmKeys, solanaSeeds: [], tokenAccounts: [] });
    try {
      for (const [i, key] of evmKeys.entries()) expect(await derived.evmAddress(i)).toBe(privateKeyToAddress(key));
      expect(derived.derivedOnThreads()).toBe(evmKeys.length);
    } finally {
      derived.close();
    }
  });

  it("stops threads started ahead while they still load their libraries, and every thread of a start exits", async () => {
    // Stopped at once, the threads are still loading their native libraries: they exit once loaded, never
    // terminated inside a native call (which can abort the process, and with it this file's run).
    for (let round = 0; round < 5; round++) {
      warmDeriveThreads(100_000);
      expect(aliveDeriveThreads()).toBeGreaterThan(0);
      stopWarmThreads();
    }
    await vi.waitFor(() => expect(aliveDeriveThreads()).toBe(0), { timeout: 30_000, interval: 20 });
    // A start's threads stop when they have no job left, or when it closes them in the middle of their jobs.
    const evmKeys = Array.from({ length: 5_000 }, (_, i) => `0x${Buffer.from(bytes("stop", i)).toString("hex")}` as const);
    const whole = deriveAccounts({ evmKeys, solanaSeeds: [], tokenAccounts: [] });
    expect(await whole.evmAddress(evmKeys.length - 1)).toBe(privateKeyToAddress(evmKeys.at(-1)!));
    whole.close();
    const halfway = deriveAccounts({ evmKeys, solanaSeeds: [], tokenAccounts: [] });
    expect(await halfway.evmAddress(0)).toBe(privateKeyToAddress(evmKeys[0]!));
    halfway.close();
    await vi.waitFor(() => expect(aliveDeriveThreads()).toBe(0), { timeout: 30_000, interval: 20 });
  });

  it("sends the EVM keys out before the Solana part is made, and derives that part the same", async () => {
    const evmKeys = Array.from({ length: 700 }, (_, i) => `0x${Buffer.from(bytes("later-evm", i)).toString("hex")}` as const);
    const solanaSeeds = Array.from({ length: 600 }, (_, i) => bytes("later", i));
    const tokenAccounts: TokenAccountKey[][] = solanaSeeds.map(() => [{ mint: USDC, program: TOKEN_PROGRAM }]);
    let made = 0;
    const derived = deriveAccounts(
      { evmKeys, solanaSeeds: [], tokenAccounts: [] },
      {
        count: solanaSeeds.length,
        make: () => {
          made++;
          return { solanaSeeds, tokenAccounts };
        },
      },
    );
    try {
      expect(made).toBe(1);
      for (const [i, key] of evmKeys.entries()) expect(await derived.evmAddress(i)).toBe(privateKeyToAddress(key));
      for (const [i, seed] of solanaSeeds.entries()) {
        const solana = await derived.solana(i);
        expect(solana.address).toBe(getBase58Decoder().decode(ed25519.getPublicKey(seed)));
        expect(solana.tokenAccounts).toEqual([associatedTokenAddress(solana.address, USDC, TOKEN_PROGRAM)]);
      }
      expect(derived.derivedOnThreads()).toBeGreaterThan(0);
    } finally {
      derived.close();
    }
    // Without EVM keys, the thread gets the Solana jobs once they are made.
    const solanaOnly = deriveAccounts(
      { evmKeys: [], solanaSeeds: [], tokenAccounts: [] },
      { count: solanaSeeds.length, make: () => ({ solanaSeeds, tokenAccounts }) },
    );
    try {
      for (const [i, seed] of solanaSeeds.entries()) expect((await solanaOnly.solana(i)).address).toBe(getBase58Decoder().decode(ed25519.getPublicKey(seed)));
      expect(solanaOnly.derivedOnThreads()).toBeGreaterThan(0);
    } finally {
      solanaOnly.close();
    }
  });

  it("derives a few accounts on the main thread, without starting threads", async () => {
    const derived = deriveAccounts({
      evmKeys: [`0x${"11".repeat(32)}`],
      solanaSeeds: [bytes("solana", 0)],
      tokenAccounts: [[{ mint: USDC, program: TOKEN_PROGRAM }]],
    });
    expect(await derived.evmAddress(0)).toBe(privateKeyToAddress(`0x${"11".repeat(32)}`));
    expect((await derived.solana(0)).tokenAccounts).toHaveLength(1);
    expect(derived.derivedOnThreads()).toBe(0);
  });
});
