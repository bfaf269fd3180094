/**
 * Faucet → balance → send → receipt → balance, over REST and through the
 * JSON-RPC node with viem; eth_sendRawTransaction of a viem-signed
 * transaction; ERC-20 transfers with logs; ledger conservation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, encodeFunctionData, erc20Abi, http, parseEther, parseEventLogs, serializeTransaction, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import request from "supertest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let client: PublicClient;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

beforeAll(async () => {
  // Interval mining: these tests watch a transaction wait for its block (automine is in mining.test.ts).
  sandbox = await withSandbox({ seed: "node", mining: "interval" });
  // A stopped clock: blocks come only from the tests' advance(), so "not mined yet" holds however slow the machine.
  sandbox.clock.freeze(true);
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  const active = await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`);
  expect(active.status).toBe(200);
  client = createPublicClient({ chain: baseSepolia, transport: http(`${sandbox.url}/rpc/v1/base-sepolia/${active.body.id}`) }) as PublicClient;
});
afterAll(() => sandbox.close());

async function newAccount() {
  return (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
}

describe("the simulated chain", () => {
  it("pays faucet ETH and USDC that the balance API and the node both see", async () => {
    const address = await newAccount();
    const eth = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eth" } });
    expect(eth.status).toBe(200);
    await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "usdc" } });
    const balances = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
    expect(balances.body.balances).toEqual([
      {
        amount: { amount: "100000000000000", decimals: 18 },
        token: { network: "base-sepolia", contractAddress: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", symbol: "ETH", name: "Ether" },
      },
      { amount: { amount: "1000000", decimals: 6 }, token: { network: "base-sepolia", contractAddress: USDC, symbol: "USDC", name: "USDC" } },
    ]);
    expect(await client.getBalance({ address })).toBe(100000000000000n);
    expect(await client.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address] })).toBe(1000000n);
    sandbox.clock.advance(5000);
    const receipt = await client.getTransactionReceipt({ hash: eth.body.transactionHash });
    expect(receipt.status).toBe("success");
  });

  it("answers the Onchain Data balance and token-ownership operations from the same ledger", async () => {
    const address = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "42" });
    const data = await call(sandbox, "GET", `/platform/v2/data/evm/token-balances/base-sepolia/${address}`);
    expect(data.body.balances).toEqual([
      { amount: { amount: "42", decimals: 6 }, token: { network: "base-sepolia", contractAddress: USDC, symbol: "USDC", name: "USDC" } },
    ]);
    const owned = await call(sandbox, "GET", `/platform/v2/data/evm/token-ownership/base-sepolia/${address}`);
    expect(owned.body).toEqual({ accountAddress: address, tokenAddresses: [USDC], totalCount: 1 });
  });

  it("refuses a faucet token the network does not have", async () => {
    const address = await newAccount();
    const res = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "ethereum-hoodi", address, token: "usdc" } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/does not pay usdc/);
  });

  it("limits faucet claims per address per day, and resets after 24 h of sandbox time", async () => {
    const address = await newAccount();
    for (let i = 0; i < 10; i++)
      expect((await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eurc" } })).status).toBe(200);
    const refused = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eurc" } });
    expect(refused.status).toBe(429);
    expect(refused.body.errorType).toBe("faucet_limit_exceeded");
    sandbox.clock.advance(24 * 60 * 60 * 1000 + 1);
    expect((await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eurc" } })).status).toBe(200);
  });

  it("sends ETH: balances move, gas is burnt, and viem waits for the receipt", async () => {
    const address = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address, amount: parseEther("1").toString() });
    const sent = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
      body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: parseEther("0.25") }) },
      wallet: true,
    });
    expect(sent.status).toBe(200);
    const hash = sent.body.transactionHash;
    expect(await client.getTransactionReceipt({ hash }).catch(() => null)).toBeNull(); // not mined yet
    sandbox.clock.advance(4000);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(address.toLowerCase());
    expect(await client.getBalance({ address: TO })).toBeGreaterThanOrEqual(parseEther("0.25"));
    expect(await client.getBalance({ address })).toBe(parseEther("0.75") - 21000n * 1_000_000n);
    expect(await client.getTransactionCount({ address })).toBe(1);
  });

  it("refuses a send the account cannot pay for, and changes nothing", async () => {
    const address = await newAccount();
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
      body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 1n }) },
      wallet: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("insufficient_balance");
    expect(await client.getTransactionCount({ address })).toBe(0);
  });

  it("moves USDC with an ERC-20 transfer, emits a Transfer log, and reverts one without funds", async () => {
    const address = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address, amount: parseEther("0.01").toString() });
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "5000000" });
    const send = (amount: bigint) =>
      call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
        body: {
          network: "base-sepolia",
          transaction: serializeTransaction({
            type: "eip1559",
            chainId: 84532,
            to: USDC,
            data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, amount] }),
          }),
        },
        wallet: true,
      });
    const ok = (await send(2_000_000n)).body.transactionHash;
    const failed = (await send(9_000_000n)).body.transactionHash;
    sandbox.clock.advance(4000);
    const receipt = await client.getTransactionReceipt({ hash: ok });
    expect(receipt.status).toBe("success");
    const [log] = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    expect(log!.args).toMatchObject({ to: TO, value: 2_000_000n });
    expect((await client.getTransactionReceipt({ hash: failed })).status).toBe("reverted");
    expect(await client.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address] })).toBe(3_000_000n);
  });

  it("estimates gas by running the transaction and undoing it: the ledger's gas, reverts and shortfalls as a node reports them", async () => {
    const from = privateKeyToAccount(generatePrivateKey()).address;
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000" });
    await fund(sandbox, { network: "base-sepolia", address: from, token: "USDC", amount: "5000000" });
    const transfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, amount] });
    expect(await client.estimateGas({ account: from, to: TO, value: 1000n })).toBe(21_000n);
    expect(await client.estimateGas({ account: from, to: USDC, data: transfer(1_000_000n) })).toBe(52_000n);
    await expect(client.estimateGas({ account: from, to: USDC, data: transfer(9_000_000n) })).rejects.toThrow(/execution reverted/);
    await expect(client.estimateGas({ account: from, to: TO, value: 10n ** 18n })).rejects.toThrow(/insufficient funds/);
    // Nothing of the simulations stayed: balances and the nonce are as funded.
    expect(await client.getBalance({ address: from })).toBe(1_000_000_000n);
    expect(await client.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [from] })).toBe(5_000_000n);
    expect(await client.getTransactionCount({ address: from })).toBe(0);
    const bad = await request(sandbox.url)
      .post(new URL(client.transport.url!).pathname)
      .send({ jsonrpc: "2.0", id: 1, method: "eth_estimateGas", params: [{ from: "0x12", to: TO }] });
    expect(bad.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("invalid from") });
  });

  it("applies eth_sendRawTransaction from any key", async () => {
    const key = generatePrivateKey();
    const outsider = privateKeyToAccount(key);
    await fund(sandbox, { network: "base-sepolia", address: outsider.address, amount: parseEther("1").toString() });
    const signed = await outsider.signTransaction({
      type: "eip1559",
      chainId: 84532,
      nonce: 0,
      to: TO,
      value: 12345n,
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 0n,
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: signed });
    sandbox.clock.advance(4000);
    expect((await client.getTransactionReceipt({ hash })).status).toBe("success");
    expect(await client.getTransactionCount({ address: outsider.address })).toBe(1);
  });

  it("lists balances with cdp_listBalances", async () => {
    const address = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address, amount: "7" });
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "42" });
    const path = new URL((client.transport as { url?: string }).url ?? "", "http://x").pathname;
    const res = await request(sandbox.url)
      .post(path)
      .set("content-type", "application/json")
      .send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "cdp_listBalances", params: [{ address, pageSize: 1 }] }));
    expect(res.body.result).toEqual({
      balances: [{ asset: { id: "eth", type: "native", groupId: "eth", decimals: 18 }, value: 7, valueStr: "7" }],
      nextPageToken: "1",
      totalCount: 2,
    });
    const next = await request(sandbox.url)
      .post(path)
      .set("content-type", "application/json")
      .send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "cdp_listBalances", params: [{ address, pageToken: "1" }] }));
    expect(next.body.result.balances[0]).toMatchObject({ asset: { type: "erc20", groupId: "usdc", decimals: 6 }, valueStr: "42" });
  });

  it("answers unknown methods with JSON-RPC error -32601, batches too", async () => {
    const path = new URL((client.transport as { url?: string }).url ?? "", "http://x").pathname;
    const res = await request(sandbox.url)
      .post(path)
      .set("content-type", "application/json")
      .send(
        JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
          { jsonrpc: "2.0", id: 2, method: "eth_mine" },
        ]),
      );
    expect(res.body).toEqual([
      { jsonrpc: "2.0", id: 1, result: "0x14a34" },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: expect.stringContaining("eth_mine") } },
    ]);
  });

  it("conserves value across many random transfers (up to burnt gas)", async () => {
    const accounts = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()));
    for (const a of accounts) await fund(sandbox, { network: "base-sepolia", address: a.address, amount: parseEther("10").toString() });
    const nonces = accounts.map(() => 0);
    let burnt = 0n;
    for (let i = 0; i < 300; i++) {
      const from = i % 5;
      const to = (i * 7 + 3) % 5;
      const value = BigInt((i * 7919) % 100000) * 10n ** 12n;
      const signed = await accounts[from]!.signTransaction({
        type: "eip1559",
        chainId: 84532,
        nonce: nonces[from]!,
        to: accounts[to]!.address,
        value,
        gas: 21000n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 0n,
      });
      await client.sendRawTransaction({ serializedTransaction: signed });
      nonces[from]!++;
      burnt += 21000n * 1_000_000n;
    }
    let total = 0n;
    for (const a of accounts) total += await client.getBalance({ address: a.address });
    expect(total + burnt).toBe(parseEther("50"));
  }, 60_000);
});
