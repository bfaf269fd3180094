#!/usr/bin/env node
/**
 * `npm run bench:state`: what a call costs as the state grows. For 10, 10,000
 * and 100,000 EVM accounts (and as many ledger transactions, transfers and
 * webhook deliveries) in one project,
 * kept with `--data FILE`, it times each call (median of BENCH_STATE_REPEATS
 * sequential requests, after a warm-up) and prints the ratio to the 10-record
 * figure, the start-up time, the state file's size and the RSS; then once more
 * with accounts alone at the largest size, for the memory one account costs. A
 * measurement, never a test. Run
 * `npm run build` first.
 *
 * The state is written as the sandbox keeps it: the default project made by a
 * first start, then records added to its snapshot (addresses and transaction
 * hashes drawn at random; one account is made by the API, with a real key, for
 * signing; transfers and deliveries are copies, under new ids, of a transfer
 * and a delivery the first start made through the API).
 * BENCH_STATE_SIZES (10,10000,100000). Calls are timed once the command's warm-up after its ready line is over
 * (printed: how long that took, and the RSS then); BENCH_STATE_AT_READY=1 starts them at the ready line instead.
 */
import { rmSync } from "node:fs";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { DEVNET_USDC, makeStateFile, rssMb, settled, signer, start, stop } from "./lib/stateFile.mjs";

const SIZES = (process.env.BENCH_STATE_SIZES ?? "10,10000,100000").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_STATE_REPEATS ?? 40);

/** The first call of each timed kind, in ms, in the order timed: what reading records for the first time costs. */
let firsts = [];

/** Median milliseconds of `repeats` sequential calls (each request prepared before its timer starts). */
async function time(prepare, repeats = REPEATS) {
  const samples = [];
  let first;
  for (let i = 0; i < repeats + 3; i++) {
    const { url, init } = await prepare(i);
    const t = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`${init.method} ${url}: ${res.status}`);
    if (i === 0) first = performance.now() - t;
    if (i >= 3) samples.push(performance.now() - t);
  }
  firsts.push(first);
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Times every call against a sandbox started on a state file of `size` records of each kind (or accounts only). */
async function measure(size, accountsOnly = false) {
  const { dir, file, name, hash, bytes } = await makeStateFile(size, accountsOnly);
  try {
    const started = await start(file);
    const child = started.child;
    const readyRssMb = rssMb(child.pid);
    // Timed once the warm-up after the ready line is over (with BENCH_STATE_AT_READY=1, at once: the first request
    // then parses what the warm-up has not, and the timed calls share the loop with it).
    const warmUpMs = process.env.BENCH_STATE_AT_READY === "1" ? undefined : await settled(child.pid);
    const settledRssMb = rssMb(child.pid);
    firsts = [];
    const request = await signer(started.fields);
    const host = new URL(started.fields.basePath);
    const node = `${host.origin}/rpc/v1/base-sepolia/${started.fields.projectId}`;
    const rpc = (method, params) => ({
      url: node,
      init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) },
    });
    const ownAt = performance.now();
    const own = await (await fetch(...Object.values(await request("POST", "/v2/evm/accounts", { name: "signer" })))).json();
    const firstRequestMs = performance.now() - ownAt;
    const figures = {
      "get by address": await time(() => request("GET", `/v2/evm/accounts/${own.address}`)),
      "get by name": await time(() => request("GET", `/v2/evm/accounts/by-name/${name}`)),
      "list, first page": await time(() => request("GET", "/v2/evm/accounts?pageSize=20")),
      "create, unnamed": await time(() => request("POST", "/v2/evm/accounts", {})),
      "create, named": await time((i) => request("POST", "/v2/evm/accounts", { name: `fresh-${i}` })),
      "list transfers, first page": await time(() => request("GET", "/v2/transfers?pageSize=20")),
      "list transfers, filtered": await time(() => request("GET", "/v2/transfers?pageSize=20&status=completed")),
      "sign a message": await time(() => request("POST", `/v2/evm/accounts/${own.address}/sign/message`, { message: "hello" })),
      eth_getBalance: await time(() => rpc("eth_getBalance", [own.address, "latest"])),
    };
    if (hash) figures.eth_getTransactionReceipt = await time(() => rpc("eth_getTransactionReceipt", [hash]));
    if (!accountsOnly) Object.assign(figures, await solanaFigures(host.origin, started.fields.projectId));
    const firstPage = await (await fetch(...Object.values(await request("GET", "/v2/evm/accounts?pageSize=20")))).json();
    if (firstPage.nextPageToken) {
      // A page in the middle: the token of the offset half way through, as a client that paged there holds it.
      const token = Buffer.from(JSON.stringify({ l: "evm-accounts", o: Math.floor(size / 2) })).toString("base64url");
      figures["list, middle page"] = await time(() => request("GET", `/v2/evm/accounts?pageSize=20&pageToken=${token}`));
    }
    const result = {
      size,
      accountsOnly,
      bytes,
      figures,
      firstRequestMs,
      firsts: Object.fromEntries(Object.keys(figures).map((call, i) => [call, firsts[i]])),
      startMs: started.startMs,
      startCpuMs: started.startCpuMs,
      readyRssMb,
      warmUpMs,
      settledRssMb,
      rssMb: rssMb(child.pid),
    };
    await stop(child);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Solana calls on a wallet funded through the admin API: reads of its system and token accounts, and a signed
 * transferChecked (to itself, a different amount each time) sent to the node and executed by the runtime.
 */
async function solanaFigures(origin, projectId) {
  const node = `${origin}/rpc/v1/solana-devnet/${projectId}`;
  const call = (method, params) => ({
    url: node,
    init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) },
  });
  const wallet = Keypair.generate();
  const owner = wallet.publicKey.toBase58();
  for (const body of [
    { network: "solana-devnet", address: owner, amount: "1000000000" },
    { network: "solana-devnet", address: owner, token: "USDC", amount: "1000000000" },
  ]) {
    const res = await fetch(`${origin}/_sandbox/balances`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`funding failed: ${res.status} ${await res.text()}`);
  }
  const mint = new PublicKey(DEVNET_USDC);
  const ata = getAssociatedTokenAddressSync(mint, wallet.publicKey);
  const { result } = await (await fetch(...Object.values(call("getLatestBlockhash", [])))).json();
  // One send checked before timing: an error answer is a 200 too, and would be timed as if it had landed.
  const probe = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: result.value.blockhash }).add(
    createTransferCheckedInstruction(ata, mint, ata, wallet.publicKey, 0n, 6),
  );
  probe.sign(wallet);
  const landed = await (await fetch(...Object.values(call("sendTransaction", [probe.serialize().toString("base64"), { encoding: "base64" }])))).json();
  if (!landed.result) throw new Error(`a Solana send failed: ${JSON.stringify(landed.error)}`);
  return {
    "solana getBalance": await time(() => call("getBalance", [owner])),
    "solana getTokenAccountBalance": await time(() => call("getTokenAccountBalance", [ata.toBase58()])),
    "solana getParsedTokenAccountsByOwner": await time(() => call("getTokenAccountsByOwner", [owner, { mint: DEVNET_USDC }, { encoding: "jsonParsed" }])),
    "solana sendTransaction (transferChecked)": await time((i) => {
      const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: result.value.blockhash }).add(
        createTransferCheckedInstruction(ata, mint, ata, wallet.publicKey, BigInt(i + 1), 6),
      );
      tx.sign(wallet);
      return call("sendTransaction", [tx.serialize().toString("base64"), { encoding: "base64" }]);
    }),
  };
}

const results = [];
for (const size of SIZES) results.push(await measure(size));
// Accounts alone at the largest size: what one account costs in memory, and the start-up with that many records.
const accounts = await measure(SIZES.at(-1), true);

const base = results[0];
console.log(`\ncdp-sandbox state-size benchmark (--data FILE; median of ${REPEATS} sequential calls, ms; ratio to ${base.size} records)`);
const calls = Object.keys(results.at(-1).figures);
console.log(["call".padEnd(28), ...results.map((r) => String(r.size).padStart(18))].join(""));
for (const call of calls) {
  const cells = results.map((r) => {
    const v = r.figures[call];
    const ratio = base.figures[call] ? ` (${(v / base.figures[call]).toFixed(1)}×)` : "";
    return v === undefined ? "–".padStart(18) : `${v.toFixed(2)}${ratio}`.padStart(18);
  });
  console.log([call.padEnd(28), ...cells].join(""));
}
const column = (r) => (r.accountsOnly ? `${r.size} accounts` : String(r.size));
console.log(["start-up to the ready line".padEnd(28), ...results.map((r) => `${r.startMs.toFixed(0)} ms`.padStart(18))].join(""));
console.log(["start-up CPU (user + system)".padEnd(28), ...results.map((r) => `${r.startCpuMs.toFixed(0)} ms`.padStart(18))].join(""));
console.log(["RSS at the ready line".padEnd(28), ...results.map((r) => `${r.readyRssMb.toFixed(0)} MB`.padStart(18))].join(""));
console.log(
  [
    "warm-up after the ready line".padEnd(28),
    ...results.map((r) => (r.warmUpMs === undefined ? "not awaited" : `${(r.warmUpMs / 1000).toFixed(1)} s`).padStart(18)),
  ].join(""),
);
console.log(["RSS once it is over".padEnd(28), ...results.map((r) => `${r.settledRssMb.toFixed(0)} MB`.padStart(18))].join(""));
console.log(["first request (named create)".padEnd(28), ...results.map((r) => `${r.firstRequestMs.toFixed(0)} ms`.padStart(18))].join(""));
console.log(["state file".padEnd(28), ...results.map((r) => `${(r.bytes / 1e6).toFixed(1)} MB`.padStart(18))].join(""));
console.log(["RSS after the calls".padEnd(28), ...results.map((r) => `${r.rssMb.toFixed(0)} MB`.padStart(18))].join(""));
console.log(`\nthe first call of each kind after the start (ms), at ${results.map((r) => r.size).join(" / ")} records:`);
for (const call of calls)
  console.log(`  ${call.padEnd(40)}${results.map((r) => (r.firsts[call] === undefined ? "–" : r.firsts[call].toFixed(1)).padStart(12)).join("")}`);
const last = results.at(-1);
console.log(
  `RSS per record beyond the ${base.size}-record sandbox: ${(((last.rssMb - base.rssMb) * 1024 * 1024) / (last.size - base.size) / 4).toFixed(0)} bytes (accounts, ledger transactions, transfers and deliveries, as many of each)`,
);
console.log(
  `\n${column(accounts)} and nothing else: start-up ${accounts.startMs.toFixed(0)} ms (CPU ${accounts.startCpuMs.toFixed(0)} ms), RSS at ready ${accounts.readyRssMb.toFixed(0)} MB, state file ${(accounts.bytes / 1e6).toFixed(1)} MB, RSS ${accounts.rssMb.toFixed(0)} MB, ` +
    `${(((accounts.rssMb - base.rssMb) * 1024 * 1024) / (accounts.size - base.size)).toFixed(0)} bytes per account beyond the ${base.size}-record sandbox`,
);
