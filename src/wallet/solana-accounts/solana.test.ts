/** Solana accounts over HTTP; signatures checked with @noble/curves, transactions built with @solana/kit. */
import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getAddressDecoder,
  getBase58Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "solana-accounts" });
});
afterAll(() => sandbox.close());

const ACCOUNTS = "/platform/v2/solana/accounts";
const create = (body: object = {}) => call(sandbox, "POST", ACCOUNTS, { body, wallet: true });
const publicKeyOf = (address: string) => new Uint8Array(getBase58Encoder().encode(address));

function unsignedTransfer(feePayer: string, version: "legacy" | 0, extraSigner?: string): string {
  // A 1-lamport System transfer to the payer itself (or to the extra signer): real programs check their accounts.
  const accounts = [{ address: toAddress(feePayer), role: 3 as const }];
  accounts.push(extraSigner ? { address: toAddress(extraSigner), role: 3 as const } : { address: toAddress(feePayer), role: 3 as const });
  const message = pipe(
    createTransactionMessage({ version: version as 0 }), // kit's types do not narrow a union of versions
    (m) => setTransactionMessageFeePayer(toAddress(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        { programAddress: toAddress("11111111111111111111111111111111"), accounts, data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]) },
        m,
      ),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}

describe("Solana accounts", () => {
  it("creates a base-58 ed25519 account, unique names, lookups by address and name, lists", async () => {
    const res = await create({ name: "sol-main" });
    expect(res.status).toBe(201);
    expect(res.body.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(publicKeyOf(res.body.address)).toHaveLength(32);
    expect((await create({ name: "sol-main" })).status).toBe(409);
    expect((await call(sandbox, "GET", `${ACCOUNTS}/${res.body.address}`)).body.name).toBe("sol-main");
    expect((await call(sandbox, "GET", `${ACCOUNTS}/by-name/sol-main`)).body.address).toBe(res.body.address);
    expect((await call(sandbox, "GET", ACCOUNTS)).body.accounts.map((a: { address: string }) => a.address)).toContain(res.body.address);
    expect((await call(sandbox, "GET", `${ACCOUNTS}/by-name/nobody`)).status).toBe(404);
  });

  it("renames and refuses a taken name", async () => {
    const a = (await create({ name: "sol-a" })).body;
    await create({ name: "sol-b" });
    expect((await call(sandbox, "PUT", `${ACCOUNTS}/${a.address}`, { body: { name: "sol-c" }, wallet: true })).body.name).toBe("sol-c");
    expect((await call(sandbox, "PUT", `${ACCOUNTS}/${a.address}`, { body: { name: "sol-b" }, wallet: true })).status).toBe(409);
  });

  it("signs a message: an ed25519 signature over its UTF-8 bytes, base-58", async () => {
    const { address } = (await create()).body;
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/message`, { body: { message: "hello solana" }, wallet: true });
    expect(res.status).toBe(200);
    const signature = new Uint8Array(getBase58Encoder().encode(res.body.signature));
    expect(ed25519.verify(signature, new TextEncoder().encode("hello solana"), publicKeyOf(address))).toBe(true);
  });

  it.each([["legacy" as const], [0 as const]])("signs a %s transaction in its own signature slot", async (version) => {
    const { address } = (await create()).body;
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/transaction`, {
      body: { transaction: unsignedTransfer(address, version) },
      wallet: true,
    });
    expect(res.status).toBe(200);
    const tx = getTransactionDecoder().decode(Buffer.from(res.body.signedTransaction, "base64"));
    const signature = tx.signatures[toAddress(address)]!;
    expect(ed25519.verify(new Uint8Array(signature), new Uint8Array(tx.messageBytes), publicKeyOf(address))).toBe(true);
  });

  it("inserts the signature slot when the transaction comes with an empty signature section", async () => {
    const { address } = (await create()).body;
    const full = Buffer.from(unsignedTransfer(address, 0), "base64");
    const messageOnly = Buffer.concat([Buffer.from([0]), full.subarray(1 + 64)]);
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/transaction`, { body: { transaction: messageOnly.toString("base64") }, wallet: true });
    expect(res.status).toBe(200);
    const tx = getTransactionDecoder().decode(Buffer.from(res.body.signedTransaction, "base64"));
    expect(ed25519.verify(new Uint8Array(tx.signatures[toAddress(address)]!), new Uint8Array(tx.messageBytes), publicKeyOf(address))).toBe(true);
  });

  it("refuses to sign a transaction the account is not a signer of", async () => {
    const { address } = (await create()).body;
    const stranger = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/transaction`, { body: { transaction: unsignedTransfer(stranger, 0) }, wallet: true });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/not a signer/);
  });

  it("answers 400 malformed_transaction for bytes that are not a transaction", async () => {
    const { address } = (await create()).body;
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/transaction`, { body: { transaction: "AQID" }, wallet: true });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("malformed_transaction");
  });

  it("sends a transaction signed by the fee payer and returns its signature", async () => {
    const { address } = (await create()).body;
    await fund(sandbox, { network: "solana-devnet", address, amount: "1000000" });
    const res = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, {
      body: { network: "solana-devnet", transaction: unsignedTransfer(address, 0) },
      wallet: true,
    });
    expect(res.status).toBe(200);
    const signature = new Uint8Array(getBase58Encoder().encode(res.body.transactionSignature));
    expect(signature).toHaveLength(64);
  });

  it("pays devnet SOL and USDC from the faucet, within a daily limit, and lists them", async () => {
    const { address } = (await create()).body;
    const sol = await call(sandbox, "POST", "/platform/v2/solana/faucet", { body: { address, token: "sol" } });
    expect(sol.status).toBe(200);
    expect(new Uint8Array(getBase58Encoder().encode(sol.body.transactionSignature))).toHaveLength(64);
    for (let i = 0; i < 10; i++) expect((await call(sandbox, "POST", "/platform/v2/solana/faucet", { body: { address, token: "usdc" } })).status).toBe(200);
    const limited = await call(sandbox, "POST", "/platform/v2/solana/faucet", { body: { address, token: "usdc" } });
    expect(limited.status).toBe(429);
    expect(limited.body.errorType).toBe("faucet_limit_exceeded");
    const balances = await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${address}`);
    expect(balances.body.balances).toEqual([
      { amount: { amount: "1250000", decimals: 9 }, token: { mintAddress: "So11111111111111111111111111111111111111112", symbol: "SOL", name: "Solana" } },
      { amount: { amount: "10000000", decimals: 6 }, token: { mintAddress: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", symbol: "USDC", name: "USD Coin" } },
    ]);
  });

  it("refuses a faucet claim for a text the address pattern lets through but that is no 32-byte key, and records no claim", async () => {
    // 27 and 33 bytes once decoded: the contract's pattern (32 to 44 base-58 characters) accepts both.
    for (const address of ["5wKendAMY5xq7Mt6788yJcFfoA9oBWYT1LqEs", "z".repeat(44)]) {
      const res = await call(sandbox, "POST", "/platform/v2/solana/faucet", { body: { address, token: "sol" } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
  });

  it("refuses a send whose fee payer cannot pay, and keeps nothing", async () => {
    const { address } = (await create()).body;
    const res = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, {
      body: { network: "solana-devnet", transaction: unsignedTransfer(address, 0) },
      wallet: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("insufficient_balance");
    expect((await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${address}`)).body.balances).toEqual([]);
  });

  it("refuses to send when a signer outside the project has not signed", async () => {
    const { address } = (await create()).body;
    const stranger = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    const res = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, {
      body: { network: "solana-devnet", transaction: unsignedTransfer(stranger, 0, address) },
      wallet: true,
    });
    expect(res.status).toBe(400);
  });

  it("imports a 32-byte seed and exports it back", async () => {
    const seed = randomBytes(32);
    const expected = getAddressDecoder().decode(ed25519.getPublicKey(seed));
    const encryptedPrivateKey = publicEncrypt({ key: sandbox.importKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, seed).toString(
      "base64",
    );
    const imported = await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey, name: "sol-imported" }, wallet: true });
    expect(imported.status).toBe(201);
    expect(imported.body.address).toBe(expected);
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const exportEncryptionKey = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    for (const path of [`${ACCOUNTS}/${expected}/export`, `${ACCOUNTS}/export/by-name/sol-imported`]) {
      const res = await call(sandbox, "POST", path, { body: { exportEncryptionKey }, wallet: true });
      const raw = privateDecrypt(
        { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
        Buffer.from(res.body.encryptedPrivateKey, "base64"),
      );
      expect(raw.equals(seed)).toBe(true);
    }
  });
});
