/**
 * Ledger arithmetic: across thousands of random operations — native sends,
 * ERC-20 transfers, approvals and transferFroms (some reverting), refusals for
 * lack of funds, SOL and SPL transfers — no asset is created or lost: every
 * asset's total equals what was minted, less the gas and fees burnt.
 */
import { createHash } from "node:crypto";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { createClock } from "../clock.js";
import { ApiError } from "../errors/catalogue.js";
import { createRandom } from "../random.js";
import { toBase58 } from "../crypto/solana.js";
import { Store, type PendingTx } from "../store/store.js";
import { applyEvmTransaction, ledgerTxs } from "./evm/ledger.js";
import { balanceOf, credit } from "./balances.js";
import { applySolanaTransaction, LAMPORTS_PER_SIGNATURE } from "./solana/ledger.js";
import { solanaTokenBySymbol } from "./solana/tokens.js";
import { evmTokenBySymbol } from "./tokens.js";

const NETWORK = "base-sepolia";

async function freshProject(): Promise<{ store: Store; tx: PendingTx }> {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: new Date(0).toISOString(), settings: {}, apiKeys: [], data: {} });
  return { store, tx: store.begin("p") };
}

const sum = (tx: PendingTx, network: string, asset: string, holders: string[]) => holders.reduce((total, h) => total + balanceOf(tx, network, asset, h), 0n);

describe("the ledger conserves value", () => {
  it("keeps ETH and USDC totals exact across 3,000 random EVM operations, reverts and refusals included", async () => {
    const { tx } = await freshProject();
    const clock = createClock();
    const random = createRandom("ledger-conservation");
    const usdc = evmTokenBySymbol(NETWORK, "USDC")!.address;
    const holders = Array.from({ length: 8 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}` as `0x${string}`);
    const ETH_EACH = 2n * 10n ** 14n; // small enough that some senders run dry
    const USDC_EACH = 50_000_000n;
    for (const h of holders) {
      credit(tx, NETWORK, "native", h, ETH_EACH);
      credit(tx, NETWORK, usdc, h, USDC_EACH);
    }
    const nonces = new Map<string, number>();
    let burnt = 0n;
    let refused = 0;
    let reverted = 0;
    for (let i = 0; i < 3000; i++) {
      const from = holders[random.int(holders.length)]!;
      const to = holders[random.int(holders.length)]!;
      const kind = random.int(4);
      const amount = BigInt(random.int(30_000_000));
      const input: Hex =
        kind === 0
          ? "0x"
          : kind === 1
            ? encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] })
            : kind === 2
              ? encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [to, amount] })
              : encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [holders[random.int(holders.length)]!, to, amount] });
      const value = kind === 0 ? amount * 10n ** 6n : 0n;
      const before = balanceOf(tx, NETWORK, "native", from);
      try {
        const applied = applyEvmTransaction(
          tx,
          clock,
          {
            hash: `0x${random.hex(32)}`,
            network: NETWORK,
            chainId: 84532,
            from,
            to: kind === 0 ? to : usdc,
            value,
            input,
            nonce: nonces.get(from) ?? 0,
            gas: 100_000n,
            type: "eip1559",
          },
          [],
        );
        nonces.set(from, (nonces.get(from) ?? 0) + 1);
        const fee = BigInt(applied.gasUsed) * BigInt(applied.gasPrice);
        burnt += fee;
        if (applied.status === "reverted") reverted++;
        // the sender paid exactly value + fee (no value on a revert here: token calls carry none)
        expect(before - balanceOf(tx, NETWORK, "native", from)).toBe(from === to ? fee : value + fee);
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).errorType).toBe("insufficient_balance");
        expect(balanceOf(tx, NETWORK, "native", from)).toBe(before); // a refusal changes nothing
        refused++;
      }
    }
    expect(sum(tx, NETWORK, "native", holders) + burnt).toBe(ETH_EACH * BigInt(holders.length));
    expect(sum(tx, NETWORK, usdc, holders)).toBe(USDC_EACH * BigInt(holders.length));
    // the run really exercised every path
    expect(reverted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(10);
    expect(ledgerTxs(tx).list().length).toBe(3000 - refused);
  });

  it("keeps SOL and SPL totals exact across 2,000 random Solana transfers", async () => {
    const { tx } = await freshProject();
    const clock = createClock();
    const random = createRandom("solana-conservation");
    const network = "solana-devnet";
    const mint = solanaTokenBySymbol(network, "usdc")!.mint;
    const holders = Array.from({ length: 6 }, (_, i) => toBase58(createHash("sha256").update(`holder ${i}`).digest()));
    const SOL_EACH = 50_000_000n;
    const SPL_EACH = 10_000_000n;
    for (const h of holders) {
      credit(tx, network, "native", h, SOL_EACH);
      credit(tx, network, mint, h, SPL_EACH);
    }
    let fees = 0n;
    for (let i = 0; i < 2000; i++) {
      const from = holders[random.int(holders.length)]!;
      const to = holders[random.int(holders.length)]!;
      const amount = BigInt(random.int(5_000_000));
      const transfer =
        random.int(2) === 0 ? { kind: "sol" as const, from, to, amount } : { kind: "spl" as const, from, to, toOwner: to, mint, authority: from, amount };
      try {
        applySolanaTransaction(tx, clock, network, random.hex(32), from, 1, { accountKeys: [from, to], instructions: [], transfers: [transfer] });
        fees += LAMPORTS_PER_SIGNATURE;
      } catch (error) {
        expect((error as ApiError).errorType).toBe("insufficient_balance");
        // a refused Solana transaction is discarded with the request; start the next one from committed state
        tx.discard();
      }
      await tx.commit();
    }
    expect(sum(tx, network, "native", holders) + fees).toBe(SOL_EACH * BigInt(holders.length));
    expect(sum(tx, network, mint, holders)).toBe(SPL_EACH * BigInt(holders.length));
  });
});
