/**
 * Where the Solana runtime's native build does not load (Windows), the sandbox applies transactions with its
 * TypeScript model over the same accounts. Forced here as it is there: balances, token accounts and sends still
 * work; what only the runtime can do (simulateTransaction) says so.
 */
import { createTransferCheckedInstruction, getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { forceSolanaModel } from "../../src/chain/solana/runtime.js";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";

const USDC = new PublicKey("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
let sandbox: Sandbox;
let connection: Connection;
let httpUrl: string;

beforeAll(async () => {
  forceSolanaModel(true);
  sandbox = await withSandbox({ seed: "solana-model" });
  httpUrl = await nodeUrlFor(sandbox, "solana-devnet");
  connection = new Connection(httpUrl, "confirmed");
});
afterAll(async () => {
  await sandbox.close();
  forceSolanaModel(false);
});

describe("Solana without the runtime (the TypeScript model)", () => {
  it("keeps token accounts, applies SOL transfers sent to the node, and says simulateTransaction needs the runtime", async () => {
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: "10000000" });
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), token: "USDC", amount: "3000000" });
    expect((await getAccount(connection, getAssociatedTokenAddressSync(USDC, payer.publicKey))).amount).toBe(3_000_000n);

    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 2_000_000 }),
    );
    tx.sign(payer);
    const wire = tx.serialize().toString("base64");
    const simulated = await fetch(httpUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "simulateTransaction", params: [wire, { encoding: "base64" }] }),
    }).then((r) => r.json());
    expect(simulated.error).toMatchObject({ code: -32601, message: expect.stringContaining("runtime") });

    await connection.sendRawTransaction(tx.serialize());
    expect(await connection.getBalance(to)).toBe(2_000_000);
    expect(await connection.getBalance(payer.publicKey)).toBe(10_000_000 - 2_000_000 - 5000);
  });

  it("credits a transferChecked to an existing token account to that account's owner", async () => {
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: "10000000" });
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), token: "USDC", amount: "3000000" });
    await fund(sandbox, { network: "solana-devnet", address: to.toBase58(), token: "USDC", amount: "1" });
    const [source, destination] = [getAssociatedTokenAddressSync(USDC, payer.publicKey), getAssociatedTokenAddressSync(USDC, to)];
    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      createTransferCheckedInstruction(source, USDC, destination, payer.publicKey, 1_000_000, 6),
    );
    tx.sign(payer);
    await connection.sendRawTransaction(tx.serialize());
    expect((await getAccount(connection, destination)).amount).toBe(1_000_001n);
    expect((await getAccount(connection, source)).amount).toBe(2_000_000n);
  });

  it("pays faucet claims with the model too: SOL and USDC reach the wallet", async () => {
    const wallet = Keypair.generate().publicKey;
    for (const token of ["sol", "usdc"]) {
      const paid = await call(sandbox, "POST", "/platform/v2/solana/faucet", { body: { address: wallet.toBase58(), token } });
      expect(paid.status).toBe(200);
    }
    expect(await connection.getBalance(wallet)).toBe(1_250_000);
    expect((await getAccount(connection, getAssociatedTokenAddressSync(USDC, wallet))).amount).toBe(1_000_000n);
  });
});
