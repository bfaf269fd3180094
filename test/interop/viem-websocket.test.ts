/**
 * The EVM node over WebSocket, through viem's `webSocket` transport: ordinary calls, `watchBlocks` (newHeads),
 * `watchContractEvent` on the modelled USDC (logs with an address and a topic filter) and
 * `watchPendingTransactions` (newPendingTransactions), driven by sends and faucet payouts with the clock frozen —
 * every event comes from a commit, none from waiting. A raw client checks `eth_unsubscribe`, bad filters, the
 * token rules, and that under interval mining a log waits for its block.
 */
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, type PublicClient, webSocket } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWebSocket, refusedWith } from "#test/helpers/webSocket.js";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox, nodeUrlFor } from "#test/helpers/sandbox.js";
import { USDC_BASE_SEPOLIA } from "#test/helpers/x402.js";

const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** Resolves with the first value `watch` hands its callback (the watcher is stopped then). */
function first<T>(watch: (emit: (value: T) => void) => () => void): Promise<T> {
  return new Promise((resolve) => {
    const stop = watch((value) => {
      stop();
      resolve(value);
    });
  });
}

describe("viem's webSocket transport on the EVM node", () => {
  let sandbox: Sandbox;
  let wsUrl: string;
  let httpUrl: string;
  let client: PublicClient;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "viem-websocket" });
    sandbox.clock.freeze(true);
    httpUrl = await nodeUrlFor(sandbox, "base-sepolia");
    wsUrl = httpUrl.replace(/^http/, "ws");
    client = createPublicClient({ chain: baseSepolia, transport: webSocket(wsUrl) }) as PublicClient;
  });
  afterAll(async () => {
    await (await client.transport.getRpcClient()).close();
    await sandbox.close();
  });

  it("answers ordinary calls over the socket as the HTTP node does", async () => {
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    await fund(sandbox, { network: "base-sepolia", address: holder, amount: "1234" });
    expect(await client.getChainId()).toBe(84532);
    expect(await client.getBalance({ address: holder })).toBe(1234n);
    const viaHttp = createPublicClient({ chain: baseSepolia, transport: http(httpUrl) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await viaHttp.getBlockNumber({ cacheTime: 0 }));
  });

  it("sends a signed transaction over the socket and reads its receipt there, as over HTTP", async () => {
    const sender = privateKeyToAccount(generatePrivateKey());
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await fund(sandbox, { network: "base-sepolia", address: sender.address, amount: parseEther("1").toString() });
    const wallet = createWalletClient({ account: sender, chain: baseSepolia, transport: webSocket(wsUrl) });
    const hash = await wallet.sendTransaction({ to: recipient, value: 5n });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await createPublicClient({ chain: baseSepolia, transport: http(httpUrl) }).getBalance({ address: recipient })).toBe(5n);
  });

  it("watchBlocks hears the block a send mines, and watchPendingTransactions its hash", async () => {
    const sender = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: sender.address, amount: parseEther("1").toString() });
    const block = first<{ number: bigint | null; hash: string | null }>((emit) => client.watchBlocks({ onBlock: emit, emitOnBegin: false }));
    const pending = first<`0x${string}`[]>((emit) => client.watchPendingTransactions({ onTransactions: emit }));
    // Both subscriptions are open once the transport has answered a call after them (one socket, answered in order).
    await client.getChainId();
    const wallet = createWalletClient({ account: sender, chain: baseSepolia, transport: http(httpUrl) });
    const hash = await wallet.sendTransaction({ to: privateKeyToAccount(generatePrivateKey()).address, value: 1n });
    const receipt = await createPublicClient({ chain: baseSepolia, transport: http(httpUrl) }).getTransactionReceipt({ hash });
    expect(await pending).toEqual([hash]);
    const heard = await block;
    expect(heard.number).toBe(receipt.blockNumber);
    expect(heard.hash).toBe(receipt.blockHash);
  });

  it("watchContractEvent hears USDC's Transfer to one address from a faucet payout, and not another's", async () => {
    const watched = privateKeyToAccount(generatePrivateKey()).address;
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const heard: { to: string; value: bigint }[] = [];
    const logs = first<unknown>((emit) =>
      client.watchContractEvent({
        address: USDC_BASE_SEPOLIA,
        abi: erc20Abi,
        eventName: "Transfer",
        args: { to: watched },
        onLogs: (batch) => {
          for (const l of batch) heard.push({ to: l.args.to!, value: l.args.value! });
          emit(batch);
        },
      }),
    );
    await client.getChainId();
    await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address: other, token: "usdc" } });
    const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address: watched, token: "usdc" } });
    expect(faucet.status).toBe(200);
    await logs;
    expect(heard).toEqual([{ to: watched, value: 1_000_000n }]);
  });
});

describe("eth_subscribe over a raw WebSocket", () => {
  let sandbox: Sandbox;
  let wsUrl: string;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "evm-websocket-raw", mining: "interval" });
    sandbox.clock.freeze(true);
    wsUrl = (await nodeUrlFor(sandbox, "base-sepolia")).replace(/^http/, "ws");
  });
  afterAll(() => sandbox.close());

  it("refuses an unknown token or network before the upgrade", async () => {
    expect(await refusedWith(`${sandbox.url.replace(/^http/, "ws")}/rpc/v1/base-sepolia/not-a-token`)).toBe(401);
    expect(await refusedWith(wsUrl.replace("/base-sepolia/", "/not-a-network/"))).toBe(404);
    expect(await refusedWith(`${sandbox.url.replace(/^http/, "ws")}/rpc/v1/base-sepolia/%ZZ`)).toBe(400);
  });

  it("refuses unknown subscriptions and malformed filters with -32602, and unsubscribes once", async () => {
    const c = await openWebSocket(wsUrl);
    c.send({ id: 1, method: "eth_subscribe", params: ["syncing"] });
    expect(await c.next()).toMatchObject({ id: 1, error: { code: -32602 } });
    c.send({ id: 2, method: "eth_subscribe", params: ["logs", { address: "0x12" }] });
    expect(await c.next()).toMatchObject({ id: 2, error: { code: -32602 } });
    c.send({ id: 3, method: "eth_subscribe", params: ["logs", { topics: [["0x01"]] }] });
    expect(await c.next()).toMatchObject({ id: 3, error: { code: -32602 } });
    c.send({ id: 4, method: "eth_subscribe", params: ["newHeads"] });
    const { result: id } = await c.next();
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    c.send({ id: 5, method: "eth_unsubscribe", params: [id] });
    expect(await c.next()).toEqual({ jsonrpc: "2.0", id: 5, result: true });
    c.send({ id: 6, method: "eth_unsubscribe", params: [id] });
    expect(await c.next()).toEqual({ jsonrpc: "2.0", id: 6, result: false });
    c.send({ id: 7, method: "eth_blockNumber" });
    expect(await c.next()).toMatchObject({ id: 7, result: expect.stringMatching(/^0x/) });
    c.ws.close();
  });

  it("under interval mining, announces a transfer's hash at once and its log only when the clock reaches its block", async () => {
    const c = await openWebSocket(wsUrl);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    c.send({ id: 1, method: "eth_subscribe", params: ["logs", { address: USDC_BASE_SEPOLIA, topics: [TRANSFER_TOPIC] }] });
    const { result: logs } = await c.next();
    c.send({ id: 2, method: "eth_subscribe", params: ["newPendingTransactions"] });
    const { result: pending } = await c.next();
    const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address: recipient, token: "usdc" } });
    expect(faucet.status).toBe(200);
    const announced = await c.next();
    expect(announced).toEqual({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription: pending, result: faucet.body.transactionHash } });
    expect(c.inbox).toEqual([]); // the log is not mined yet

    sandbox.clock.advance(4000);
    const log = await c.next();
    expect(log).toMatchObject({
      method: "eth_subscription",
      params: { subscription: logs, result: { address: USDC_BASE_SEPOLIA, transactionHash: faucet.body.transactionHash, removed: false } },
    });
    expect(log.params.result.topics[0]).toBe(TRANSFER_TOPIC);
    expect(BigInt(log.params.result.topics[2])).toBe(BigInt(recipient));
    c.ws.close();
  });
});
