/** The Solana JSON-RPC subset, driven with @solana/kit's RPC client; transactions signed with noble. */
import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getAddressDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { fetchMint } from "@solana-program/token";
import { fetchEncodedAccount } from "@solana/kit";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let url: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "solana-rpc" });
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
  const token = (await request(sandbox.url).get(path).set("Authorization", `Bearer ${bearer}`)).body.id;
  url = `${sandbox.url}/rpc/v1/solana-devnet/${token}`;
});
afterAll(() => sandbox.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC answers are checked field by field below
const rpcCall = (method: string, params: unknown[]): Promise<any> =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }).then((r) =>
    r.json(),
  );

function signedTransfer(seed: Uint8Array, to: string, lamports: bigint, blockhash: string): string {
  const payer = getAddressDecoder().decode(ed25519.getPublicKey(seed));
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(payer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 1000n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: toAddress("11111111111111111111111111111111"),
          accounts: [
            { address: toAddress(payer), role: 3 },
            { address: toAddress(to), role: 1 },
          ],
          data: new Uint8Array(data),
        },
        m,
      ),
  );
  const tx = compileTransaction(message);
  const signature = ed25519.sign(new Uint8Array(tx.messageBytes), seed);
  return Buffer.from(getTransactionEncoder().encode({ ...tx, signatures: { ...tx.signatures, [payer]: signature } as never })).toString("base64");
}

describe("Solana JSON-RPC on the ledger", () => {
  it("answers getBalance and getLatestBlockhash to @solana/kit's client", async () => {
    const seed = randomBytes(32);
    const owner = getAddressDecoder().decode(ed25519.getPublicKey(seed));
    await fund(sandbox, { network: "solana-devnet", address: owner, amount: "5000000" });
    const rpc = createSolanaRpc(url);
    expect((await rpc.getBalance(toAddress(owner)).send()).value).toBe(5000000n);
    const { value } = await rpc.getLatestBlockhash().send();
    expect(value.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    // The full genesis hash, as clients compare it (not the 32-character CAIP-2 reference).
    expect(await rpc.getGenesisHash().send()).toBe("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG");
    const mainnet = createSolanaRpc(url.replace("/solana-devnet/", "/solana/"));
    expect(await mainnet.getGenesisHash().send()).toBe("5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d");
  });

  it("applies a signed sendTransaction, then reports its status and the new balances", async () => {
    const seed = randomBytes(32);
    const owner = getAddressDecoder().decode(ed25519.getPublicKey(seed));
    const to = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    await fund(sandbox, { network: "solana-devnet", address: owner, amount: "5000000" });
    const blockhash = (await rpcCall("getLatestBlockhash", [])).result.value.blockhash;
    // A new account must be left rent-exempt (890,880 lamports for no data), as on a cluster.
    const wire = signedTransfer(seed, to, 1000000n, blockhash);
    const sent = await rpcCall("sendTransaction", [wire, { encoding: "base64" }]);
    expect(sent.result).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    // The same signed bytes again are refused as already processed, and move nothing (the balances below).
    const twice = await rpcCall("sendTransaction", [wire, { encoding: "base64" }]);
    expect(twice.error).toMatchObject({ code: -32002, message: expect.stringContaining("already been processed") });
    sandbox.clock.advance(2000);
    const status = await rpcCall("getSignatureStatuses", [[sent.result]]);
    expect(status.result.value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });
    expect((await rpcCall("getBalance", [to])).result.value).toBe(1000000);
    expect((await rpcCall("getBalance", [owner])).result.value).toBe(5000000 - 1000000 - 5000);
  });

  it("describes the network's USDC mint to the SPL Token program's own client, its supply being what the ledger holds", async () => {
    const rpc = createSolanaRpc(url);
    const holder = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    const before = await fetchMint(rpc, toAddress("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"));
    await fund(sandbox, { network: "solana-devnet", address: holder, token: "USDC", amount: "2500000" });
    const mint = await fetchMint(rpc, toAddress("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"));
    expect(mint.programAddress).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(mint.data).toMatchObject({ decimals: 6, isInitialized: true, freezeAuthority: { __option: "None" }, mintAuthority: { __option: "Some" } });
    expect(mint.data.supply - before.data.supply).toBe(2500000n);
    const base58 = await rpcCall("getAccountInfo", ["4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", { encoding: "base58" }]);
    expect(base58.result.value).toMatchObject({
      owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      space: 82,
      executable: false,
      data: [expect.any(String), "base58"],
    });
  });

  it("shows a funded wallet as a System account and an unfunded address as absent", async () => {
    const rpc = createSolanaRpc(url);
    const funded = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    await fund(sandbox, { network: "solana-devnet", address: funded, amount: "777" });
    const account = await fetchEncodedAccount(rpc, toAddress(funded));
    expect(account).toMatchObject({ exists: true, programAddress: "11111111111111111111111111111111", lamports: 777n, executable: false });
    expect(account.exists && account.data.length).toBe(0);
    const absent = await fetchEncodedAccount(rpc, toAddress(getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)))));
    expect(absent.exists).toBe(false);
    const parsed = await rpcCall("getAccountInfo", [funded, { encoding: "jsonParsed" }]);
    // jsonParsed falls back to base64 for an account no parser knows, as the real node does.
    expect(parsed.result.value).toMatchObject({ data: ["", "base64"], owner: "11111111111111111111111111111111" });
    expect((await rpcCall("getAccountInfo", [funded, { encoding: "base64+zstd" }])).error).toMatchObject({ code: -32602 });
    expect((await rpcCall("getAccountInfo", ["0xnot-base58"])).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("not a base-58 account address"),
    });
    // Beyond 2^53 lamports the answer stays exact: integers are written as the RPC writes u64s.
    const whale = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    await fund(sandbox, { network: "solana-devnet", address: whale, amount: "9007199254740993" });
    expect(await fetchEncodedAccount(rpc, toAddress(whale))).toMatchObject({ exists: true, lamports: 9007199254740993n });
    expect((await rpc.getBalance(toAddress(whale)).send()).value).toBe(9007199254740993n);
  });

  it("refuses a transaction with a bad signature and an unknown method", async () => {
    const seed = randomBytes(32);
    const to = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    const wire = Buffer.from(signedTransfer(seed, to, 1n, "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi"), "base64");
    wire[10] ^= 0xff; // corrupt the signature
    const bad = await rpcCall("sendTransaction", [wire.toString("base64"), { encoding: "base64" }]);
    expect(bad.error.code).toBe(-32003);
    expect((await rpcCall("getBlockProduction", [])).error.code).toBe(-32601);
  });
});
