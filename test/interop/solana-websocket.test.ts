/**
 * Solana PubSub over WebSocket on the node's paths: @solana/web3.js's `confirmTransaction` (which subscribes with
 * `signatureSubscribe`) resolves against the sandbox, and a raw client sees the notification wait for the clock
 * under interval mining. Transactions are signed by web3.js itself.
 */
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeSolanaSocket, openWebSocket, refusedWith } from "#test/helpers/webSocket.js";
import type { Sandbox } from "cdp-sandbox";
import { pathToFileURL } from "node:url";
import { BUILD_TIMEOUT_MS, ensureBuilt, registerPath, startNode } from "#test/helpers/cli.js";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";

/** A funded payer's signed 0.01 SOL transfer (a new account must be rent-exempt), with the blockhash it names. */
async function signedTransfer(sandbox: Sandbox, connection: Connection) {
  const payer = Keypair.generate();
  await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: String(LAMPORTS_PER_SOL) });
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL / 100 }),
  );
  tx.sign(payer);
  return { raw: tx.serialize(), blockhash, lastValidBlockHeight };
}

describe("Solana PubSub, automine", () => {
  let sandbox: Sandbox;
  let httpUrl: string;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "solana-websocket" });
    httpUrl = await nodeUrlFor(sandbox, "solana-devnet");
  });
  afterAll(() => sandbox.close());

  it("resolves web3.js's confirmTransaction through signatureSubscribe", async () => {
    const connection = new Connection(httpUrl, { wsEndpoint: httpUrl.replace(/^http/, "ws"), commitment: "confirmed" });
    const { raw, blockhash, lastValidBlockHeight } = await signedTransfer(sandbox, connection);
    const signature = await connection.sendRawTransaction(raw);
    const confirmed = await Promise.race([
      connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed"),
      new Promise((_, reject) => setTimeout(() => reject(new Error("confirmTransaction did not resolve")), 10_000)),
    ]);
    expect(confirmed).toMatchObject({ value: { err: null } });
    closeSolanaSocket(connection);
  });

  it("answers slotSubscribe, refuses unknown methods, and refuses an unknown token or network before the upgrade", async () => {
    const client = await openWebSocket(httpUrl.replace(/^http/, "ws"));
    client.send({ id: 1, method: "rootSubscribe", params: [] });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } });
    client.send({ id: 2, method: "slotSubscribe" });
    const subscribed = await client.next();
    expect(subscribed).toMatchObject({ id: 2, result: expect.any(Number) });
    const note = await client.next();
    expect(note).toMatchObject({ method: "slotNotification", params: { subscription: subscribed.result, result: { slot: expect.any(Number) } } });
    client.send({ id: 3, method: "slotUnsubscribe", params: [subscribed.result] });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 3, result: true });
    client.ws.close();

    expect(await refusedWith(`${sandbox.url.replace(/^http/, "ws")}/rpc/v1/solana-devnet/not-a-token`)).toBe(401);
    expect(await refusedWith(httpUrl.replace(/^http/, "ws").replace("/solana-devnet/", "/not-a-network/"))).toBe(404);

    // A path segment that does not decode is refused, and the sandbox goes on serving.
    expect(await refusedWith(`${sandbox.url.replace(/^http/, "ws")}/rpc/v1/solana-devnet/%ZZ`)).toBe(400);
    expect(await refusedWith(`${sandbox.url.replace(/^http/, "ws")}/rpc/v1/solana-devnet/not-a-token`)).toBe(401);
  });

  it("serves at most 256 WebSockets at once (64 per project), refusing one more with 503 until one closes", async () => {
    // Four projects of 64 sockets each: a project's 65th is refused with 429 before the sandbox's 257th.
    const urls = [httpUrl.replace(/^http/, "ws")];
    for (let i = 1; i < 4; i++) urls.push((await nodeUrlFor(sandbox, "solana-devnet", await sandbox.createProject(`sockets-${i}`))).replace(/^http/, "ws"));
    const open = (await Promise.all(urls.map((url) => Promise.all(Array.from({ length: 64 }, () => openWebSocket(url)))))).flat();
    const fifth = (await nodeUrlFor(sandbox, "solana-devnet", await sandbox.createProject("sockets-5"))).replace(/^http/, "ws");
    expect(await refusedWith(fifth)).toBe(503);
    open[0]!.ws.close();
    // Taken again once the server has seen that socket close.
    const again = await vi.waitFor(() => openWebSocket(fifth), { timeout: 5000, interval: 20 });
    for (const client of [...open.slice(1), again]) client.ws.close();
  });
});

describe("Solana PubSub of accounts, programs and logs", () => {
  let sandbox: Sandbox;
  let httpUrl: string;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "solana-websocket-accounts" });
    httpUrl = await nodeUrlFor(sandbox, "solana-devnet");
  });
  afterAll(() => sandbox.close());

  it("takes at most 128 subscriptions on one socket", async () => {
    const client = await openWebSocket(httpUrl.replace(/^http/, "ws"));
    for (let id = 1; id <= 128; id++) client.send({ id, method: "slotSubscribe" });
    client.send({ id: 129, method: "logsSubscribe", params: ["all"] });
    const answers = [];
    while (answers.length < 129) {
      const message = await client.next();
      if (message.id !== undefined) answers.push(message); // slot notifications come in between
    }
    expect(answers.slice(0, 128).every((a) => typeof a.result === "number")).toBe(true);
    expect(answers[128]).toMatchObject({ id: 129, error: { code: -32602, message: "Invalid params: at most 128 subscriptions per connection" } });
    client.ws.close();
  });

  it("notifies programSubscribe (with a dataSize filter) and logsSubscribe all when a transfer lands, and unsubscribes", async () => {
    const connection = new Connection(httpUrl, "confirmed");
    const client = await openWebSocket(httpUrl.replace(/^http/, "ws"));
    const payer = Keypair.generate();
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: String(LAMPORTS_PER_SOL) });
    client.send({
      id: 1,
      method: "programSubscribe",
      params: ["11111111111111111111111111111111", { encoding: "base64", filters: [{ dataSize: 0 }] }],
    });
    const program = await client.next();
    expect(program).toMatchObject({ id: 1, result: expect.any(Number) });
    client.send({ id: 2, method: "logsSubscribe", params: ["all"] });
    const logs = await client.next();
    expect(logs).toMatchObject({ id: 2, result: expect.any(Number) });
    client.send({ id: 3, method: "accountSubscribe", params: ["not-an-address"] });
    expect(await client.next()).toMatchObject({ id: 3, error: { code: -32602 } });

    const to = Keypair.generate().publicKey;
    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL / 100 }),
    );
    tx.sign(payer);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const notes = [await client.next(), await client.next(), await client.next()];
    const byMethod = (m: string) => notes.filter((n) => n.method === m);
    expect(
      byMethod("programNotification")
        .map((n) => n.params.result.value.pubkey)
        .sort(),
    ).toEqual([payer.publicKey.toBase58(), to.toBase58()].sort());
    expect(byMethod("programNotification")[0].params.subscription).toBe(program.result);
    expect(byMethod("logsNotification")).toEqual([
      {
        jsonrpc: "2.0",
        method: "logsNotification",
        params: {
          result: {
            context: { slot: expect.any(Number) },
            value: { signature, err: null, logs: expect.arrayContaining(["Program 11111111111111111111111111111111 success"]) },
          },
          subscription: logs.result,
        },
      },
    ]);
    client.send({ id: 4, method: "programUnsubscribe", params: [program.result] });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 4, result: true });
    client.send({ id: 5, method: "logsUnsubscribe", params: [program.result] });
    expect(await client.next()).toMatchObject({ id: 5, error: { code: -32602 } }); // that id is no logs subscription
    client.ws.close();
  });

  it("notifies accountSubscribe of a change a snapshot's restore makes, as of one a transaction makes", async () => {
    const account = Keypair.generate().publicKey.toBase58();
    await fund(sandbox, { network: "solana-devnet", address: account, amount: "1000000" });
    const snapshot = (await call(sandbox, "POST", "/_sandbox/snapshots")).body.snapshotId as string;
    const client = await openWebSocket(httpUrl.replace(/^http/, "ws"));
    client.send({ id: 1, method: "accountSubscribe", params: [account, { encoding: "base64" }] });
    expect(await client.next()).toMatchObject({ id: 1, result: expect.any(Number) });
    await fund(sandbox, { network: "solana-devnet", address: account, amount: "2000000" });
    expect((await client.next()).params.result.value.lamports).toBe(3_000_000);
    // A restore replaces the project's data without a transaction of its own: subscriptions read it again all the same.
    expect((await call(sandbox, "POST", `/_sandbox/snapshots/${snapshot}/restore`)).status).toBe(200);
    expect((await client.next()).params.result.value.lamports).toBe(1_000_000);
    client.ws.close();
  });
});

describe("Solana PubSub, interval mining", () => {
  let sandbox: Sandbox;
  let httpUrl: string;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "solana-websocket-interval", mining: "interval" });
    httpUrl = await nodeUrlFor(sandbox, "solana-devnet");
  });
  afterAll(() => sandbox.close());

  it("notifies a signature once it lands on the clock, not before", async () => {
    const connection = new Connection(httpUrl, { wsEndpoint: httpUrl.replace(/^http/, "ws") });
    const { raw } = await signedTransfer(sandbox, connection);
    sandbox.clock.freeze(true);
    const signature = await connection.sendRawTransaction(raw);
    const client = await openWebSocket(httpUrl.replace(/^http/, "ws"));
    client.send({ id: 1, method: "signatureSubscribe", params: [signature, { commitment: "confirmed" }] });
    const subscribed = await client.next();
    expect(subscribed).toMatchObject({ id: 1, result: expect.any(Number) });
    // A round trip later, nothing was sent: the transaction has not landed.
    client.send({ id: 2, method: "nope" });
    expect(await client.next()).toMatchObject({ id: 2, error: { code: -32601 } });
    sandbox.clock.advance(1000);
    const note = await client.next();
    expect(note).toEqual({
      jsonrpc: "2.0",
      method: "signatureNotification",
      params: { result: { context: { slot: expect.any(Number) }, value: { err: null } }, subscription: subscribed.result },
    });
    // The subscription ended with its notification.
    client.send({ id: 3, method: "signatureUnsubscribe", params: [subscribed.result] });
    expect(await client.next()).toMatchObject({ id: 3, error: { code: -32602 } });
    client.ws.close();
    sandbox.clock.freeze(false);
  });
});

describe("Solana PubSub through the register hook", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await withSandbox({ seed: "solana-websocket-hook" });
  }, BUILD_TIMEOUT_MS);
  afterAll(() => sandbox.close());

  it("confirms a transaction sent to the public devnet endpoint: its WebSocket URL is redirected too", async () => {
    const payer = Keypair.generate();
    await fund(sandbox, { network: "solana-devnet", address: payer.publicKey.toBase58(), amount: String(LAMPORTS_PER_SOL) });
    const script = `
      const w = require("@solana/web3.js");
      (async () => {
        const payer = w.Keypair.fromSecretKey(Uint8Array.from(JSON.parse(process.env.PAYER)));
        const connection = new w.Connection("https://api.devnet.solana.com", "confirmed");
        const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
        const tx = new w.Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight })
          .add(w.SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: w.Keypair.generate().publicKey, lamports: 10_000_000 }));
        tx.sign(payer);
        const signature = await connection.sendRawTransaction(tx.serialize());
        const confirmed = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
        console.log(JSON.stringify(confirmed.value));
        process.exit(0);
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const env = {
      CDP_SANDBOX_BASE_PATH: sandbox.basePath,
      CDP_SANDBOX_PROJECT_ID: sandbox.credentials.projectId,
      CDP_SANDBOX_IMPORT_KEY: sandbox.importKeyPem,
      PAYER: JSON.stringify(Array.from(payer.secretKey)),
    };
    const { code, stdout, stderr } = await startNode(["--import", pathToFileURL(registerPath).href, "-e", script], { env, timeoutMs: 20_000 }).finished;
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({ err: null });
  }, 30_000);
});
