/**
 * wallet.* webhooks of API-key accounts over HTTP: signing events, and a
 * send's created → signed → broadcast in its request, then confirmed (or
 * failed, when it reverted) once its block is mined on the sandbox clock.
 */
import { encodeFunctionData, erc20Abi, serializeTransaction, keccak256, toHex } from "viem";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { blockTimestampOf } from "../../chain/blocks.js";
import { evmTokenBySymbol } from "../../chain/tokens.js";
import { call, fund, type Credentials } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const WALLET = [
  "wallet.transaction.created",
  "wallet.transaction.signed",
  "wallet.transaction.broadcast",
  "wallet.transaction.pending",
  "wallet.transaction.replaced",
  "wallet.transaction.confirmed",
  "wallet.transaction.failed",
  "wallet.message.signed",
  "wallet.typed_data.signed",
  "wallet.hash.signed",
];
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

// Interval mining: these tests see a send confirmed only once the clock mines its block.
const { sandbox, receiver } = await sandboxWithReceiver({ seed: "wallet-events", validateResponses: true, mining: "interval" });

const iso = () => new Date(sandbox.clock.now()).toISOString();
async function evmAccount(credentials?: Credentials): Promise<`0x${string}`> {
  const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true, credentials })).body.address;
  await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000000" }, credentials);
  return address;
}
const evm = (address: string, what: string, body: object, credentials?: Credentials) =>
  call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/${what}`, { body, wallet: true, credentials });
const send = (address: string, tx: Parameters<typeof serializeTransaction>[0], credentials?: Credentials) =>
  evm(address, "send/transaction", { network: "base-sepolia", transaction: serializeTransaction(tx) }, credentials);
const typedData = {
  domain: { name: "Mail", version: "1", chainId: 84532 },
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
    ],
    Mail: [{ name: "contents", type: "string" }],
  },
  primaryType: "Mail",
  message: { contents: "hi" },
};

describe("wallet webhooks of EVM accounts", () => {
  it("announce each signature made outside a send: hash, message, typed data, transaction", async () => {
    const sub = await subscribe(sandbox, receiver, WALLET);
    const address = await evmAccount();
    expect((await evm(address, "sign", { hash: keccak256(toHex("x")) })).status).toBe(200);
    expect((await evm(address, "sign/message", { message: "hello" })).status).toBe(200);
    expect((await evm(address, "sign/typed-data", typedData)).status).toBe(200);
    expect((await evm(address, "sign/transaction", { transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 1n }) })).status).toBe(
      200,
    );
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["wallet.hash.signed", "wallet.message.signed", "wallet.typed_data.signed", "wallet.transaction.signed"]);
    for (const e of got) expect(e.body).toEqual({ address, signed_at: iso() });
  });

  it("announce a send as created, signed and broadcast, then confirmed once its block is mined, at the block's time", async () => {
    const sub = await subscribe(sandbox, receiver, WALLET);
    const address = await evmAccount();
    const sentAt = iso();
    const res = await send(address, { type: "eip1559", chainId: 84532, to: TO, value: 1000n });
    expect(res.status).toBe(200);
    const hash = res.body.transactionHash as string;
    await flush(sandbox);
    const early = await deliveredTo(sandbox, receiver, sub);
    expect(early.map((e) => e.eventType)).toEqual(["wallet.transaction.created", "wallet.transaction.signed", "wallet.transaction.broadcast"]);
    expect(early.map((e) => e.body)).toEqual([
      { address, network: "base-sepolia", created_at: sentAt },
      { address, signed_at: sentAt },
      { transaction_hash: hash, address, network: "base-sepolia", broadcast_at: sentAt },
    ]);

    sandbox.clock.advance(2_000);
    await flush(sandbox);
    sandbox.clock.advance(60_000);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([...early.map((e) => e.eventType), "wallet.transaction.confirmed"]);
    const block = Math.floor((Date.parse(sentAt) - blockTimestampOf("base-sepolia", 0)) / 2000) + 1;
    expect(got[3]!.body).toEqual({
      transaction_hash: hash,
      address,
      network: "base-sepolia",
      confirmed_at: new Date(blockTimestampOf("base-sepolia", block)).toISOString(),
    });
  });

  it("announce a send that reverted onchain as failed, not confirmed", async () => {
    const sub = await subscribe(sandbox, receiver, ["wallet.transaction.confirmed", "wallet.transaction.failed"]);
    const address = await evmAccount();
    const usdc = evmTokenBySymbol("base-sepolia", "USDC")!.address;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, 1_000_000n] }); // holds no USDC: reverts
    const res = await send(address, { type: "eip1559", chainId: 84532, to: usdc, data });
    expect(res.status).toBe(200);
    sandbox.clock.advance(4_000);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(["wallet.transaction.failed"]);
    expect(got[0]!.body).toMatchObject({ transaction_hash: res.body.transactionHash, address, network: "base-sepolia", failed_at: expect.any(String) });
  });

  it("send nothing for a request that fails, nor to a subscription of other event types, nor to another project", async () => {
    const sub = await subscribe(sandbox, receiver, WALLET);
    const other = await subscribe(sandbox, receiver, ["wallet.delegation.created"]);
    const project = await sandbox.createProject("wallet-elsewhere");
    const theirs = await subscribe(sandbox, receiver, WALLET, project);
    const address = await evmAccount();
    expect((await evm(address, "sign/typed-data", { ...typedData, primaryType: "Nope" })).status).toBe(400);
    const broke = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true });
    const poor = await send(broke.body.address, { type: "eip1559", chainId: 84532, to: TO, value: 1n }); // cannot pay the gas: refused
    expect(poor.body.errorType).toBe("insufficient_balance");
    sandbox.clock.advance(4_000);
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(0);
    await send(address, { type: "eip1559", chainId: 84532, to: TO, value: 1n });
    sandbox.clock.advance(4_000);
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(4);
    expect(receiver.received(other.path)).toHaveLength(0);
    expect(receiver.received(theirs.path)).toHaveLength(0);
  });
});

describe("wallet webhooks of Solana accounts", () => {
  function unsignedTransfer(feePayer: string): string {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(toAddress(feePayer), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n }, m),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: toAddress("11111111111111111111111111111111"),
            // 1 lamport from the payer to itself: the System program needs both accounts.
            accounts: [
              { address: toAddress(feePayer), role: 3 as const },
              { address: toAddress(feePayer), role: 3 as const },
            ],
            data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
          },
          m,
        ),
    );
    return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
  }

  it("announce a signed message, and a send by its signature (no address), confirmed once its slot is reached", async () => {
    const sub = await subscribe(sandbox, receiver, WALLET);
    const address = (await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: {}, wallet: true })).body.address as string;
    await fund(sandbox, { network: "solana-devnet", address, amount: "1000000" });
    expect((await call(sandbox, "POST", `/platform/v2/solana/accounts/${address}/sign/message`, { body: { message: "gm" }, wallet: true })).status).toBe(200);
    const at = iso();
    const res = await call(sandbox, "POST", "/platform/v2/solana/accounts/send/transaction", {
      body: { network: "solana-devnet", transaction: unsignedTransfer(address) },
      wallet: true,
    });
    expect(res.status).toBe(200);
    const signature = res.body.transactionSignature as string;
    sandbox.clock.advance(1_000);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([
      "wallet.message.signed",
      "wallet.transaction.created",
      "wallet.transaction.signed",
      "wallet.transaction.broadcast",
      "wallet.transaction.confirmed",
    ]);
    expect(got.map((e) => e.body)).toEqual([
      { address, signed_at: at },
      { network: "solana-devnet", created_at: at },
      { address, signed_at: at },
      { transaction_signature: signature, network: "solana-devnet", broadcast_at: at },
      { transaction_signature: signature, network: "solana-devnet", confirmed_at: expect.any(String) },
    ]);
    expect(Date.parse(got[4]!.body.confirmed_at)).toBeGreaterThan(Date.parse(at));
  });
});
