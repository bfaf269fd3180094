#!/usr/bin/env node
/**
 * `node bench/evm.mjs`: the cost of EVM transactions, one at a time against an in-process sandbox (`dist/`):
 * (1) `sendEvmTransaction` of a native transfer (REST, signed by the sandbox), (2) `sendEvmTransaction` of an
 * ERC-20 transfer of a bytecode token the account deployed, (3) `eth_sendRawTransaction` of that bytecode ERC-20
 * transfer signed by a viem wallet, (4) `eth_call` of its balanceOf; median and p99 in ms. Then the heap of one
 * project holding BENCH_ACCOUNTS (10,000) funded accounts and as many holders of the bytecode token.
 * A measurement, never a test. Run `npm run build` first; BENCH_ROOT points at another build (a "before").
 * Scenarios a build does not support (bytecode, before it ran) are reported as such.
 *
 * BENCH_N (300 timed requests per scenario), BENCH_ACCOUNTS (10000). Run node with --expose-gc for the heap.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";
import { createWalletClient, encodeDeployData, encodeFunctionData, http, parseAbi, parseEther, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { bearerFactory, walletFactory } from "./tokens.mjs";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = process.env.BENCH_ROOT ?? here;
const N = Number(process.env.BENCH_N ?? 300);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const NETWORK = "base-sepolia";

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract BenchToken {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}`;
const tokenAbi = parseAbi(["function transfer(address to, uint256 value) returns (bool)", "function balanceOf(address) view returns (uint256)"]);

function compileToken() {
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "BenchToken.sol": { content: TOKEN_SOURCE } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { "*": ["evm.bytecode.object"] } } },
      }),
    ),
  );
  return `0x${out.contracts["BenchToken.sol"].BenchToken.evm.bytecode.object}`;
}

const stats = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms (${ms.length} requests)`;
};

async function timed(n, make) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const send = await make(i);
    const t0 = performance.now();
    await send();
    ms.push(performance.now() - t0);
  }
  return ms;
}

const { startSandbox } = await import(join(root, "dist/index.js"));
const sandbox = await startSandbox({ port: 0, seed: "bench-evm" });
const host = new URL(sandbox.url).host;
const bearer = await bearerFactory(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret);
const wallet = await walletFactory(sandbox.credentials.walletSecret);

async function platform(method, path, body) {
  const headers = { authorization: `Bearer ${await bearer(method, host, path)}`, "content-type": "application/json" };
  if (body !== undefined && method !== "GET") headers["x-wallet-auth"] = await wallet(method, host, path, body);
  const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const fund = (address, amount, token) =>
  platform("POST", "/_sandbox/balances", { network: NETWORK, address, amount: String(amount), ...(token ? { token } : {}) });
const projectId = (await platform("GET", "/apikeys/v1/tokens/active")).id;
const rpcUrl = `${sandbox.url}/rpc/v1/${NETWORK}/${projectId}`;
async function rpc(method, params) {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = await res.json();
  if (json.error) throw new Error(`${method}: ${json.error.message}`);
  return json.result;
}

console.log(`build: ${root}`);
const account = (await platform("POST", "/platform/v2/evm/accounts", {})).address;
await fund(account, parseEther("10"));
const sendPath = `/platform/v2/evm/accounts/${account}/send/transaction`;
const to = privateKeyToAccount(generatePrivateKey()).address;
const native = await timed(N, async () => {
  const body = { network: NETWORK, transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to, value: 1n }) };
  return () => platform("POST", sendPath, body);
});
console.log(`sendEvmTransaction, native transfer: ${stats(native)}`);

const bytecode = compileToken();
const deployed = await platform("POST", sendPath, {
  network: NETWORK,
  transaction: serializeTransaction({
    type: "eip1559",
    chainId: 84532,
    data: encodeDeployData({ abi: parseAbi(["constructor(uint256 supply)"]), bytecode, args: [10n ** 30n] }),
  }),
});
const receipt = await rpc("eth_getTransactionReceipt", [deployed.transactionHash]);
const token = receipt?.contractAddress;
if (!token) {
  console.log("bytecode: not supported by this build (the deployment has no contractAddress)");
} else {
  const holders = Array.from({ length: N }, () => privateKeyToAccount(generatePrivateKey()).address);
  const viaPlatform = await timed(N, async (i) => {
    const body = {
      network: NETWORK,
      transaction: serializeTransaction({
        type: "eip1559",
        chainId: 84532,
        to: token,
        data: encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [holders[i], 1n] }),
      }),
    };
    return () => platform("POST", sendPath, body);
  });
  console.log(`sendEvmTransaction, bytecode ERC-20 transfer: ${stats(viaPlatform)}`);

  // A viem wallet holding the token, its transactions signed before the clock starts.
  const signer = privateKeyToAccount(generatePrivateKey());
  await fund(signer.address, parseEther("10"));
  const client = createWalletClient({ account: signer, chain: baseSepolia, transport: http(rpcUrl) });
  await platform("POST", sendPath, {
    network: NETWORK,
    transaction: serializeTransaction({
      type: "eip1559",
      chainId: 84532,
      to: token,
      data: encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [signer.address, 10n ** 24n] }),
    }),
  });
  const raw = [];
  for (let i = 0; i < N; i++) {
    raw.push(
      await client.signTransaction({
        to: token,
        data: encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [holders[i], 1n] }),
        nonce: i,
        gas: 100_000n,
        maxFeePerGas: 2_000_000n,
        maxPriorityFeePerGas: 0n,
        chain: baseSepolia,
      }),
    );
  }
  const viaNode = await timed(N, async (i) => () => rpc("eth_sendRawTransaction", [raw[i]]));
  console.log(`eth_sendRawTransaction, bytecode ERC-20 transfer: ${stats(viaNode)}`);
  const reads = await timed(
    N,
    async (i) => () => rpc("eth_call", [{ to: token, data: encodeFunctionData({ abi: tokenAbi, functionName: "balanceOf", args: [holders[i]] }) }, "latest"]),
  );
  console.log(`eth_call, bytecode balanceOf: ${stats(reads)}`);
}

// Heap of one project: ACCOUNTS funded accounts, and (when bytecode runs) as many holders of the token.
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
const before = heap();
const t0 = performance.now();
for (let i = 0; i < ACCOUNTS; i++) await fund(privateKeyToAccount(generatePrivateKey()).address, 1n);
const funded = heap();
console.log(`${ACCOUNTS} funded accounts: +${((funded - before) / 1e6).toFixed(1)} MB of heap (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
if (token) {
  const t1 = performance.now();
  for (let i = 0; i < ACCOUNTS; i++) {
    const body = {
      network: NETWORK,
      transaction: serializeTransaction({
        type: "eip1559",
        chainId: 84532,
        to: token,
        data: encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [privateKeyToAccount(generatePrivateKey()).address, 1n] }),
      }),
    };
    await platform("POST", sendPath, body);
  }
  console.log(
    `${ACCOUNTS} holders of a bytecode token (${ACCOUNTS} transactions): +${((heap() - funded) / 1e6).toFixed(1)} MB of heap (${((performance.now() - t1) / 1000).toFixed(1)} s)`,
  );
}
if (!globalThis.gc) console.log("(heap figures without --expose-gc include garbage)");
await sandbox.close();
