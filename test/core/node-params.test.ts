/**
 * The node checks every address, hash and block param as geth and Anvil do: a malformed one is invalid params
 * (-32602) naming its position, never an answer read from whatever the text was (`eth_getBalance("not-an-address")`
 * answered 0x0), and never the internal error. viem's own calls still answer.
 */
import type { Sandbox } from "cdp-sandbox";
import { createPublicClient, http, InvalidParamsRpcError, type PublicClient } from "viem";
import { baseSepolia } from "viem/chains";
import { getHttpRpcClient } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let nodeUrl: string;
let client: PublicClient;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "node-params" });
  nodeUrl = await nodeUrlFor(sandbox, "base-sepolia");
  client = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl, { retryCount: 0 }) }) as PublicClient;
});
afterAll(() => sandbox?.close());

const ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const HASH = `0x${"ab".repeat(32)}`;

describe("malformed params of the node's read methods", () => {
  it("refuses eth_getBalance of a text that is not an address through viem: InvalidParamsRpcError", async () => {
    const refused = await client.getBalance({ address: "not-an-address" as `0x${string}` }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidParamsRpcError);
    expect((refused as InvalidParamsRpcError).details).toContain("params[0] must be a 0x-prefixed 20-byte address");
    expect(await client.getBalance({ address: ADDRESS })).toBe(0n);
  });

  it("answers -32602 for every malformed address, hash and block, and still answers the well-formed calls", async () => {
    const rpc = getHttpRpcClient(nodeUrl);
    const refused: Array<[string, unknown[]]> = [
      ["eth_getBalance", ["not-an-address", "latest"]],
      ["eth_getBalance", [`${ADDRESS}00`, "latest"]],
      ["eth_getBalance", [ADDRESS, "newest"]],
      ["eth_getBalance", [ADDRESS, { blockHash: "0x12" }]],
      ["eth_getBalance", [42]],
      ["eth_getTransactionCount", ["0x1234", "latest"]],
      ["eth_getCode", [null, "latest"]],
      ["eth_getCode", [ADDRESS, "0xzz"]],
      ["eth_getStorageAt", ["nope", "0x0", "latest"]],
      ["eth_getStorageAt", [ADDRESS, "0x0", []]],
      ["eth_call", [{ to: ADDRESS }, "yesterday"]],
      ["eth_estimateGas", [{ to: ADDRESS }, { blockNumber: "x" }]],
      ["eth_getBlockByNumber", ["latest", "yes"]],
      ["eth_getBlockByHash", ["0x1234", false]],
      ["eth_getBlockByHash", []],
      ["eth_getTransactionByHash", ["0x1234"]],
      ["eth_getTransactionReceipt", [{ hash: HASH }]],
      ["eth_getUserOperationByHash", ["not-a-hash"]],
      ["eth_getUserOperationReceipt", [`${HASH}00`]],
      ["eth_feeHistory", ["many", "latest", []]],
      ["eth_feeHistory", ["0x4", "tomorrow", []]],
      ["eth_sendRawTransaction", ["not hex"]],
      ["eth_getLogs", [{ address: "0x1234" }]],
      ["eth_getLogs", [{ topics: [["0x12"]] }]],
      ["eth_getLogs", [{ blockHash: ["0x12"] }]],
    ];
    const answers = (await rpc.request({
      body: refused.map(([method, params], i) => ({ jsonrpc: "2.0" as const, id: i + 1, method, params })),
    })) as unknown as Array<{
      error?: { code: number; message: string };
    }>;
    expect(answers.map((a, i) => [refused[i]![0], a.error?.code])).toEqual(refused.map(([method]) => [method, -32602]));
    expect(answers[0]!.error!.message).toBe('invalid params of eth_getBalance: params[0] must be a 0x-prefixed 20-byte address, got "not-an-address"');
    const accepted: Array<[string, unknown[]]> = [
      ["eth_getBalance", [ADDRESS, "latest"]],
      ["eth_getBalance", [ADDRESS.toLowerCase()]],
      ["eth_getBalance", [ADDRESS, "0x0"]],
      ["eth_getBalance", [ADDRESS, { blockNumber: "0x0" }]],
      ["eth_getBalance", [ADDRESS, { blockHash: HASH, requireCanonical: true }]],
      ["eth_getCode", [ADDRESS, "finalized"]],
      ["eth_getStorageAt", [ADDRESS, "0x0", "latest"]],
      ["eth_getBlockByNumber", ["latest", false]],
      ["eth_getBlockByHash", [HASH, false]],
      ["eth_getTransactionByHash", [HASH]],
      ["eth_getTransactionReceipt", [HASH]],
      ["eth_feeHistory", ["0x4", "latest", [25, 75]]],
      ["eth_getLogs", [{ address: [ADDRESS], topics: [HASH, null], fromBlock: "earliest" }]],
    ];
    const answered = (await rpc.request({
      body: accepted.map(([method, params], i) => ({ jsonrpc: "2.0" as const, id: i + 1, method, params })),
    })) as unknown as Array<{
      error?: unknown;
    }>;
    expect(answered.map((a, i) => [accepted[i]![0], a.error])).toEqual(accepted.map(([method]) => [method, undefined]));
  });
});
