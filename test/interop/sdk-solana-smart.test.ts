/**
 * The official client's Solana account and smart-account flows against the
 * sandbox; signatures checked with @noble/curves and viem.
 */
import { randomBytes } from "node:crypto";
import type { CdpClient } from "@coinbase/cdp-sdk";
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getAddressDecoder,
  getBase58Decoder,
  getBase58Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fund, hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  // Interval mining: the smart-account tests watch user operations wait for their block (broadcast, then complete).
  sandbox = await startSandbox({ port: 0, seed: "sdk-solana-smart", mining: "interval" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const RECIPIENT = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
const RECIPIENT_OF_TRANSFER = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
const publicKeyOf = (address: string) => new Uint8Array(getBase58Encoder().encode(address));

function unsignedTransaction(feePayer: string): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: toAddress("11111111111111111111111111111111"),
          accounts: [
            { address: toAddress(feePayer), role: 3 },
            { address: toAddress(RECIPIENT), role: 1 },
          ],
          data: new Uint8Array([2, 0, 0, 0, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0]), // 1,000,000 lamports: a new account must be rent-exempt
        },
        m,
      ),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}

describe("@coinbase/cdp-sdk Solana accounts", () => {
  it("creates, gets, getOrCreates and lists", async () => {
    const account = await cdp.solana.createAccount({ name: "sdk-sol" });
    expect((await cdp.solana.getAccount({ name: "sdk-sol" })).address).toBe(account.address);
    expect((await cdp.solana.getOrCreateAccount({ name: "sdk-sol" })).address).toBe(account.address);
    expect((await cdp.solana.listAccounts()).accounts.map((a) => a.address)).toContain(account.address);
  });

  it("renames a Solana account and refuses a taken name", async () => {
    const account = await cdp.solana.createAccount({ name: "sdk-sol-old" });
    await cdp.solana.createAccount({ name: "sdk-sol-taken" });
    const renamed = await cdp.solana.updateAccount({ address: account.address, update: { name: "sdk-sol-new" } });
    expect(renamed.name).toBe("sdk-sol-new");
    expect((await cdp.solana.getAccount({ name: "sdk-sol-new" })).address).toBe(account.address);
    await expect(cdp.solana.updateAccount({ address: account.address, update: { name: "sdk-sol-taken" } })).rejects.toMatchObject({
      statusCode: 409,
      errorType: "already_exists",
    });
  });

  it("signs a message and a transaction verifiably", async () => {
    const account = await cdp.solana.createAccount();
    const { signature } = await cdp.solana.signMessage({ address: account.address, message: "gm" });
    expect(ed25519.verify(new Uint8Array(getBase58Encoder().encode(signature)), new TextEncoder().encode("gm"), publicKeyOf(account.address))).toBe(true);
    const { signature: signedTransaction } = await cdp.solana.signTransaction({ address: account.address, transaction: unsignedTransaction(account.address) });
    const tx = getTransactionDecoder().decode(Buffer.from(signedTransaction, "base64"));
    expect(ed25519.verify(new Uint8Array(tx.signatures[toAddress(account.address)]!), new Uint8Array(tx.messageBytes), publicKeyOf(account.address))).toBe(
      true,
    );
  });

  it("gets devnet SOL from the faucet, sends a transaction, and sees the balances", async () => {
    const account = await cdp.solana.createAccount();
    // Two claims: the new recipient and the payer must both be left rent-exempt.
    await cdp.solana.requestFaucet({ address: account.address, token: "sol" });
    await cdp.solana.requestFaucet({ address: account.address, token: "sol" });
    const { signature } = await cdp.solana.sendTransaction({ network: "solana-devnet", transaction: unsignedTransaction(account.address) });
    expect(getBase58Encoder().encode(signature)).toHaveLength(64);
    const { balances } = await cdp.solana.listTokenBalances({ address: account.address, network: "solana-devnet" });
    expect(balances.find((b) => b.token.symbol === "SOL")?.amount.amount).toBe(2_500_000n - 5000n - 1_000_000n); // faucet × 2 − fee − sent
    const received = await cdp.solana.listTokenBalances({ address: RECIPIENT, network: "solana-devnet" });
    expect(received.balances[0]?.amount.amount).toBe(1_000_000n);
  });

  it("transfers SOL with account.transfer, the client reading the network from the sandbox's node", async () => {
    const path = "/apikeys/v1/tokens/active";
    const bearer = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
    const nodeToken = ((await (await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as { id: string }).id;
    const node = `${sandbox.url}/rpc/v1/solana-devnet/${nodeToken}`;
    // The client tells devnet from mainnet by the genesis hash of the connection it is given, then reads the
    // blockhash from the public devnet endpoint it names itself: that one is answered by the sandbox's node too.
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
      realFetch(String(input).startsWith("https://api.devnet.solana.com") ? node : input, init)) as typeof fetch;
    try {
      const account = await cdp.solana.createAccount();
      await fund(sandbox, { network: "solana-devnet", address: account.address, amount: "3000000" });
      const { signature } = await account.transfer({ to: RECIPIENT_OF_TRANSFER, amount: 1_000_000n, token: "sol", network: createSolanaRpc(node) });
      expect(getBase58Encoder().encode(signature)).toHaveLength(64);
      const rpc = createSolanaRpc(node);
      expect((await rpc.getBalance(toAddress(RECIPIENT_OF_TRANSFER)).send()).value).toBe(1_000_000n);
      expect((await rpc.getBalance(toAddress(account.address)).send()).value).toBe(3_000_000n - 1_000_000n - 5000n);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it("imports with the sandbox's encryptionPublicKey and exports the key back", async () => {
    const seed = randomBytes(32);
    const expected = getAddressDecoder().decode(ed25519.getPublicKey(seed));
    const imported = await cdp.solana.importAccount({
      privateKey: getBase58Decoder().decode(seed),
      encryptionPublicKey: sandbox.importKeyPem,
      name: "sdk-sol-imported",
    });
    expect(imported.address).toBe(expected);
    const exported = await cdp.solana.exportAccount({ name: "sdk-sol-imported" });
    expect(Buffer.from(getBase58Encoder().encode(exported)).subarray(0, 32).equals(seed)).toBe(true);
  });
});

describe("@coinbase/cdp-sdk smart accounts", () => {
  it("creates a smart account owned by a sandbox account, gets and lists it", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner, name: "sdk-smart" });
    expect(smart.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const fetched = await cdp.evm.getSmartAccount({ address: smart.address, owner });
    expect(fetched.address).toBe(smart.address);
    const again = await cdp.evm.getOrCreateSmartAccount({ name: "sdk-smart", owner });
    expect(again.address).toBe(smart.address);
    expect((await cdp.evm.listSmartAccounts()).accounts.map((a) => a.address)).toContain(smart.address);
  });

  it("renames a smart account", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner, name: "sdk-smart-old" });
    const renamed = await cdp.evm.updateSmartAccount({ address: smart.address, owner, update: { name: "sdk-smart-new" } });
    expect(renamed.name).toBe("sdk-smart-new");
    expect((await cdp.evm.getSmartAccount({ name: "sdk-smart-new", owner })).address).toBe(smart.address);
  });

  it("prepares a user operation, and prepares-and-sends one signed by the sandbox owner", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner });
    const calls = [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const, value: 0n, data: "0x" as const }];
    const prepared = await cdp.evm.prepareUserOperation({ smartAccount: smart, network: "base-sepolia", calls });
    expect(prepared.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(prepared.status).toBe("pending");
    const sent = await cdp.evm.prepareAndSendUserOperation({ smartAccount: smart, network: "base-sepolia", calls });
    expect(sent.status).toBe("broadcast");
    sandbox.clock.advance(4000);
    expect((await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: sent.userOpHash })).status).toBe("complete");
  });

  it("sends a user operation through the owner's signature and waits for it to complete", async () => {
    const owner = await cdp.evm.createAccount();
    const smart = await cdp.evm.createSmartAccount({ owner });
    const sent = await cdp.evm.sendUserOperation({
      smartAccount: smart,
      network: "base-sepolia",
      calls: [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 0n, data: "0x" }],
    });
    expect(sent.status).toBe("broadcast");
    sandbox.clock.advance(4000);
    const done = await cdp.evm.waitForUserOperation({ smartAccountAddress: smart.address, userOpHash: sent.userOpHash });
    expect(done.status).toBe("complete");
    const fetched = await cdp.evm.getUserOperation({ smartAccount: smart, userOpHash: sent.userOpHash });
    expect(fetched.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
