/**
 * The state files of the state benchmarks (`npm run bench:state`, `bench/heap.mjs`): the default project made by a
 * first start of the built command, then records added to its snapshot as the sandbox keeps them, and the helpers
 * to start the command on such a file and sign requests to it.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT, importJWK, importPKCS8 } from "jose";
import { Keypair, PublicKey } from "@solana/web3.js";
import { sortKeys } from "../tokens.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const START_FLAGS = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  .scripts.start.split(" ")
  .filter((a) => a.startsWith("--"));

export function start(file, nodeFlags = []) {
  return startCommand({ args: ["--data", file, "--seed", "bench-state"], nodeFlags });
}

/**
 * Starts a build of the command (`cli`: BENCH_STATE_CLI, else this tree's dist/cli.js) on a free port with `args`, and resolves at its ready
 * line with the line's fields, the wall time to it and the process's CPU time by then.
 */
export function startCommand({ args, nodeFlags = [], cli = process.env.BENCH_STATE_CLI ?? join(root, "dist", "cli.js"), cwd = root }) {
  const began = performance.now();
  const child = spawn(process.execPath, [...START_FLAGS, ...nodeFlags, cli, "--port", "0", ...args], { cwd, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let text = "";
    child.once("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end >= 0 && !child.ready) {
        child.ready = true;
        const fields = Object.fromEntries([...text.slice(0, end).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
        resolve({ child, fields, startMs: performance.now() - began, startCpuMs: cpuMs(child.pid), startMainCpuMs: cpuMs(child.pid, true) });
      }
    });
  });
}

export const stop = (child) =>
  new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });

/**
 * The CPU time (user and system) a process has used so far, in ms: start-up on a busy machine, where wall time is
 * noise. `mainThreadOnly`: its main thread's alone (the rest is its helper threads', the collector's among them).
 */
const cpuMs = (pid, mainThreadOnly = false) => {
  // The fields after the command's name: utime and stime are the 12th and 13th, in clock ticks (100 a second on Linux).
  const fields = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8")
    .split(") ")[1]
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/**
 * Resolves once the process has gone quiet (under 5 % of a core over each of four 250 ms windows in a row), with the
 * ms that took: the command's warm-up after its ready line (the data file's collections parsed a piece per turn, the
 * Solana runtime, the refusal paths) is over, and timed calls measure the state, not the warm-up sharing the loop.
 */
export async function settled(pid) {
  const began = performance.now();
  let last = cpuMs(pid);
  for (let quiet = 0; quiet < 4; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = cpuMs(pid);
    quiet = now - last < 12.5 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - began - 1000;
}

export const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
};

export async function signer(fields) {
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

export const DEVNET_USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

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

/**
 * A new state file (in a new temporary folder) with `size` records of each kind, or `size` accounts alone: the
 * folder, the file, its size in bytes, the name of an account in the middle and the hash of the last transaction.
 */
export async function makeStateFile(size, accountsOnly = false) {
  const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-bench-state-"));
  const file = join(dir, "state.json");
  // A first start makes the default project; its credentials come back with the same seed.
  const { child, fields } = await start(file);
  await seedTemplates(fields);
  await stop(child);
  const grown = grow(file, size, accountsOnly);
  // One start and stop on the grown file: the sandbox writes it again as it keeps it (with the index beside it that
  // lets a start leave the records unparsed), as a sandbox that ran on it would have left it.
  await stop((await start(file)).child);
  return { dir, file, ...grown };
}
