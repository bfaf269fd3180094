/**
 * Solana on the real runtime, through real clients only (@solana/spl-token, @solana/web3.js, @solana/kit and the
 * official @coinbase/cdp-sdk): faucet-funded token accounts that the clients read, a transferChecked to a new
 * associated token account signed by the platform and sent through the node, WebSocket confirmation and account
 * notifications, runtime errors in the node's shape, wrapped SOL, sponsored sends, and a restart on the same data.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CdpClient } from "@coinbase/cdp-sdk";
import { ed25519 } from "@noble/curves/ed25519.js";
import { fetchMint as kitFetchMint, fetchToken } from "@solana-program/token";
import { getBase58Encoder, address as kitAddress, createSolanaRpc } from "@solana/kit";
import {
  AccountLayout,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createCloseAccountInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  getMint,
  MINT_SIZE,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import { ComputeBudgetProgram, Connection, Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";
import { closeSolanaSocket } from "#test/helpers/webSocket.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

const USDC = new PublicKey("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
const NETWORK = "solana-devnet";
const MEMO_PROGRAM = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const dataFile = join(mkdtempSync(join(tmpdir(), "solana-runtime-")), "state.json");

let sandbox: Sandbox;
let cdp: CdpClient;
let httpUrl: string;
let connection: Connection;

async function open(): Promise<void> {
  sandbox = await withSandbox({ seed: "solana-runtime", data: dataFile });
  cdp = cdpClientFor(sandbox);
  httpUrl = await nodeUrlFor(sandbox, NETWORK);
  connection = new Connection(httpUrl, { wsEndpoint: httpUrl.replace(/^http/, "ws"), commitment: "confirmed" });
}

beforeAll(open);
afterAll(async () => {
  closeSolanaSocket(connection);
  await sandbox.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC answers are checked field by field below
const rpcCall = (method: string, params: unknown[]): Promise<any> =>
  fetch(httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }).then(
    (r) => r.json(),
  );

/** A wallet of the project with SOL (admin funding) and `usdcClaims` USDC faucet claims (1 USDC each). */
async function fundedWallet(lamports: bigint, usdcClaims: number): Promise<PublicKey> {
  const { address } = await cdp.solana.createAccount();
  if (lamports > 0n) await fund(sandbox, { network: NETWORK, address, amount: lamports.toString() });
  for (let i = 0; i < usdcClaims; i++) await cdp.solana.requestFaucet({ address, token: "usdc" });
  return new PublicKey(address);
}

/** A legacy transaction on the node's latest blockhash, unsigned, base64 (what the platform's sign and send take). */
async function unsigned(feePayer: PublicKey, ...instructions: Transaction["instructions"]) {
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer, blockhash, lastValidBlockHeight }).add(...instructions);
  return { base64: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"), blockhash, lastValidBlockHeight };
}

describe("Solana token accounts on the runtime", () => {
  it("shows a faucet-funded wallet's USDC as an associated token account that spl-token, kit and web3.js read", async () => {
    const owner = await fundedWallet(0n, 2);
    const ata = getAssociatedTokenAddressSync(USDC, owner);
    const account = await getAccount(connection, ata);
    expect(account).toMatchObject({ amount: 2_000_000n, isInitialized: true, isNative: false });
    expect(account.owner.toBase58()).toBe(owner.toBase58());
    expect(account.mint.toBase58()).toBe(USDC.toBase58());
    const mint = await getMint(connection, USDC);
    expect(mint.decimals).toBe(6);
    expect(mint.supply).toBeGreaterThanOrEqual(2_000_000n);

    const rpc = createSolanaRpc(httpUrl);
    expect((await fetchToken(rpc, kitAddress(ata.toBase58()))).data).toMatchObject({ amount: 2_000_000n, owner: owner.toBase58() });
    expect((await kitFetchMint(rpc, kitAddress(USDC.toBase58()))).data.decimals).toBe(6);

    const parsed = await connection.getParsedTokenAccountsByOwner(owner, { mint: USDC });
    expect(parsed.value).toHaveLength(1);
    expect(parsed.value[0]!.pubkey.toBase58()).toBe(ata.toBase58());
    expect(parsed.value[0]!.account.data.parsed).toMatchObject({
      type: "account",
      info: { mint: USDC.toBase58(), owner: owner.toBase58(), state: "initialized", tokenAmount: { amount: "2000000", decimals: 6, uiAmountString: "2" } },
    });
    expect((await connection.getTokenAccountBalance(ata)).value).toMatchObject({ amount: "2000000", decimals: 6 });
    const byProgram = await connection.getProgramAccounts(new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"), {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner.toBase58() } }],
    });
    expect(byProgram.map((a) => a.pubkey.toBase58())).toEqual([ata.toBase58()]);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    // The platform's balance API reads the same account.
    const { balances } = await cdp.solana.listTokenBalances({ address: owner.toBase58(), network: NETWORK });
    expect(balances.find((b) => b.token.symbol === "USDC")?.amount.amount).toBe(2_000_000n);
  });

  it("records faucet payouts as transactions the runtime ran: web3.js reads SOL and USDC payouts with getTransaction", async () => {
    const { address } = await cdp.solana.createAccount();
    const owner = new PublicKey(address);
    const sol = await cdp.solana.requestFaucet({ address, token: "sol" });
    const solTx = await connection.getTransaction(sol.signature, { maxSupportedTransactionVersion: 0 });
    expect(solTx?.meta?.err).toBeNull();
    const solKeys = solTx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const at = solKeys.indexOf(address);
    expect(at).toBeGreaterThan(0); // the faucet's wallet pays the fee and sends
    expect(solTx!.meta!.preBalances[at]).toBe(0);
    expect(solTx!.meta!.postBalances[at]).toBe(1_250_000);
    expect(solTx!.meta!.logMessages).toContain("Program 11111111111111111111111111111111 success");
    // The id is the faucet wallet's signature over the message: checked with noble.
    const message = solTx!.transaction.message.serialize();
    expect(solTx!.transaction.signatures[0]).toBe(sol.signature);
    const signatureBytes = new Uint8Array(getBase58Encoder().encode(sol.signature));
    expect(ed25519.verify(signatureBytes, message, solTx!.transaction.message.staticAccountKeys[0]!.toBytes())).toBe(true);

    // Two USDC claims at the same sandbox time: two transactions, the first creating the ATA.
    const first = await cdp.solana.requestFaucet({ address, token: "usdc" });
    const second = await cdp.solana.requestFaucet({ address, token: "usdc" });
    expect(second.signature).not.toBe(first.signature);
    const firstTx = await connection.getTransaction(first.signature, { maxSupportedTransactionVersion: 0 });
    expect(firstTx?.meta?.logMessages).toContain("Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL success");
    // Creating the ATA invokes the System and Token programs: the runtime's inner instructions, under instruction 0.
    const keys = firstTx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const inner = firstTx!.meta!.innerInstructions!;
    expect(inner.map((group) => group.index)).toEqual([0]);
    const invoked = inner[0]!.instructions.map((ix) => keys[ix.programIdIndex]);
    expect(invoked).toContain("11111111111111111111111111111111");
    expect(invoked).toContain("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(inner[0]!.instructions.every((ix) => (ix as { stackHeight?: number }).stackHeight === 2)).toBe(true);
    const secondTxInner = await rpcCall("getTransaction", [second.signature, { encoding: "json" }]);
    expect(secondTxInner.result.meta.innerInstructions).toEqual([]); // the ATA exists: CreateIdempotent invokes nothing
    const secondTx = await connection.getTransaction(second.signature, { maxSupportedTransactionVersion: 0 });
    const held = (rows: readonly { owner?: string; mint: string; uiTokenAmount: { amount: string } }[] | null | undefined) =>
      rows?.find((row) => row.owner === address && row.mint === USDC.toBase58())?.uiTokenAmount.amount;
    expect(held(secondTx!.meta!.preTokenBalances)).toBe("1000000");
    expect(held(secondTx!.meta!.postTokenBalances)).toBe("2000000");
    expect((await getAccount(connection, getAssociatedTokenAddressSync(USDC, owner))).amount).toBe(2_000_000n);
    const history = (await connection.getSignaturesForAddress(owner)).map((s) => s.signature);
    expect(history).toEqual(expect.arrayContaining([sol.signature, first.signature, second.signature]));
  });

  it("simulates with the runtime's inner instructions when asked, as the node does", async () => {
    const payer = Keypair.generate();
    await fund(sandbox, { network: NETWORK, address: payer.publicKey.toBase58(), amount: "10000000" });
    const ata = getAssociatedTokenAddressSync(USDC, payer.publicKey);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
      createAssociatedTokenAccountInstruction(payer.publicKey, ata, payer.publicKey, USDC),
    );
    tx.sign(payer);
    const wire = tx.serialize().toString("base64");
    const asked = await rpcCall("simulateTransaction", [wire, { encoding: "base64", innerInstructions: true }]);
    expect(asked.result.value.err).toBeNull();
    const keys = tx.compileMessage().accountKeys.map((k) => k.toBase58());
    expect(asked.result.value.innerInstructions).toHaveLength(1);
    expect(asked.result.value.innerInstructions[0].index).toBe(0);
    const programs = (asked.result.value.innerInstructions[0].instructions as Array<{ programIdIndex: number }>).map((ix) => keys[ix.programIdIndex]);
    expect(programs).toEqual(expect.arrayContaining(["11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"]));
    const plain = await rpcCall("simulateTransaction", [wire, { encoding: "base64" }]);
    expect(plain.result.value.innerInstructions).toBeNull();
    expect(await connection.getAccountInfo(ata)).toBeNull(); // a simulation lands nothing
  });

  it("sends a client-built transferChecked to a new ATA, signed by the platform, through the node; WebSocket confirms and notifies", async () => {
    const sender = await fundedWallet(50_000_000n, 1);
    const recipient = Keypair.generate().publicKey;
    const from = getAssociatedTokenAddressSync(USDC, sender);
    const to = getAssociatedTokenAddressSync(USDC, recipient);
    const tx = await unsigned(
      sender,
      createAssociatedTokenAccountInstruction(sender, to, recipient, USDC),
      createTransferCheckedInstruction(from, USDC, to, sender, 400_000n, 6),
    );
    const { signedTransaction } = await cdp.solana.signTransaction({ address: sender.toBase58(), transaction: tx.base64 });
    const raw = Buffer.from(signedTransaction, "base64");
    // The platform's signature checked with an independent library.
    const decoded = Transaction.from(raw);
    expect(ed25519.verify(decoded.signatures[0]!.signature!, decoded.serializeMessage(), sender.toBytes())).toBe(true);

    const watcher = new Connection(httpUrl, { wsEndpoint: httpUrl.replace(/^http/, "ws"), commitment: "confirmed" });
    const changed = new Promise<Buffer>((resolve) => watcher.onAccountChange(to, (info) => resolve(info.data), { commitment: "confirmed" }));
    const logs = new Promise<string[]>((resolve) => watcher.onLogs(to, (l) => resolve(l.logs), "confirmed"));
    // The client subscribes in order on one socket: once a later slot subscription is answered, the others are in place.
    await new Promise<void>((resolve) => watcher.onSlotChange(() => resolve()));
    const signature = await connection.sendRawTransaction(raw);
    const confirmed = await connection.confirmTransaction({ signature, blockhash: tx.blockhash, lastValidBlockHeight: tx.lastValidBlockHeight }, "confirmed");
    expect(confirmed.value.err).toBeNull();
    expect(AccountLayout.decode(await changed).amount).toBe(400_000n);
    expect(await logs).toContain("Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success");
    closeSolanaSocket(watcher);

    expect((await getAccount(connection, to)).amount).toBe(400_000n);
    expect((await getAccount(connection, from)).amount).toBe(600_000n);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.fee).toBe(5000);
    expect(landed?.meta?.logMessages).toContain("Program log: Create");
    expect(landed?.meta?.postTokenBalances?.find((b) => b.owner === recipient.toBase58())?.uiTokenAmount.amount).toBe("400000");
    const history = await connection.getSignaturesForAddress(to);
    expect(history.map((h) => h.signature)).toEqual([signature]);
    // The sender paid the fee and the new account's rent.
    expect(await connection.getBalance(sender)).toBe(50_000_000 - 5000 - 2_039_280);
  });

  it("refuses failing instructions and stale blockhashes with the node's errors, and changes nothing", async () => {
    const sender = await fundedWallet(10_000_000n, 1);
    const from = getAssociatedTokenAddressSync(USDC, sender);
    const sendSigned = async (...instructions: Transaction["instructions"]) => {
      const tx = await unsigned(sender, ...instructions);
      const { signedTransaction } = await cdp.solana.signTransaction({ address: sender.toBase58(), transaction: tx.base64 });
      return rpcCall("sendTransaction", [signedTransaction, { encoding: "base64" }]);
    };
    const wrongDecimals = await sendSigned(createTransferCheckedInstruction(from, USDC, from, sender, 1n, 9));
    expect(wrongDecimals.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x12",
      data: { err: { InstructionError: [0, { Custom: 18 }] } },
    });
    expect(wrongDecimals.error.data.logs.join("\n")).toContain("decimals different from the Mint decimals");
    const tooMuch = await sendSigned(createTransferCheckedInstruction(from, USDC, from, sender, 5_000_000n, 6));
    expect(tooMuch.error.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });

    // A blockhash older than 150 slots (60 s of sandbox time) is unknown to the node.
    const stale = await unsigned(sender, SystemProgram.transfer({ fromPubkey: sender, toPubkey: sender, lamports: 1 }));
    const { signedTransaction } = await cdp.solana.signTransaction({ address: sender.toBase58(), transaction: stale.base64 });
    expect((await rpcCall("isBlockhashValid", [stale.blockhash])).result.value).toBe(true);
    sandbox.clock.advance(61_000);
    expect((await rpcCall("isBlockhashValid", [stale.blockhash])).result.value).toBe(false);
    const refused = await rpcCall("sendTransaction", [signedTransaction, { encoding: "base64" }]);
    expect(refused.error).toMatchObject({ code: -32002, message: "Transaction simulation failed: Blockhash not found", data: { err: "BlockhashNotFound" } });
    expect(await connection.getBalance(sender)).toBe(10_000_000);
    expect((await getAccount(connection, from)).amount).toBe(1_000_000n);
  });

  it("runs Token-2022, Memo and Compute Budget for real: a client's own mint, minted and transferred, parsed as spl-token-2022", async () => {
    const payer = Keypair.generate();
    const mint = Keypair.generate();
    const friend = Keypair.generate().publicKey;
    await fund(sandbox, { network: NETWORK, address: payer.publicKey.toBase58(), amount: "1000000000" });
    const rent = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
    const mine = getAssociatedTokenAddressSync(mint.publicKey, payer.publicKey, false, TOKEN_2022_PROGRAM_ID);
    const theirs = getAssociatedTokenAddressSync(mint.publicKey, friend, false, TOKEN_2022_PROGRAM_ID);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
      ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }),
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports: rent,
        programId: TOKEN_2022_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(mint.publicKey, 2, payer.publicKey, null, TOKEN_2022_PROGRAM_ID),
      createAssociatedTokenAccountInstruction(payer.publicKey, mine, payer.publicKey, mint.publicKey, TOKEN_2022_PROGRAM_ID),
      createAssociatedTokenAccountInstruction(payer.publicKey, theirs, friend, mint.publicKey, TOKEN_2022_PROGRAM_ID),
      createMintToInstruction(mint.publicKey, mine, payer.publicKey, 10_000n, [], TOKEN_2022_PROGRAM_ID),
      createTransferCheckedInstruction(mine, mint.publicKey, theirs, payer.publicKey, 2_500n, 2, [], TOKEN_2022_PROGRAM_ID),
      new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from("thanks") }),
    );
    tx.sign(payer, mint);
    const signature = await connection.sendRawTransaction(tx.serialize());
    expect((await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    expect((await getMint(connection, mint.publicKey, "confirmed", TOKEN_2022_PROGRAM_ID)).supply).toBe(10_000n);
    expect((await getAccount(connection, theirs, "confirmed", TOKEN_2022_PROGRAM_ID)).amount).toBe(2_500n);
    const parsed = await connection.getParsedTokenAccountsByOwner(friend, { programId: TOKEN_2022_PROGRAM_ID });
    expect(parsed.value[0]!.account.data).toMatchObject({
      program: "spl-token-2022",
      parsed: { type: "account", info: { mint: mint.publicKey.toBase58(), tokenAmount: { amount: "2500", decimals: 2, uiAmountString: "25" } } },
    });
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.logMessages).toContain("Program log: Memo (len 6)");
    expect(landed?.meta?.logMessages).toContain("Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr success");
  });

  it("wraps SOL into a native token account and unwraps it by closing the account", async () => {
    const owner = Keypair.generate();
    await fund(sandbox, { network: NETWORK, address: owner.publicKey.toBase58(), amount: "1000000000" });
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, owner.publicKey);
    const send = async (...instructions: Transaction["instructions"]) => {
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
      const tx = new Transaction({ feePayer: owner.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
      tx.sign(owner);
      const signature = await connection.sendRawTransaction(tx.serialize());
      expect((await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    };
    await send(
      createAssociatedTokenAccountInstruction(owner.publicKey, wsol, owner.publicKey, NATIVE_MINT),
      SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: wsol, lamports: 100_000_000 }),
      createSyncNativeInstruction(wsol),
    );
    expect(await getAccount(connection, wsol)).toMatchObject({ amount: 100_000_000n, isNative: true });
    await send(createCloseAccountInstruction(wsol, owner.publicKey, owner.publicKey));
    expect(await connection.getAccountInfo(wsol)).toBeNull();
    expect(await connection.getBalance(owner.publicKey)).toBe(1_000_000_000 - 2 * 5000);
  });

  it("sends the same unsigned transaction twice with the official client's useCdpSponsor: the sponsor pays fees and rent", async () => {
    const sender = await fundedWallet(0n, 3);
    const recipient = Keypair.generate().publicKey;
    const from = getAssociatedTokenAddressSync(USDC, sender);
    const to = getAssociatedTokenAddressSync(USDC, recipient);
    const tx = await unsigned(
      sender,
      createAssociatedTokenAccountIdempotentInstruction(sender, to, recipient, USDC),
      createTransferCheckedInstruction(from, USDC, to, sender, 1_000_000n, 6),
    );
    const first = await cdp.solana.sendTransaction({ network: NETWORK, transaction: tx.base64, useCdpSponsor: true });
    const second = await cdp.solana.sendTransaction({ network: NETWORK, transaction: tx.base64, useCdpSponsor: true });
    expect(second.signature).not.toBe(first.signature);
    expect((await getAccount(connection, to)).amount).toBe(2_000_000n);
    expect((await getAccount(connection, from)).amount).toBe(1_000_000n);
    expect(await connection.getBalance(sender)).toBe(0); // the sender holds no SOL: the sponsor paid everything
    const landed = await connection.getTransaction(second.signature, { maxSupportedTransactionVersion: 0 });
    const payer = landed?.transaction.message.getAccountKeys().get(0)?.toBase58();
    expect(payer).not.toBe(sender.toBase58());
    // Without the sponsor a wallet with no SOL cannot pay the fee.
    const unsponsored = await call(sandbox, "POST", "/platform/v2/solana/accounts/send/transaction", {
      body: { network: NETWORK, transaction: tx.base64 },
      wallet: true,
    });
    expect(unsponsored.status).toBe(400);
    expect(unsponsored.body.errorType).toBe("insufficient_balance");
  });

  it("keeps projects apart: another project's runtime sees none of this project's accounts", async () => {
    const owner = Keypair.generate();
    const to = Keypair.generate().publicKey;
    await fund(sandbox, { network: NETWORK, address: owner.publicKey.toBase58(), amount: "100000000" });
    const other = await sandbox.createProject("solana-other");
    const otherNode = new Connection(await nodeUrlFor(sandbox, NETWORK, other), "confirmed");
    const send = async (c: Connection) => {
      const { blockhash } = await c.getLatestBlockhash();
      const tx = new Transaction({ feePayer: owner.publicKey, recentBlockhash: blockhash }).add(
        SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: to, lamports: 1_000_000 }),
      );
      tx.sign(owner);
      return c.sendRawTransaction(tx.serialize());
    };
    await send(connection); // lands here, after which the runtime holds nothing of it
    await expect(send(otherNode)).rejects.toThrow(/Attempt to debit an account but found no record of a prior credit/);
    expect(await otherNode.getBalance(owner.publicKey)).toBe(0);
    expect(await otherNode.getBalance(to)).toBe(0);
    expect(await connection.getBalance(to)).toBe(1_000_000);
  });

  it("restores token accounts and history from a snapshot", async () => {
    const owner = await fundedWallet(5_000_000n, 1);
    const ata = getAssociatedTokenAddressSync(USDC, owner);
    const snap = await call(sandbox, "POST", "/_sandbox/snapshots");
    expect(snap.status).toBe(201);
    const recipient = Keypair.generate().publicKey;
    const tx = await unsigned(
      owner,
      createAssociatedTokenAccountInstruction(owner, getAssociatedTokenAddressSync(USDC, recipient), recipient, USDC),
      createTransferCheckedInstruction(ata, USDC, getAssociatedTokenAddressSync(USDC, recipient), owner, 250_000n, 6),
    );
    const { signature } = await cdp.solana.sendTransaction({ network: NETWORK, transaction: tx.base64 });
    expect((await getAccount(connection, ata)).amount).toBe(750_000n);
    expect((await call(sandbox, "POST", `/_sandbox/snapshots/${snap.body.snapshotId}/restore`)).status).toBe(200);
    expect((await getAccount(connection, ata)).amount).toBe(1_000_000n);
    expect(await connection.getAccountInfo(getAssociatedTokenAddressSync(USDC, recipient))).toBeNull();
    expect(await connection.getBalance(owner)).toBe(5_000_000);
    expect(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })).toBeNull();
    expect((await connection.getParsedTokenAccountsByOwner(recipient, { mint: USDC })).value).toEqual([]);
  });

  it("keeps accounts and history across a restart on the same data", async () => {
    const owner = await fundedWallet(5_000_000n, 1);
    const ata = getAssociatedTokenAddressSync(USDC, owner);
    const tx = await unsigned(owner, createTransferCheckedInstruction(ata, USDC, ata, owner, 1n, 6));
    const { signature } = await cdp.solana.sendTransaction({ network: NETWORK, transaction: tx.base64 });
    const before = await connection.getAccountInfo(ata);
    closeSolanaSocket(connection);
    await sandbox.close();
    await open();
    expect(await connection.getAccountInfo(ata)).toEqual(before);
    expect(await connection.getBalance(owner)).toBe(5_000_000 - 5000);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).toBeNull();
  });
});
