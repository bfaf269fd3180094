#!/usr/bin/env node
/**
 * `node --expose-gc bench/solana.mjs`: the cost of Solana transactions, the counterpart of bench/evm.mjs. One at a
 * time against an in-process sandbox (`dist/`), through its JSON-RPC node, as the project grows to each of
 * BENCH_SIZES (10, 1,000 and 10,000) wallets, each holding SOL and a USDC token account. At each size:
 * `sendTransaction` of a signed `transferChecked` (USDC between two funded wallets) and of a native SOL transfer,
 * both executed by the runtime: median and p99 in ms, and the process's CPU per call. Between sizes, the heap the
 * new wallets added. A measurement, never a test. Run `npm run build` first; BENCH_ROOT points at another build.
 *
 * Every transaction is signed before its call's clock starts; CPU ms per call is `process.cpuUsage()` over the timed
 * calls alone (the sandbox and the client's fetch share the process).
 *
 * BENCH_N (300 timed calls per scenario and size), BENCH_SIZES (10,1000,10000). Run node with --expose-gc for the
 * heap; BENCH_PROFILE=DIR for a CPU profile of each scenario (timing.mjs).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { stats, timed } from "./timing.mjs";
import { bearerFactory } from "./tokens.mjs";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = process.env.BENCH_ROOT ?? here;
const N = Number(process.env.BENCH_N ?? 300);
const SIZES = (process.env.BENCH_SIZES ?? "10,1000,10000").split(",").map(Number);
const NETWORK = "solana-devnet";
const USDC = new PublicKey("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");

const { startSandbox } = await import(join(root, "dist/index.js"));
const sandbox = await startSandbox({ port: 0, seed: "bench-solana" });
const origin = new URL(sandbox.url).origin;
const bearer = await bearerFactory(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret);
const activeKey = "/apikeys/v1/tokens/active";
const projectId = (
  await (await fetch(`${origin}${activeKey}`, { headers: { authorization: `Bearer ${await bearer("GET", new URL(origin).host, activeKey)}` } })).json()
).id;
const nodeUrl = `${origin}/rpc/v1/${NETWORK}/${projectId}`;

const rpcCall = (method, params) => async () => {
  const res = await fetch(nodeUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = await res.json();
  // An error answer is a 200 too: a refused send must not be timed as if it had landed.
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
};
const rpc = (method, params) => rpcCall(method, params)();

async function fund(address, amount, token) {
  const res = await fetch(`${origin}/_sandbox/balances`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ network: NETWORK, address, amount: String(amount), ...(token ? { token } : {}) }),
  });
  if (res.status !== 200) throw new Error(`funding failed: ${res.status} ${await res.text()}`);
}
/** A wallet with SOL and a USDC token account (two admin calls). */
async function newWallet(usdc = "1") {
  const keypair = Keypair.generate();
  await fund(keypair.publicKey.toBase58(), "1000000000");
  await fund(keypair.publicKey.toBase58(), usdc, "USDC");
  return keypair;
}
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
const send = (tx) => rpcCall("sendTransaction", [tx.serialize().toString("base64"), { encoding: "base64" }]);

console.log(`build: ${root}`);
const from = await newWallet("1000000000");
const to = await newWallet();
const fromAta = getAssociatedTokenAddressSync(USDC, from.publicKey);
const toAta = getAssociatedTokenAddressSync(USDC, to.publicKey);
let wallets = 2;
const heapLines = [];
for (const size of SIZES) {
  const before = wallets;
  const h0 = heap();
  for (; wallets < size; wallets++) await newWallet();
  const [added, grew] = [wallets - before, heap() - h0];
  heapLines.push(
    `to ${size}: ${added > 0 ? `${added} wallets added, +${(grew / 1e6).toFixed(1)} MB of heap, ${Math.round(grew / added)} B each` : "none added"}`,
  );
  console.log(`\n${size} wallets (SOL and a USDC token account each):`);
  // A blockhash is recent for 150 slots (a minute of the sandbox clock): each call takes one, untimed.
  const signed = async (ix) => {
    const { value } = await rpc("getLatestBlockhash", []);
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: value.blockhash }).add(ix);
    tx.sign(from);
    return tx;
  };
  // Amounts differ per call: each transaction (and so its signature) is new.
  const checked = await timed(`solana-transferChecked-${size}`, N, async (i) =>
    send(await signed(createTransferCheckedInstruction(fromAta, USDC, toAta, from.publicKey, BigInt(i + 1), 6))),
  );
  console.log(`  sendTransaction, transferChecked (USDC): ${stats(checked)}`);
  const native = await timed(`solana-native-${size}`, N, async (i) =>
    send(await signed(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: i + 1 }))),
  );
  console.log(`  sendTransaction, native SOL transfer: ${stats(native)}`);
}
console.log("\nheap added while growing:");
for (const line of heapLines) console.log(`  ${line}`);
if (!globalThis.gc) console.log("(heap figures without --expose-gc include garbage)");
await sandbox.close();
