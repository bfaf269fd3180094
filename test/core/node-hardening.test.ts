/**
 * The node cannot stall the process, attacked through viem as a client would: a batch over 1,000 calls is refused
 * whole, a batch's calls let the event loop go between them, a transaction above the block gas limit or with init
 * code over EIP-3860's bound is refused at submission (as geth's pool refuses it, on the node and on the platform's
 * send), and one project's long EVM run never holds another project's calls.
 */
import type { Sandbox } from "cdp-sandbox";
import { createPublicClient, createWalletClient, http, parseEther, serializeTransaction, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { getHttpRpcClient } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { call, fund, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

// JUMPDEST; PUSH1 0; JUMP — forever, run as the init code of a deployless call.
const ENDLESS: Hex = "0x5b600056";
// PUSH1 1; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN — returns one word at once.
const QUICK: Hex = "0x600160005260206000f3";

let sandbox: Sandbox;
let nodeUrl: string;
beforeAll(async () => {
  // No time budget: the gas bounds are what is tested here, with calls that burn their caps (node-evm-timeout.test.ts
  // tests the time budget).
  sandbox = await withSandbox({ seed: "node-hardening", evmTimeoutMs: 0 });
  nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
});
afterAll(() => sandbox?.close());

const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0" as const, id: i + 1, method: "eth_blockNumber", params: [] }));

describe("JSON-RPC batches", () => {
  it("answers a batch of 1,001 calls with one error, geth's 'batch too large' with the first call's id, running none", async () => {
    // On the wire: one error in a one-element array, as geth answers.
    const wire = await fetch(nodeUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(calls(1_001)) });
    expect(wire.status).toBe(200);
    const body = (await wire.json()) as Array<{ id: number; error: { code: number; message: string } }>;
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringContaining("batch too large") } });
    // viem reads that answer as geth's: every call of the batch gets the error.
    const rpc = getHttpRpcClient(nodeUrl);
    const refused = (await rpc.request({ body: calls(1_001) })) as unknown as Array<{ error: { code: number } }>;
    expect(refused.every((a) => a.error.code === -32600)).toBe(true);
    const answered = (await rpc.request({ body: calls(1_000) })) as unknown as Array<{ id: number; result: string }>;
    expect(answered).toHaveLength(1_000);
    expect(answered.every((a, i) => a.id === i + 1 && typeof a.result === "string")).toBe(true);
  });

  it("refuses a batch over the cap from its text, a call at a time, with geth's answers for odd shapes", async () => {
    const post = async (body: string) =>
      (await (await fetch(nodeUrl, { method: "POST", headers: { "content-type": "application/json" }, body })).json()) as unknown;
    const tooLarge = (id: unknown) => [{ jsonrpc: "2.0", id, error: { code: -32600, message: "batch too large: at most 1000 calls" } }];
    // Commas, brackets and escaped quotes inside strings are no member boundaries; a member that is no call is skipped
    // when naming the first call; spaces and newlines around members and the array are allowed.
    const tricky = [7, { jsonrpc: "2.0", id: 'a,"]}[{', method: "eth_chainId", params: ["x,y]", '\\"', { k: "[" }] }, ...calls(999)];
    expect(await post(`\n [ ${tricky.map((m) => JSON.stringify(m)).join(" ,\n")} ]\r\n`)).toEqual(tooLarge('a,"]}[{'));
    // No call at all: geth's null id.
    expect(await post(JSON.stringify(Array.from({ length: 1_001 }, (_, i) => i)))).toEqual(tooLarge(null));
    // Over the cap but not JSON (a member that does not parse, an empty member, text after the array): the parse
    // error geth answers first, the whole text being read before the cap is looked at.
    const text = JSON.stringify(calls(1_001));
    const parseError = [{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }];
    for (const broken of [text.replace('"id":500,', '"id":500,,'), text.replace("},{", "},,{"), `${text} x`, text.replace('"method"', "method")]) {
      const answer = await post(broken);
      expect(Array.isArray(answer) ? answer : [answer]).toEqual(parseError);
    }
  });

  it("journals a batch over the cap as one refused request, on both chains, not as an entry per call", async () => {
    // Counted, not timed: before, each of the 1,001 calls became an entry (its body copied and redacted), which held
    // the event loop 80–290 ms for a 1.5 MB batch.
    const listed = async () => (await call(sandbox, "GET", "/_sandbox/requests", { anonymous: true })).body.requests as Array<Record<string, unknown>>;
    for (const network of ["base-sepolia", "solana-devnet"]) {
      const before = (await listed()).length;
      const url = await nodeUrlFor(sandbox, network);
      const wire = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(calls(1_001)) });
      expect(await wire.json()).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "batch too large: at most 1000 calls" } }]);
      const after = await listed();
      expect(after.length - before, network).toBe(1);
      expect(after.at(-1), network).toMatchObject({ status: 200, violation: "rpc", rpcError: { code: -32600 } });
    }
  });

  it("lets the event loop go between the calls of a batch", async () => {
    const rpc = getHttpRpcClient(nodeUrl);
    // Counted, not timed: turns of the event loop while the batch is answered (the sandbox runs in this process).
    const { result: answered, turns } = await turnsWhile(async () => (await rpc.request({ body: calls(1_000) })) as unknown as unknown[]);
    expect(answered).toHaveLength(1_000);
    // One turn at least between two calls; before, the whole batch ran in one turn.
    expect(turns).toBeGreaterThanOrEqual(999);
  });
});

describe("EVM gas of one request", () => {
  it("lets a batch's eth_calls burn a block's 30M gas together: past it, -32005 'limit exceeded', and the rest of the batch answers", async () => {
    const rpc = getHttpRpcClient(nodeUrl);
    const endless = (id: number) => ({ jsonrpc: "2.0" as const, id, method: "eth_call", params: [{ data: ENDLESS, gas: "0x989680" }, "latest"] });
    const body = [...Array.from({ length: 5 }, (_, i) => endless(i + 1)), { jsonrpc: "2.0" as const, id: 6, method: "eth_blockNumber", params: [] }];
    const answers = (await rpc.request({ body, timeout: 170_000 })) as unknown as Array<{
      id: number;
      result?: string;
      error?: { code: number; message: string };
    }>;
    // Three runs of 10M gas each burn it all (out of gas); the fourth and fifth are not run.
    expect(answers.slice(0, 3).map((a) => a.error)).toEqual(Array(3).fill({ code: -32000, message: "out of gas" }));
    expect(answers.slice(3, 5).map((a) => a.error?.code)).toEqual([-32005, -32005]);
    expect(answers[3]!.error!.message).toContain("limit exceeded");
    expect(answers[5]!.result).toMatch(/^0x/);
    // The budget is per request: the next one runs again.
    const next = (await rpc.request({ body: { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: QUICK }, "latest"] } })) as { result?: string };
    expect(next.result).toBe(`0x${"00".repeat(31)}01`);
  }, 180_000);
});

describe("params the node fuzzer spoiled", () => {
  it("answers them with invalid params (-32602), never the internal error (-32603)", async () => {
    const rpc = getHttpRpcClient(nodeUrl);
    const spoiled = [
      ...[[], [null], [true], ["nope"], [{}], ["-1"], [-1]].map((params) => ({ method: "eth_getBlockByNumber", params })),
      { method: "eth_call", params: [-1, []] },
      { method: "eth_call", params: [{ to: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", data: {} }] },
      { method: "eth_call", params: [{ to: { constructor: 1 } }] },
    ];
    const answers = (await rpc.request({ body: spoiled.map((m, i) => ({ jsonrpc: "2.0" as const, id: i + 1, ...m })) })) as unknown as Array<{
      error?: { code: number };
    }>;
    expect(answers.map((a) => a.error?.code)).toEqual(spoiled.map(() => -32602));
    // A block number past the latest has no block yet, however large; eth_feeHistory answers at most 1,024 blocks.
    const [far, fees] = (await rpc.request({
      body: [
        { jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: [`0x${"f".repeat(64)}`, false] },
        { jsonrpc: "2.0", id: 2, method: "eth_feeHistory", params: ["0x3b9aca00", "latest", []] },
      ],
    })) as unknown as [{ result: unknown }, { result: { baseFeePerGas: string[] } }];
    expect(far.result).toBeNull();
    expect(fees.result.baseFeePerGas.length).toBeLessThanOrEqual(1_025);
    // A value the caller does not hold: the EVM library throws (not returns) that failure; geth's -32000, not -32603.
    const poor = (await rpc.request({
      body: { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ from: "0x00000000000000000000000000000000000000aa", data: QUICK, value: "0x1" }] },
    })) as { error?: { code: number; message: string } };
    expect(poor.error).toMatchObject({ code: -32000, message: expect.stringContaining("insufficient balance") });
  });
});

describe("a Solana blockhash of 100,000 characters", () => {
  it("is not valid, answered at once: base58 decoding it held the event loop 40 s", async () => {
    const solanaUrl = nodeUrl.replace("/base-sepolia/", "/solana-devnet/");
    const rpc = getHttpRpcClient(solanaUrl);
    const answer = (await rpc.request({ body: { jsonrpc: "2.0", id: 1, method: "isBlockhashValid", params: ["x".repeat(100_000)] } })) as {
      result?: { value: boolean };
    };
    expect(answer.result?.value).toBe(false);
  }, 20_000);
});

describe("transactions a node refuses at submission", () => {
  const node = () => createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) });

  /** A transaction signed by a funded key of its own, as a wallet signs it. */
  async function signed(tx: { to?: `0x${string}`; data?: Hex; gas: bigint }): Promise<{ raw: Hex; from: `0x${string}` }> {
    const account = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: account.address, amount: parseEther("10").toString() });
    const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl) });
    const raw = await wallet.signTransaction({ ...tx, nonce: 0, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chain: baseSepolia });
    return { raw, from: account.address };
  }

  it("refuses a gas limit above the block's 30M with geth's 'exceeds block gas limit', changing nothing", async () => {
    const { raw, from } = await signed({ data: ENDLESS, gas: 30_000_001n });
    await expect(node().sendRawTransaction({ serializedTransaction: raw })).rejects.toThrow(/exceeds block gas limit/);
    expect(await node().getTransactionCount({ address: from })).toBe(0);
    expect(await node().getBalance({ address: from })).toBe(parseEther("10"));
  });

  it("refuses init code over EIP-3860's 49,152 bytes, and accepts it at the bound", async () => {
    const over = await signed({ data: `0x${"00".repeat(49_153)}`, gas: 29_000_000n });
    await expect(node().sendRawTransaction({ serializedTransaction: over.raw })).rejects.toThrow(/max initcode size exceeded: code size 49153, limit 49152/);
    const at = await signed({ data: `0x${"00".repeat(49_152)}`, gas: 29_000_000n });
    await expect(node().sendRawTransaction({ serializedTransaction: at.raw })).resolves.toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("refuses the same on the platform's sendEvmTransaction: 400 invalid_request, nothing sent", async () => {
    const created = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { name: "gas-bound" }, wallet: true });
    expect(created.status).toBe(201);
    const address = created.body.address as `0x${string}`;
    const transaction = serializeTransaction({ chainId: 84532, type: "eip1559", to: address, gas: 30_000_001n, maxFeePerGas: 2_000_000_000n });
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
      body: { network: "base-sepolia", transaction },
      wallet: true,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringContaining("exceeds block gas limit") });
    expect(res.body.correlationId).toBeTruthy();
    expect(await node().getTransactionCount({ address })).toBe(0);
  });
});

describe("projects' EVM work", () => {
  it("answers another project's call while one project's endless loop burns its 10M gas", async () => {
    const other = await sandbox.createProject("other-evm-project");
    const otherUrl = await nodeUrlFor(sandbox, "base-sepolia", other);
    const order: string[] = [];
    const long = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl, { timeout: 120_000 }) })
      .call({ data: ENDLESS, gas: 10_000_000n })
      .catch((error: Error) => error.message)
      .finally(() => order.push("endless loop"));
    // Let the loop start: it runs for tens of pauses, long after this.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const quick = await createPublicClient({ chain: baseSepolia, transport: http(otherUrl) }).call({ data: QUICK });
    order.push("other project");
    expect(quick.data).toBe(`0x${"0".repeat(63)}1`);
    expect(await long).toMatch(/out of gas/);
    expect(order).toEqual(["other project", "endless loop"]);
  });
});
