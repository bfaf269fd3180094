/**
 * Swap quotes executed on the simulated chain: the taker signs the Permit2
 * typed data, appends the signature to the quote's calldata as the official
 * client does, and sends it; the settler moves both tokens or reverts.
 * Balances are read through the token balance API and the node (viem), and
 * signatures are made and checked with viem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import {
  concat,
  createPublicClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  hashTypedData,
  erc20Abi,
  http,
  numberToHex,
  parseEventLogs,
  serializeTransaction,
  size,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let node: PublicClient;
let rpcPath: string;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "swap-settlement", validateResponses: true });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  rpcPath = `/rpc/v1/base/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
  node = createPublicClient({ chain: base, transport: http(`${sandbox.url}${rpcPath}`) }) as PublicClient;
});
afterAll(() => sandbox.close());

const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const WETH = "0x4200000000000000000000000000000000000006";
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const ONE_ETH = "1000000000000000000";

async function newTaker(usdc = "10000000"): Promise<`0x${string}`> {
  const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
  await fund(sandbox, { network: "base", address, amount: ONE_ETH });
  await fund(sandbox, { network: "base", address, token: "USDC", amount: usdc });
  return address;
}

/** Sends as the official client does: an EIP-1559 request serialized with chainId 1; the network decides. */
async function send(from: string, tx: { to: `0x${string}`; data?: Hex; value?: bigint; gas?: bigint }): Promise<Hex> {
  const transaction = serializeTransaction({ ...tx, chainId: 1, type: "eip1559" });
  const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${from}/send/transaction`, { body: { network: "base", transaction }, wallet: true });
  expect(res.status).toBe(200);
  return res.body.transactionHash;
}

const approve = (from: string, amount: bigint) =>
  send(from, { to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, amount] }) });
const quoteFor = async (taker: string, b: Record<string, string> = {}) =>
  (await call(sandbox, "POST", "/platform/v2/evm/swaps", { body: { network: "base", taker, fromToken: USDC, toToken: WETH, fromAmount: "3000000", ...b } }))
    .body;
const signTypedData = async (signer: string, typedData: object): Promise<Hex> =>
  (await call(sandbox, "POST", `/platform/v2/evm/accounts/${signer}/sign/typed-data`, { body: typedData, wallet: true })).body.signature;
/** The quote's calldata with a 32-byte signature length and the signature appended. */
const withSignature = (data: Hex, signature: Hex) => concat([data, numberToHex(size(signature), { size: 32 }), signature]);
const sendQuote = (taker: string, q: { transaction: { to: `0x${string}`; data: Hex; gas: string; value: string } }, data: Hex) =>
  send(taker, { to: q.transaction.to, data, gas: BigInt(q.transaction.gas), value: BigInt(q.transaction.value) });

async function mined(hash: Hex) {
  sandbox.clock.advance(4000);
  return node.getTransactionReceipt({ hash });
}
/** The settler's reason, as the node reports it next to a reverted receipt (ABI-encoded Error(string)). */
async function revertReason(hash: Hex): Promise<string> {
  const res = await request(sandbox.url)
    .post(rpcPath)
    .set("Content-Type", "application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] }));
  return decodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }], data: res.body.result.revertReason })
    .args[0] as string;
}
const balanceOf = (token: `0x${string}`, holder: `0x${string}`) =>
  node.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [holder] });
async function apiBalances(holder: string): Promise<Record<string, string>> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${holder}`);
  return Object.fromEntries(res.body.balances.map((b: { token: { symbol: string }; amount: { amount: string } }) => [b.token.symbol, b.amount.amount]));
}

describe("swap settlement on the ledger", () => {
  it("price → quote → Permit2 signature → send: USDC leaves the taker and WETH arrives, on the balance API and through eth_call", async () => {
    const taker = await newTaker();
    await approve(taker, 5_000_000n);
    const price = (await call(sandbox, "GET", `/platform/v2/evm/swaps/quote?network=base&taker=${taker}&fromToken=${USDC}&toToken=${WETH}&fromAmount=3000000`))
      .body;
    const q = await quoteFor(taker);
    expect(q.toAmount).toBe(price.toAmount);
    expect(q.issues).toEqual({ allowance: null, balance: null, simulationIncomplete: false });
    const signature = await signTypedData(taker, q.permit2.eip712);
    const hash = await sendQuote(taker, q, withSignature(q.transaction.data, signature));
    const receipt = await mined(hash);
    expect(receipt.status).toBe("success");
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers.map((t) => [t.address.toLowerCase(), t.args.value])).toEqual([
      [USDC.toLowerCase(), 3_000_000n],
      [WETH.toLowerCase(), BigInt(q.toAmount)],
    ]);
    expect(transfers[0]!.args.from).toBe(taker);
    expect(transfers[1]!.args.to).toBe(taker);
    expect(await balanceOf(USDC, taker)).toBe(7_000_000n);
    expect(await balanceOf(WETH, taker)).toBe(999_000_000_000_000n);
    expect(await node.readContract({ address: USDC, abi: erc20Abi, functionName: "allowance", args: [taker, PERMIT2] })).toBe(2_000_000n);
    expect(await apiBalances(taker)).toMatchObject({ USDC: "7000000", WETH: "999000000000000" });
  });

  it("sells native ETH with the transaction's value and needs no signature", async () => {
    const taker = await newTaker("0");
    const q = await quoteFor(taker, { fromToken: ETH, toToken: USDC, fromAmount: "1000000000000000" });
    const before = await node.getBalance({ address: taker });
    const receipt = await mined(await sendQuote(taker, q, q.transaction.data));
    expect(receipt.status).toBe("success");
    expect(await balanceOf(USDC, taker)).toBe(2_997_000n);
    expect(before - (await node.getBalance({ address: taker }))).toBe(1_000_000_000_000_000n + receipt.gasUsed * receipt.effectiveGasPrice);
  });

  it("reverts without an ERC-20 allowance to Permit2, as the quote's issues warned, and moves no token", async () => {
    const taker = await newTaker();
    const q = await quoteFor(taker);
    expect(q.issues.allowance).toEqual({ currentAllowance: "0", spender: PERMIT2 });
    const hash = await sendQuote(taker, q, withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712)));
    expect((await mined(hash)).status).toBe("reverted");
    expect(await revertReason(hash)).toContain("TRANSFER_FROM_FAILED");
    expect(await apiBalances(taker)).toEqual({ ETH: expect.any(String), USDC: "10000000" });
  });

  it("reverts a Permit2 signature by anyone but the taker, and a call without one", async () => {
    const taker = await newTaker();
    await approve(taker, 10_000_000n);
    const q = await quoteFor(taker);
    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(q.permit2.eip712);
    const bad = await sendQuote(taker, q, withSignature(q.transaction.data, forged));
    expect((await mined(bad)).status).toBe("reverted");
    expect(await revertReason(bad)).toContain("invalid signature");
    const unsigned = await sendQuote(taker, q, q.transaction.data);
    expect((await mined(unsigned)).status).toBe("reverted");
    expect(await revertReason(unsigned)).toContain("no Permit2 signature");
    // The quote stayed open: the right signature still settles it.
    expect((await mined(await sendQuote(taker, q, withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712))))).status).toBe("success");
  });

  it("reverts a replayed (settled) quote and an unknown one", async () => {
    const taker = await newTaker();
    await approve(taker, 10_000_000n);
    const q = await quoteFor(taker);
    const data = withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712));
    expect((await mined(await sendQuote(taker, q, data))).status).toBe("success");
    const replay = await sendQuote(taker, q, data);
    expect((await mined(replay)).status).toBe("reverted");
    expect(await revertReason(replay)).toContain("already settled");
    const unknown = await sendQuote(taker, q, `0x${data.slice(2, 10)}${"11".repeat(32)}${data.slice(74)}` as Hex);
    expect((await mined(unknown)).status).toBe("reverted");
    expect(await revertReason(unknown)).toContain("unknown quote");
    expect(await balanceOf(USDC, taker)).toBe(7_000_000n);
  });

  it("reverts calldata whose terms differ from the quote's, a sender other than the taker, and a wrong value", async () => {
    const taker = await newTaker();
    await approve(taker, 10_000_000n);
    const q = await quoteFor(taker);
    const data = withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712));
    // buyAmount is the sixth word after the selector: ask for one more unit than quoted.
    const word = 10 + 64 * 5;
    const greedy = `${data.slice(0, word)}${(BigInt(q.toAmount) + 1n).toString(16).padStart(64, "0")}${data.slice(word + 64)}` as Hex;
    const tampered = await sendQuote(taker, q, greedy);
    expect((await mined(tampered)).status).toBe("reverted");
    expect(await revertReason(tampered)).toContain("differ from the quote");
    const other = await newTaker();
    const stolen = await sendQuote(other, q, data);
    expect((await mined(stolen)).status).toBe("reverted");
    expect(await revertReason(stolen)).toContain(`only the taker ${taker}`);
    const paid = await send(taker, { to: q.transaction.to, data, value: 1n });
    expect((await mined(paid)).status).toBe("reverted");
    expect(await revertReason(paid)).toContain("value must be 0 wei");
    expect(await apiBalances(taker)).toMatchObject({ USDC: "10000000" });
  });

  it("reverts once the quote's deadline has passed on the sandbox clock", async () => {
    const taker = await newTaker();
    await approve(taker, 10_000_000n);
    const q = await quoteFor(taker);
    const data = withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712));
    sandbox.clock.advance(601_000);
    const hash = await sendQuote(taker, q, data);
    expect((await mined(hash)).status).toBe("reverted");
    expect(await revertReason(hash)).toContain("expired");
  });

  it("reverts when the taker's balance moved below the quote's amount after quoting", async () => {
    const taker = await newTaker("3000000");
    await approve(taker, 10_000_000n);
    const q = await quoteFor(taker);
    await send(taker, {
      to: USDC,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8", 1n] }),
    });
    const hash = await sendQuote(taker, q, withSignature(q.transaction.data, await signTypedData(taker, q.permit2.eip712)));
    expect((await mined(hash)).status).toBe("reverted");
    expect(await revertReason(hash)).toContain("holds 2999999");
    expect(await balanceOf(WETH, taker)).toBe(0n);
  });

  it("settles a smart account's swap sent as a user operation, with the owner's wrapped (ERC-1271) Permit2 signature", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner] } })).body.address as `0x${string}`;
    await fund(sandbox, { network: "base", address: smart, token: "USDC", amount: "6000000" });
    const operate = async (to: string, data: Hex) => {
      const res = await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/user-operations/prepare-and-send`, {
        body: { network: "base", calls: [{ to, value: "0", data }] },
        wallet: true,
      });
      expect(res.status).toBe(200);
      sandbox.clock.advance(4000);
      return (await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${smart}/user-operations/${res.body.userOpHash}`)).body.status;
    };
    expect(await operate(USDC, encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, 6_000_000n] }))).toBe("complete");
    // What the wallet's isValidSignature checks: an owner's signature of the replay-safe hash, wrapped with the owner's index.
    const wrappedBy = async (sign: (typedData: object) => Promise<Hex>, permit2: { eip712: Parameters<typeof hashTypedData>[0] }) => {
      const replaySafe = {
        domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 8453, verifyingContract: smart },
        types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
        primaryType: "CoinbaseSmartWalletMessage",
        message: { hash: hashTypedData(permit2.eip712) },
      };
      const signature = await sign(replaySafe);
      return encodeAbiParameters(
        [
          {
            type: "tuple",
            components: [
              { name: "ownerIndex", type: "uint8" },
              { name: "signatureData", type: "bytes" },
            ],
          },
        ],
        [{ ownerIndex: 0, signatureData: signature }],
      );
    };
    const q = await quoteFor(smart, { signerAddress: owner });
    expect(await operate(q.transaction.to, withSignature(q.transaction.data, await wrappedBy((td) => signTypedData(owner, td), q.permit2)))).toBe("complete");
    expect(await balanceOf(WETH, smart)).toBe(999_000_000_000_000n);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const q2 = await quoteFor(smart, { signerAddress: owner });
    expect(await operate(q2.transaction.to, withSignature(q2.transaction.data, await wrappedBy((td) => stranger.signTypedData(td as never), q2.permit2)))).toBe(
      "failed",
    );
    expect(await apiBalances(smart)).toEqual({ USDC: "3000000", WETH: "999000000000000" });
  });
});
