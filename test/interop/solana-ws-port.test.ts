/**
 * The node's WebSockets on the port plus one, where @solana/web3.js derives them from an RPC URL with an explicit
 * port (as solana-test-validator serves 8899 and 8900): a `Connection` given only the HTTP URL confirms a transfer.
 */
import { createServer } from "node:net";
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox } from "cdp-sandbox";
import { closeSolanaSocket } from "#test/helpers/webSocket.js";
import { fund, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

/** Holds a free port until released (a port some other program has taken). */
async function takePort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("the WebSocket port", () => {
  const after: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of after) await close();
  });

  it("serves the node's WebSockets on port + 1, so web3.js confirms with no wsEndpoint", async () => {
    // Port + 1 of a port picked at random is free but for a rare race with another program: then try another.
    let sandbox = await withSandbox({ wsPort: "next" });
    for (let i = 0; i < 5 && sandbox.wsPort === undefined; i++) {
      await sandbox.close();
      sandbox = await withSandbox({ wsPort: "next" });
    }
    after.push(() => sandbox.close()); // at the end: web3.js may still have a status request of its own in flight
    {
      const port = Number(new URL(sandbox.url).port);
      expect(sandbox.wsPort).toBe(port + 1);
      const httpUrl = await nodeUrlFor(sandbox, "solana-devnet");
      const connection = new Connection(httpUrl, "confirmed");
      const payer = Keypair.generate();
      await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: String(LAMPORTS_PER_SOL) });
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
      const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL / 100 }),
      );
      tx.sign(payer);
      const signature = await connection.sendRawTransaction(tx.serialize());
      const confirmed = await Promise.race([
        connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed"),
        new Promise((_, reject) => setTimeout(() => reject(new Error("confirmTransaction did not resolve")), 15_000)),
      ]);
      expect(confirmed).toMatchObject({ value: { err: null } });
      closeSolanaSocket(connection);
    }
  });

  it("goes without when port + 1 is taken, and fails the start when a port asked for by number is", async () => {
    const taken = await takePort();
    try {
      await expect(startSandbox({ port: 0, wsPort: taken.port })).rejects.toThrow(/WebSocket port \d+ cannot be used/);
      // A fixed port whose next one is taken (retried in the rare case the fixed one is taken too).
      let without: Awaited<ReturnType<typeof startSandbox>> | undefined;
      for (let i = 0; i < 5 && !without; i++) without = await withSandbox({ port: taken.port - 1 }).catch(() => undefined);
      expect(without?.wsPort).toBeUndefined();
      expect(new URL(without!.url).port).toBe(String(taken.port - 1));
      await without!.close();
    } finally {
      await taken.release();
    }
  });
});
