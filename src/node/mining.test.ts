/**
 * When sent transactions are mined, read back through the node with viem and
 * @solana/kit: automine (the default) includes a transaction in the block the
 * clock is in, so a client that asks for the receipt once, right after
 * sending, gets it; interval mining waits for the next block on the clock.
 */
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
import request from "supertest";
import { createPublicClient, http, parseEther, serializeTransaction, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock, startSandbox, type Sandbox, type SandboxOptions } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

async function nodeUrl(sandbox: Sandbox, network: string): Promise<string> {
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
  const token = (await request(sandbox.url).get(path).set("Authorization", `Bearer ${bearer}`)).body.id;
  return `${sandbox.url}/rpc/v1/${network}/${token}`;
}

/** A sandbox on a frozen clock (no block boundary passes by itself) with a viem client on its Base Sepolia node. */
async function chainOn(options: SandboxOptions) {
  const clock = createClock();
  clock.freeze(true);
  const sandbox = await withSandbox({ clock, ...options });
  const client = createPublicClient({ chain: baseSepolia, transport: http(await nodeUrl(sandbox, "base-sepolia")) }) as PublicClient;
  return { sandbox, client };
}

async function sendEth(sandbox: Sandbox) {
  const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
  await fund(sandbox, { network: "base-sepolia", address, amount: parseEther("1").toString() });
  const sent = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
    body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 1000n }) },
    wallet: true,
  });
  expect(sent.status).toBe(200);
  return sent.body.transactionHash as `0x${string}`;
}

/** A SOL transfer signed with noble, as any wallet signs it. */
function signedSolTransfer(seed: Uint8Array, to: string, blockhash: string): string {
  const payer = getAddressDecoder().decode(ed25519.getPublicKey(seed));
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(900_000n, 4); // a new account must be left rent-exempt
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
  return Buffer.from(getTransactionEncoder().encode({ ...tx, signatures: { [payer]: signature } as never })).toString("base64");
}

describe("automine, the default", () => {
  let sandbox: Sandbox;
  let client: PublicClient;
  beforeAll(async () => ({ sandbox, client } = await chainOn({ seed: "mining-auto" })));
  afterAll(() => sandbox.close());

  it("mines a sent transaction at once: one eth_getTransactionReceipt right after the send finds it in the latest block", async () => {
    expect(sandbox.mining).toBe("auto");
    const hash = await sendEth(sandbox);
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(await client.getBlockNumber());
    expect((await client.getBlock({ blockNumber: receipt.blockNumber })).transactions).toContain(hash);
    expect((await client.getTransaction({ hash })).blockNumber).toBe(receipt.blockNumber);
  });

  it("mines faucet payouts and eth_sendRawTransaction the same way", async () => {
    const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
    const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eth" } });
    expect((await client.getTransactionReceipt({ hash: faucet.body.transactionHash })).status).toBe("success");
    const outsider = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: outsider.address, amount: parseEther("1").toString() });
    const raw = await outsider.signTransaction({ type: "eip1559", chainId: 84532, nonce: 0, to: TO, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 9n });
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    expect((await client.getTransactionReceipt({ hash })).status).toBe("success");
  });

  it("confirms a Solana transaction at once", async () => {
    const url = await nodeUrl(sandbox, "solana-devnet");
    const rpc = createSolanaRpc(url);
    const seed = randomBytes(32);
    const payer = getAddressDecoder().decode(ed25519.getPublicKey(seed));
    await fund(sandbox, { network: "solana-devnet", address: payer, amount: "2000000" });
    const { value } = await rpc.getLatestBlockhash().send();
    const to = getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
    const signature = await rpc.sendTransaction(signedSolTransfer(seed, to, value.blockhash) as never, { encoding: "base64" }).send();
    const { value: statuses } = await rpc.getSignatureStatuses([signature]).send();
    expect(statuses[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });
  });
});

describe("interval mining", () => {
  let sandbox: Sandbox;
  let client: PublicClient;
  beforeAll(async () => ({ sandbox, client } = await chainOn({ seed: "mining-interval", mining: "interval" })));
  afterAll(() => sandbox.close());

  it("includes a sent transaction in the next block: no receipt until the clock reaches it", async () => {
    expect(sandbox.mining).toBe("interval");
    const hash = await sendEth(sandbox);
    const head = await client.getBlockNumber();
    await expect(client.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
    expect((await client.getTransaction({ hash })).blockNumber).toBeNull(); // known, pending
    sandbox.clock.advance(2000); // one Base Sepolia block
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(head + 1n);
  });
});

describe("the mining option", () => {
  it("refuses a mode it does not know", async () => {
    await expect(startSandbox({ port: 0, mining: "instant" as never })).rejects.toThrow(/mining must be auto or interval/);
  });
});
