#!/usr/bin/env node
/**
 * `node --expose-gc bench/evm.mjs`: the cost of EVM transactions, one at a time against an in-process sandbox
 * (`dist/`), as the project grows to each of BENCH_SIZES (10, 1,000 and 10,000) funded accounts and as many holders
 * of a bytecode ERC-20 token (each made by one transaction). At each size: (1) `sendEvmTransaction` of a native
 * transfer (REST, signed by the sandbox), (2) `sendEvmTransaction` of a transfer of that token, (3)
 * `eth_sendRawTransaction` of a token transfer signed by a viem wallet, (4) `eth_call` of its balanceOf: median and
 * p99 in ms, and the process's CPU per call. Between sizes, the heap the new accounts and the new holders added.
 * A measurement, never a test. Run `npm run build` first; BENCH_ROOT points at another build (a "before").
 *
 * Every token (bearer JWT, X-Wallet-Auth) and raw transaction is made before its call's clock starts, so the
 * figures are the sandbox's and the in-process client's fetch, not the client's signing. CPU ms per call is
 * `process.cpuUsage()` over the timed calls alone (the sandbox and the client's fetch share the process).
 *
 * BENCH_N (300 timed calls per scenario and size), BENCH_SIZES (10,1000,10000). Run node with --expose-gc for the
 * heap; BENCH_PROFILE=DIR for a CPU profile of each scenario (timing.mjs); BENCH_HEAPSNAPSHOT=DIR for V8 heap
 * snapshots before and after the last size's holders (`node bench/heap.mjs BEFORE AFTER COUNT` says what each part of
 * the sandbox added per holder: the ledger's transactions, the storage slots, the indexes, the journal...).
 */
import { dirname, join } from "node:path";
import { setFlagsFromString, writeHeapSnapshot } from "node:v8";
import { fileURLToPath } from "node:url";
import solc from "solc";
import { createWalletClient, encodeDeployData, encodeFunctionData, http, parseAbi, parseEther, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { stats, timed } from "./timing.mjs";
import { bearerFactory, walletFactory } from "./tokens.mjs";

// V8 drops the bytecode of functions idle for a while at a collection, megabytes at a time: the heap measured
// between sizes moved by ±5 MB from run to run (10,000 accounts "added" -0.5 KB each in one run, +0.9 KB in the next).
setFlagsFromString("--no-flush-bytecode");
const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = process.env.BENCH_ROOT ?? here;
const N = Number(process.env.BENCH_N ?? 300);
const SIZES = (process.env.BENCH_SIZES ?? "10,1000,10000").split(",").map(Number);
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

const { startSandbox } = await import(join(root, "dist/index.js"));
const sandbox = await startSandbox({ port: 0, seed: "bench-evm" });
const host = new URL(sandbox.url).host;
const bearer = await bearerFactory(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret);
const wallet = await walletFactory(sandbox.credentials.walletSecret);

/** A platform call with its tokens made now; the returned function sends it. */
async function prepare(method, path, body) {
  const headers = { authorization: `Bearer ${await bearer(method, host, path)}`, "content-type": "application/json" };
  if (body !== undefined && method !== "GET") headers["x-wallet-auth"] = await wallet(method, host, path, body);
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  return async () => {
    const res = await fetch(`${sandbox.url}${path}`, init);
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}
const platform = async (method, path, body) => (await prepare(method, path, body))();

const fund = (address, amount, token) =>
  platform("POST", "/_sandbox/balances", { network: NETWORK, address, amount: String(amount), ...(token ? { token } : {}) });
const projectId = (await platform("GET", "/apikeys/v1/tokens/active")).id;
const rpcUrl = `${sandbox.url}/rpc/v1/${NETWORK}/${projectId}`;
const rpcCall = (method, params) => async () => {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = await res.json();
  if (json.error) throw new Error(`${method}: ${json.error.message}`);
  return json.result;
};
const rpc = (method, params) => rpcCall(method, params)();

const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};

console.log(`build: ${root}`);
const account = (await platform("POST", "/platform/v2/evm/accounts", {})).address;
await fund(account, parseEther("1000"));
const sendPath = `/platform/v2/evm/accounts/${account}/send/transaction`;
const bytecode = compileToken();
const deployed = await platform("POST", sendPath, {
  network: NETWORK,
  transaction: serializeTransaction({
    type: "eip1559",
    chainId: 84532,
    data: encodeDeployData({ abi: parseAbi(["constructor(uint256 supply)"]), bytecode, args: [10n ** 30n] }),
  }),
});
const token = (await rpc("eth_getTransactionReceipt", [deployed.transactionHash]))?.contractAddress;
if (!token) console.log("bytecode: not supported by this build (the deployment has no contractAddress)");
const transferData = (to) => encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [to, 1n] });
const sendTokenTransfer = (to) =>
  prepare("POST", sendPath, { network: NETWORK, transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: token, data: transferData(to) }) });

// A viem wallet holding the token: its transactions are signed untimed, with nonces counted here.
const signer = privateKeyToAccount(generatePrivateKey());
const client = createWalletClient({ account: signer, chain: baseSepolia, transport: http(rpcUrl) });
let signerNonce = 0;
if (token) {
  await fund(signer.address, parseEther("10"));
  await platform("POST", sendPath, {
    network: NETWORK,
    transaction: serializeTransaction({
      type: "eip1559",
      chainId: 84532,
      to: token,
      data: encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [signer.address, 10n ** 24n] }),
    }),
  });
}

let accounts = 0;
let holders = 0;
const heapLines = [];
for (const size of SIZES) {
  // Grow the project to `size` funded accounts and `size` token holders, each holder made by one transaction.
  const [accountsBefore, holdersBefore] = [accounts, holders];
  const h0 = heap();
  for (; accounts < size; accounts++) await fund(newAddress(), 1n);
  const snapshot = (name) => console.log(`heap snapshot: ${writeHeapSnapshot(join(process.env.BENCH_HEAPSNAPSHOT, `evm-${name}.heapsnapshot`))}`);
  const last = size === SIZES.at(-1) && process.env.BENCH_HEAPSNAPSHOT !== undefined;
  // Writing a snapshot empties some of V8's caches: the accounts' figure is measured before it and the holders' after
  // it, so neither counts that as freed (the holders read 1,074 B each instead of ~1,800); the holders' includes the
  // caches filling again.
  const afterAccounts = heap();
  if (last) snapshot(`holders-${holders}`);
  const h1 = last ? heap() : afterAccounts;
  if (token) for (; holders < size; holders++) await (await sendTokenTransfer(newAddress()))();
  const h2 = heap();
  if (last) snapshot(`holders-${holders}`);
  const added = (n, bytes) => (n > 0 ? `${n} added, +${(bytes / 1e6).toFixed(1)} MB of heap, ${Math.round(bytes / n)} B each` : "none added");
  heapLines.push(`to ${size}: accounts ${added(accounts - accountsBefore, afterAccounts - h0)}; holders ${added(holders - holdersBefore, h2 - h1)}`);
  console.log(`\n${size} funded accounts and ${token ? size : 0} holders of a bytecode token:`);
  const to = newAddress();
  const native = await timed(`evm-native-${size}`, N, () =>
    prepare("POST", sendPath, { network: NETWORK, transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to, value: 1n }) }),
  );
  console.log(`  sendEvmTransaction, native transfer: ${stats(native)}`);
  if (!token) continue;
  const recipients = Array.from({ length: N }, newAddress);
  console.log(`  sendEvmTransaction, bytecode ERC-20 transfer: ${stats(await timed(`evm-erc20-${size}`, N, (i) => sendTokenTransfer(recipients[i])))}`);
  const raw = [];
  for (let i = 0; i < N; i++) {
    raw.push(
      await client.signTransaction({
        to: token,
        data: transferData(recipients[i]),
        nonce: signerNonce++,
        gas: 100_000n,
        maxFeePerGas: 2_000_000n,
        maxPriorityFeePerGas: 0n,
        chain: baseSepolia,
      }),
    );
  }
  console.log(
    `  eth_sendRawTransaction, bytecode ERC-20 transfer: ${stats(await timed(`evm-raw-erc20-${size}`, N, async (i) => rpcCall("eth_sendRawTransaction", [raw[i]])))}`,
  );
  const reads = await timed(`evm-call-${size}`, N, async (i) =>
    rpcCall("eth_call", [{ to: token, data: encodeFunctionData({ abi: tokenAbi, functionName: "balanceOf", args: [recipients[i]] }) }, "latest"]),
  );
  console.log(`  eth_call, bytecode balanceOf: ${stats(reads)}`);
}
console.log("\nheap added while growing (funded accounts; holders of the bytecode token, one transaction each):");
for (const line of heapLines) console.log(`  ${line}`);
if (!globalThis.gc) console.log("(heap figures without --expose-gc include garbage)");
await sandbox.close();
