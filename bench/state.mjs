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
 * BENCH_STATE_SIZES (10,10000,100000).
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT, importJWK, importPKCS8 } from "jose";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey, Transaction } from "@solana/web3.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SIZES = (process.env.BENCH_STATE_SIZES ?? "10,10000,100000").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_STATE_REPEATS ?? 40);
const START_FLAGS = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  .scripts.start.split(" ")
  .filter((a) => a.startsWith("--"));

function start(file) {
  const began = performance.now();
  const child = spawn(process.execPath, [...START_FLAGS, join(root, "dist", "cli.js"), "--port", "0", "--data", file, "--seed", "bench-state"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.once("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end >= 0 && !child.ready) {
        child.ready = true;
        const fields = Object.fromEntries([...text.slice(0, end).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
        resolve({ child, fields, startMs: performance.now() - began });
      }
    });
  });
}

const stop = (child) =>
  new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });

const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
};

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

async function signer(fields) {
  const raw = Buffer.from(fields.apiKeySecret, "base64");
  const key = await importJWK({ kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") }, "EdDSA");
  const wallet = await importPKCS8(`-----BEGIN PRIVATE KEY-----\n${fields.walletSecret}\n-----END PRIVATE KEY-----`, "ES256");
  const base = new URL(fields.basePath);
  return async (method, path, body) => {
    const now = Math.floor(Date.now() / 1000);
    const uris = [`${method} ${base.host}/platform${path}`];
    const headers = {
      authorization: `Bearer ${await new SignJWT({ sub: fields.apiKeyId, iss: "cdp", uris })
        .setProtectedHeader({ alg: "EdDSA", kid: fields.apiKeyId, typ: "JWT", nonce: randomBytes(16).toString("hex") })
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + 120)
        .sign(key)}`,
    };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      const reqHash = createHash("sha256")
        .update(JSON.stringify(sortKeys(body)))
        .digest("hex");
      headers["x-wallet-auth"] = await new SignJWT({ uris, reqHash })
        .setProtectedHeader({ alg: "ES256", typ: "JWT" })
        .setIssuedAt(now)
        .setNotBefore(now)
        .setJti(randomBytes(16).toString("hex"))
        .sign(wallet);
    }
    return { url: `${fields.basePath}${path}`, init: { method, headers, body: body === undefined ? undefined : JSON.stringify(body) } };
  };
}

/** Median milliseconds of `repeats` sequential calls (each request prepared before its timer starts). */
async function time(prepare, repeats = REPEATS) {
  const samples = [];
  for (let i = 0; i < repeats + 3; i++) {
    const { url, init } = await prepare(i);
    const t = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`${init.method} ${url}: ${res.status}`);
    if (i >= 3) samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const hex = (bytes) => `0x${randomBytes(bytes).toString("hex")}`;

/**
 * What the first start makes through the API, to be copied: a custodial transfer that completed and a webhook
 * delivery (its subscription points at a port nothing listens on; the copies are marked failed for good).
 */
async function seedTemplates(fields, adminToken) {
  const request = await signer(fields);
  const send = async (method, path, body) => {
    const res = await fetch(...Object.values(await request(method, path, body)));
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const admin = (path, body) =>
    fetch(`${new URL(fields.basePath).origin}/_sandbox${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(adminToken ? { "x-sandbox-admin-token": adminToken } : {}) },
      body: JSON.stringify(body),
    });
  await send("POST", "/v2/data/webhooks/subscriptions", {
    description: "bench",
    eventTypes: ["payments.transfers.completed"],
    target: { url: "http://127.0.0.1:9/bench" },
    isEnabled: true,
  });
  const from = (await send("POST", "/v2/accounts", { name: "From" })).accountId;
  const to = (await send("POST", "/v2/accounts", { name: "To" })).accountId;
  await admin(`/accounts/${from}/fund`, { asset: "usdc", amount: "100" });
  const body = { source: { accountId: from, asset: "usdc" }, target: { accountId: to, asset: "usdc" }, amount: "1", asset: "usdc", execute: true };
  await send("POST", "/v2/transfers", body);
  await admin("/clock", { advance: "1h" });
  await send("GET", "/v2/transfers?pageSize=1");
}

/**
 * Adds `n` accounts and `n` mined ledger transactions (and `n` transfers and deliveries) to the default project of
 * the state file; with `accountsOnly`, only the accounts.
 */
function grow(file, n, accountsOnly = false) {
  const state = JSON.parse(readFileSync(file, "utf8"));
  const project = state.projects[state.defaultProjectId];
  const copies = (collection, idField, make) => {
    const [template] = Object.values(project.data[collection] ?? {});
    if (!template) throw new Error(`the first start made no ${collection} to copy`);
    for (let i = 0; i < n; i++) {
      const id = make(i);
      project.data[collection][id] = { ...structuredClone(template), [idField]: id };
    }
  };
  if (!accountsOnly) {
    copies("transfers", "transferId", () => `transfer_${randomBytes(16).toString("hex")}`);
    copies("webhookDeliveries", "id", () => `delivery_${randomBytes(16).toString("hex")}`);
  }
  // Given up for good, as most of a long-running sandbox's deliveries are: nothing left to send.
  for (const d of Object.values(project.data.webhookDeliveries)) d.status = d.status === "succeeded" ? "succeeded" : "failed";
  project.data.evmAccounts ??= {};
  project.data.ledgerTxs ??= {};
  const createdAt = "2026-01-01T00:00:00.000Z";
  for (let i = 0; i < n; i++) {
    const address = hex(20);
    project.data.evmAccounts[address] = { address, privateKey: hex(32), name: `bench-${i}`, policies: [], createdAt, updatedAt: createdAt };
    if (accountsOnly) continue;
    const hash = hex(32);
    project.data.ledgerTxs[hash] = {
      hash,
      network: "base-sepolia",
      chainId: 84532,
      from: address,
      to: address,
      value: "1",
      input: "0x",
      nonce: 0,
      gas: "21000",
      gasUsed: "21000",
      gasPrice: "1000000",
      type: "eip1559",
      block: 1,
      status: "success",
      logs: [],
    };
  }
  if (!accountsOnly) growSolana(project, n);
  const text = JSON.stringify(state);
  writeFileSync(file, text);
  return { bytes: text.length, name: `bench-${Math.floor(n / 2)}`, hash: Object.keys(project.data.ledgerTxs).at(-1) };
}

const DEVNET_USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

/**
 * `n` Solana devnet wallets as the sandbox keeps them: a system account with 0.01 SOL and a USDC token account
 * (165 bytes: mint, owner, amount, initialized) listed in the owner index. The token accounts' addresses are
 * random (deriving 100,000 ATAs in JavaScript would be most of the run); their layout is the real one.
 */
function growSolana(project, n) {
  project.data.solanaChainAccounts ??= {};
  project.data.solanaTokenAccountsByOwner ??= {};
  const mint = new PublicKey(DEVNET_USDC).toBytes();
  for (let i = 0; i < n; i++) {
    const owner = Keypair.generate().publicKey;
    const ata = Keypair.generate().publicKey.toBase58();
    const data = Buffer.alloc(165);
    Buffer.from(mint).copy(data, 0);
    Buffer.from(owner.toBytes()).copy(data, 32);
    data.writeBigUInt64LE(1_000_000n, 64);
    data[108] = 1;
    const wallet = owner.toBase58();
    project.data.solanaChainAccounts[`solana-devnet|${wallet}`] = {
      network: "solana-devnet",
      address: wallet,
      lamports: "10000000",
      owner: "11111111111111111111111111111111",
      data: "",
    };
    project.data.solanaChainAccounts[`solana-devnet|${ata}`] = {
      network: "solana-devnet",
      address: ata,
      lamports: "2039280",
      owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      data: data.toString("base64"),
    };
    project.data.solanaTokenAccountsByOwner[`solana-devnet|${wallet}`] = { accounts: [ata] };
  }
}

/** Times every call against a sandbox started on a state file of `size` records of each kind (or accounts only). */
async function measure(size, accountsOnly = false) {
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-bench-state-"));
  const file = join(dir, "state.json");
  try {
    // A first start makes the default project; its credentials come back with the same seed.
    let { child, fields } = await start(file);
    await seedTemplates(fields);
    await stop(child);
    const { name, hash, bytes } = grow(file, size, accountsOnly);
    const started = await start(file);
    child = started.child;
    const request = await signer(started.fields);
    const host = new URL(started.fields.basePath);
    const node = `${host.origin}/rpc/v1/base-sepolia/${started.fields.projectId}`;
    const rpc = (method, params) => ({
      url: node,
      init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) },
    });
    const own = await (await fetch(...Object.values(await request("POST", "/v2/evm/accounts", { name: "signer" })))).json();
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
    const result = { size, accountsOnly, bytes, figures, startMs: started.startMs, rssMb: rssMb(child.pid) };
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
console.log(["state file".padEnd(28), ...results.map((r) => `${(r.bytes / 1e6).toFixed(1)} MB`.padStart(18))].join(""));
console.log(["RSS after the calls".padEnd(28), ...results.map((r) => `${r.rssMb.toFixed(0)} MB`.padStart(18))].join(""));
const last = results.at(-1);
console.log(
  `RSS per record beyond the ${base.size}-record sandbox: ${(((last.rssMb - base.rssMb) * 1024 * 1024) / (last.size - base.size) / 4).toFixed(0)} bytes (accounts, ledger transactions, transfers and deliveries, as many of each)`,
);
console.log(
  `\n${column(accounts)} and nothing else: start-up ${accounts.startMs.toFixed(0)} ms, state file ${(accounts.bytes / 1e6).toFixed(1)} MB, RSS ${accounts.rssMb.toFixed(0)} MB, ` +
    `${(((accounts.rssMb - base.rssMb) * 1024 * 1024) / (accounts.size - base.size)).toFixed(0)} bytes per account beyond the ${base.size}-record sandbox`,
);
