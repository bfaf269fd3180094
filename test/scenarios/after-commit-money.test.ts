/**
 * Faults after the commit on the paths that settle value: swaps, transfers,
 * onramp orders, x402 settle and spend permissions. Each attempt happens and
 * is kept, then the client gets an error or a broken connection instead of the
 * answer; the ledger, the record and the node show the effect, a retry with the
 * same X-Idempotency-Key replays the real answer without a second effect, and
 * one without it performs the effect again, marked X-Sandbox-Duplicate-Of —
 * unless the effect can only happen once (an executed transfer, a used x402
 * nonce, a settled quote), when the retry changes nothing.
 */
import { decodeErrorResult, encodeFunctionData, serializeTransaction, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { faultAfter, outcome, repeated, replayed, rpc, switchOnAfterCommitFaults, tokenBalance } from "#test/helpers/afterCommit.js";
import { balanceOf, fundAccount, openAccount } from "#test/helpers/money.js";
import { getOrder, orderBody } from "#test/helpers/onramp.js";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { signAuthorization, USDC_BASE_SEPOLIA, v2Body, v2Requirements } from "#test/helpers/x402.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "after-commit-money" });
  await switchOnAfterCommitFaults(sandbox);
});
afterAll(() => sandbox.close());

const P = "/platform/v2";
const key = (k: string) => ({ "X-Idempotency-Key": k });
const newEvmAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const newEvmAccount = async () => (await call(sandbox, "POST", `${P}/evm/accounts`, { body: {}, wallet: true })).body.address as `0x${string}`;
const balance = (network: string, address: string, symbol: string) => tokenBalance(sandbox, "evm", network, address, symbol);
/** The client's own deadline for an answer that never comes. */
const CLIENT_TIMEOUT_MS = 1000;

/** Mines what is pending and reads the transaction's receipt from the node. */
async function receipt(network: string, hash: string) {
  sandbox.clock.advance(4000);
  return (await rpc(sandbox, network, "eth_getTransactionReceipt", [hash])) as { status: string; revertReason?: Hex } | null;
}
/** A transaction the official client would send: EIP-1559, chainId 1 (the network decides). */
const sendTransaction = (from: string, network: string, tx: { to: `0x${string}`; data?: Hex; value?: bigint }, headers: Record<string, string> = {}) =>
  call(sandbox, "POST", `${P}/evm/accounts/${from}/send/transaction`, {
    body: { network, transaction: serializeTransaction({ ...tx, chainId: 1, type: "eip1559" }) },
    wallet: true,
    headers,
  });

describe("swaps", () => {
  it("the taker's send of the quote hangs after the send, yet the swap settled; a keyless retry sends again and reverts as already settled", async () => {
    const taker = await newEvmAccount();
    await fund(sandbox, { network: "base", address: taker, amount: "1000000000000000000" });
    const quote = await call(sandbox, "POST", `${P}/evm/swaps`, {
      body: {
        network: "base",
        taker,
        fromToken: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
        toToken: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        fromAmount: "1000000000000000",
      },
    });
    expect(quote.status, quote.text).toBe(201);
    const { to, data, value } = quote.body.transaction as { to: `0x${string}`; data: Hex; value: string };
    const send = (headers: Record<string, string> = {}, timeout?: number) =>
      call(sandbox, "POST", `${P}/evm/accounts/${taker}/send/transaction`, {
        body: { network: "base", transaction: serializeTransaction({ to, data, value: BigInt(value), chainId: 1, type: "eip1559" }) },
        wallet: true,
        headers,
        timeout,
      });

    const lost = await outcome(send({ ...key("swap"), ...faultAfter("hang") }, CLIENT_TIMEOUT_MS));
    expect(lost.error).toBe("ECONNABORTED"); // the client's own timeout
    const replay = await replayed(send(key("swap")));
    expect(await receipt("base", replay.body.transactionHash)).toMatchObject({ status: "0x1" });
    const bought = await balance("base", taker, "USDC");
    expect(BigInt(bought)).toBe(BigInt(quote.body.toAmount));
    const again = await repeated(sandbox, send(), lost);
    expect(again.body.transactionHash).not.toBe(replay.body.transactionHash);
    const reverted = await receipt("base", again.body.transactionHash);
    expect(reverted?.status).toBe("0x0");
    expect(
      decodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ name: "m", type: "string" }] }], data: reverted!.revertReason! }).args[0],
    ).toMatch(/already settled/);
    expect(await balance("base", taker, "USDC")).toBe(bought);
  });
});

describe("transfers", () => {
  async function fundedPair(name: string) {
    const from = await openAccount(sandbox, { name: `${name}-from` });
    const to = await openAccount(sandbox, { name: `${name}-to` });
    await fundAccount(sandbox, from, "usdc", "100");
    return { from, to };
  }
  const body = (from: string, to: string, amount: string, execute: boolean) => ({
    source: { accountId: from, asset: "usdc" },
    target: { accountId: to, asset: "usdc" },
    amount,
    asset: "usdc",
    execute,
  });

  it("createTransfer with execute: a 500 after it started, yet the transfer exists and settles; a keyless retry starts another", async () => {
    const { from, to } = await fundedPair("create");
    const create = (headers: Record<string, string> = {}) => call(sandbox, "POST", `${P}/transfers`, { body: body(from, to, "10", true), headers });
    const lost = await outcome(create({ ...key("transfer-create"), "X-Sandbox-Scenario": "transfer-succeeds-then-500" }));
    expect(lost.status).toBe(500);
    const listed = (await call(sandbox, "GET", `${P}/transfers?sourceAccountId=${from}`)).body.transfers as Array<{ transferId: string; status: string }>;
    expect(listed).toMatchObject([{ status: "processing" }]);
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "90.00", total: "100.00" });
    const replay = await replayed(create(key("transfer-create")));
    expect(replay.body.transferId).toBe(listed[0]!.transferId);
    sandbox.clock.advance(5000);
    expect((await call(sandbox, "GET", `${P}/transfers/${replay.body.transferId}`)).body.status).toBe("completed");
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "10.00", total: "10.00" });
    const again = await repeated(sandbox, create(), lost);
    expect(again.body.transferId).not.toBe(replay.body.transferId);
    sandbox.clock.advance(5000);
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "20.00", total: "20.00" });
  });

  it("executeFundTransfer: the connection closes after the headers, yet the transfer executed; a keyless retry is refused and moves nothing", async () => {
    const { from, to } = await fundedPair("execute");
    const quote = await call(sandbox, "POST", `${P}/transfers`, { body: body(from, to, "40", false) });
    const execute = (headers: Record<string, string> = {}) => call(sandbox, "POST", `${P}/transfers/${quote.body.transferId}/execute`, { headers });
    const lost = await outcome(execute({ ...key("transfer-execute"), ...faultAfter("close-after-headers") }));
    expect(lost.error).toBe("ECONNRESET");
    expect((await call(sandbox, "GET", `${P}/transfers/${quote.body.transferId}`)).body.status).toBe("processing");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "60.00", total: "100.00" });
    expect((await replayed(execute(key("transfer-execute")))).body).toMatchObject({ transferId: quote.body.transferId, status: "processing" });
    const again = await execute();
    expect(again.status).toBe(400);
    expect(again.body.errorMessage).toMatch(/is processing/);
    expect(again.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    sandbox.clock.advance(5000);
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "40.00", total: "40.00" });
  });
});

describe("onramp orders", () => {
  it("createOnrampOrder: the body is cut short, yet the order exists and delivers; a keyless retry places another order", async () => {
    const holder = await newEvmAccount();
    const order = orderBody(sandbox, { destinationAddress: holder });
    const place = (headers: Record<string, string> = {}) => call(sandbox, "POST", `${P}/onramp/orders`, { body: order, headers });
    const lost = await outcome(place({ ...key("onramp"), ...faultAfter("truncate") }));
    expect(lost.error).toBe("ECONNRESET");
    sandbox.clock.advance(60_000);
    expect(await balance("base", holder, "USDC")).toBe("19410000");
    const replay = await replayed(place(key("onramp")));
    const done = (await getOrder(sandbox, replay.body.order.orderId)).body.order;
    expect(done.status).toBe("ONRAMP_ORDER_STATUS_COMPLETED");
    expect(await receipt("base", done.txHash)).toMatchObject({ status: "0x1" });
    expect(await balance("base", holder, "USDC")).toBe("19410000");
    const again = await repeated(sandbox, place(), lost);
    expect(again.body.order.orderId).not.toBe(replay.body.order.orderId);
    sandbox.clock.advance(60_000);
    expect(await balance("base", holder, "USDC")).toBe("38820000");
  });
});

describe("x402", () => {
  it("settleX402Payment: the answer never comes after the settlement, yet the USDC moved; a keyless retry is refused (the nonce is used)", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "1000000" });
    const merchant = newEvmAddress();
    const payload = await signAuthorization(payer, { to: merchant, value: "250000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    const body = v2Body(v2Requirements(merchant, "250000"), payload);
    const settle = (headers: Record<string, string> = {}, timeout?: number) => call(sandbox, "POST", `${P}/x402/settle`, { body, headers, timeout });
    const lost = await outcome(settle({ ...key("x402"), "X-Sandbox-Scenario": "settle-succeeds-then-timeout" }, CLIENT_TIMEOUT_MS));
    expect(lost.error).toBe("ECONNABORTED");
    expect(await balance("base-sepolia", merchant, "USDC")).toBe("250000");
    const replay = await replayed(settle(key("x402")));
    expect(replay.body).toMatchObject({ success: true, payer: payer.address, amount: "250000" });
    expect(await receipt("base-sepolia", replay.body.transaction)).toMatchObject({ status: "0x1" });
    const again = await settle();
    expect(again.status).toBe(400);
    expect(again.body.errorReason).toBe("invalid_exact_evm_nonce_already_used");
    expect(again.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    expect(await balance("base-sepolia", merchant, "USDC")).toBe("250000");
    expect(await balance("base-sepolia", payer.address, "USDC")).toBe("750000");
  });
});

describe("spend permissions", () => {
  const MANAGER = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad";
  const PERMISSION = {
    type: "tuple",
    name: "spendPermission",
    components: [
      "account:address",
      "spender:address",
      "token:address",
      "allowance:uint160",
      "period:uint48",
      "start:uint48",
      "end:uint48",
      "salt:uint256",
      "extraData:bytes",
    ].map((c) => ({ name: c.split(":")[0]!, type: c.split(":")[1]! })),
  } as const;
  const spendAbi = [
    { type: "function", name: "spend", stateMutability: "nonpayable", inputs: [PERMISSION, { name: "value", type: "uint160" }], outputs: [] },
  ] as const;

  it("createSpendPermission and the spender's spend: errors and resets after the commit, yet the permission exists and the USDC moved", async () => {
    const smart = (await call(sandbox, "POST", `${P}/evm/smart-accounts`, { body: { owners: [await newEvmAccount()] } })).body.address as string;
    await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "5000000" });
    const spender = await newEvmAccount();
    await fund(sandbox, { network: "base-sepolia", address: spender, amount: "1000000000000000000" });
    const now = Math.floor(sandbox.clock.now() / 1000);
    const terms = {
      network: "base-sepolia",
      spender,
      token: USDC_BASE_SEPOLIA,
      allowance: "1000000",
      period: "86400",
      start: String(now),
      end: String(now + 864_000),
    };
    const create = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${P}/evm/smart-accounts/${smart}/spend-permissions`, { body: terms, wallet: true, headers });
    const list = async () => (await call(sandbox, "GET", `${P}/evm/smart-accounts/${smart}/spend-permissions/list`)).body.spendPermissions;

    const lostCreate = await outcome(create({ ...key("sp-create"), "X-Sandbox-Error": "bad_gateway;phase=after" }));
    expect(lostCreate.status).toBe(502);
    const [listed] = await list();
    expect(listed).toMatchObject({ revoked: false, permission: { spender, allowance: "1000000" } });
    const replay = await replayed(create(key("sp-create")));
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "GET", `${P}/evm/smart-accounts/${smart}/user-operations/${replay.body.userOpHash}`)).body.status).toBe("complete");
    const again = await repeated(sandbox, create(), lostCreate);
    expect(again.body.userOpHash).not.toBe(replay.body.userOpHash); // a second approve: the same permission, approved again
    expect(await list()).toHaveLength(1);

    const p = listed.permission as Record<string, string>;
    const permission = { ...p, allowance: BigInt(p.allowance!), period: Number(p.period), start: Number(p.start), end: Number(p.end), salt: BigInt(p.salt!) };
    const data = encodeFunctionData({ abi: spendAbi, functionName: "spend", args: [permission as never, 300_000n] });
    const spend = (headers: Record<string, string> = {}) => sendTransaction(spender, "base-sepolia", { to: MANAGER, data }, headers);
    const lostSpend = await outcome(spend({ ...key("sp-spend"), "X-Sandbox-Scenario": "send-then-connection-reset" }));
    expect(lostSpend.error).toBe("ECONNRESET");
    const spent = await replayed(spend(key("sp-spend")));
    expect(await receipt("base-sepolia", spent.body.transactionHash)).toMatchObject({ status: "0x1" });
    expect(await balance("base-sepolia", spender, "USDC")).toBe("300000");
    await repeated(sandbox, spend(), lostSpend);
    sandbox.clock.advance(4000);
    expect(await balance("base-sepolia", spender, "USDC")).toBe("600000");
    expect(await balance("base-sepolia", smart, "USDC")).toBe("4400000");
  });
});
