#!/usr/bin/env node
/**
 * `node bench/pair.mjs BEFORE AFTER`: CPU per request of two builds (each a folder with `dist/`, e.g. a copy of the
 * tree built before a change), served side by side and loaded at the same time, so both meet the same machine: on a
 * machine other work shares, one build measured after the other sees another load, and its CPU per request moves
 * with it by a factor of two (hyperthreads, caches). Each round loads both with the same number of requests of
 * each kind, at once, after a warm-up, and prints the CPU each server spent per request (all threads, and its event
 * loop alone) and the ratio AFTER / BEFORE; the medians of the rounds close. A measurement, never a test.
 *
 * Kinds (BENCH_KINDS, default get,post,rpc,send): the authenticated GET and the wallet-signed POST of `npm run bench`,
 * a JSON-RPC `eth_chainId` to the node's URL, and `eth_sendRawTransaction` of a native transfer signed beforehand by
 * a viem account (one connection, so the nonces arrive in order). BENCH_ROUNDS (6), BENCH_N (3000 requests per kind,
 * round and build; a tenth of it for sends).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { bearerFactory, walletFactory } from "./tokens.mjs";

const [before, after] = process.argv.slice(2);
if (!before || !after) throw new Error("usage: node bench/pair.mjs BEFORE_ROOT AFTER_ROOT");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const N = Number(process.env.BENCH_N ?? 3000);
const KINDS = (process.env.BENCH_KINDS ?? "get,post,rpc,send").split(",");
const START_FLAGS = ["--max-semi-space-size=2"]; // as `npm start`
const GET_PATH = "/platform/v2/evm/accounts";
const SIGNED = { message: "hello from the benchmark" };
const RECIPIENT = "0x000000000000000000000000000000000000bEEF";

/** Starts a build's sandbox and makes what the requests need: an account to sign with, the node's URL. */
async function serve(root) {
  const child = spawn(process.execPath, [...START_FLAGS, join(root, "dist/cli.js"), "--port", "0", "--seed", "bench"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
  });
  const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  const url = new URL(fields.basePath).origin;
  const host = new URL(url).host;
  const bearer = await bearerFactory(fields.apiKeyId, fields.apiKeySecret);
  const wallet = await walletFactory(fields.walletSecret);
  const headers = async (method, path, body) => ({
    "content-type": "application/json",
    authorization: `Bearer ${await bearer(method, host, path)}`,
    ...(body ? { "x-wallet-auth": await wallet(method, host, path, body) } : {}),
  });
  const account = await fetch(`${url}${GET_PATH}`, { method: "POST", headers: await headers("POST", GET_PATH, {}), body: "{}" }).then((r) => r.json());
  const tokenPath = "/apikeys/v1/tokens/active";
  const nodeToken = await fetch(`${url}${tokenPath}`, { headers: await headers("GET", tokenPath) }).then((r) => r.json());
  // A funded key whose transactions are signed before they are timed.
  const sender = privateKeyToAccount(generatePrivateKey());
  const fund = { network: "base-sepolia", address: sender.address, amount: String(10n ** 24n) };
  const funded = await fetch(`${url}/_sandbox/balances`, {
    method: "POST",
    headers: await headers("POST", "/_sandbox/balances", fund),
    body: JSON.stringify(fund),
  });
  if (!funded.ok) throw new Error(`could not fund the sender: ${funded.status} ${await funded.text()}`);
  return {
    child,
    url,
    headers,
    sender,
    nonce: 0,
    postPath: `/platform/v2/evm/accounts/${account.address}/sign/message`,
    rpcPath: `/rpc/v1/base-sepolia/${nodeToken.id}`,
  };
}

/** autocannon options for `count` requests of `kind`, each with tokens of its own (tokens are single use). */
async function load(server, kind, count) {
  if (kind === "send") {
    const bodies = [];
    for (let k = 0; k < count; k++) {
      const tx = {
        type: "eip1559",
        chainId: 84532,
        to: RECIPIENT,
        value: 1n,
        nonce: server.nonce++,
        gas: 21_000n,
        maxFeePerGas: 2_000_000n,
        maxPriorityFeePerGas: 0n,
      };
      bodies.push(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [await server.sender.signTransaction(tx)] }));
    }
    let i = 0;
    const request = { method: "POST", headers: { "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: bodies[i++] }) };
    return { url: `${server.url}${server.rpcPath}`, amount: count, connections: 1, requests: [request] };
  }
  if (kind === "rpc") {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
    return { url: `${server.url}${server.rpcPath}`, amount: count, method: "POST", headers: { "content-type": "application/json" }, body };
  }
  const [method, path, body] = kind === "get" ? ["GET", GET_PATH, undefined] : ["POST", server.postPath, SIGNED];
  const all = await Promise.all(Array.from({ length: count }, () => server.headers(method, path, body)));
  let i = 0;
  const request = { method, ...(body ? { body: JSON.stringify(body) } : {}), setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...all[i++] } }) };
  return { url: `${server.url}${path}`, amount: count, requests: [request] };
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU ms of a process (all threads), or of its main thread alone: /proc stat fields 14 and 15. */
function cpuMs(pid, mainThreadOnly = false) {
  const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8");
  const fields = stat.split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** A JSON-RPC error is a 200 too: the sender's nonce on the chain says whether every send of the round went in. */
async function allSent(server) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionCount", params: [server.sender.address, "latest"] });
  const answer = await fetch(`${server.url}${server.rpcPath}`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.json());
  if (Number(answer.result) !== server.nonce)
    throw new Error(`sends: the chain holds ${Number(answer.result)} of the ${server.nonce} sent (${JSON.stringify(answer)})`);
}

const cannon = (opts) =>
  new Promise((resolve, reject) => autocannon({ connections: 5, ...opts }, (error, result) => (error ? reject(error) : resolve(result))));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const servers = [await serve(before), await serve(after)];
const rows = Object.fromEntries(KINDS.map((kind) => [kind, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of KINDS) {
    const n = kind === "send" ? Math.ceil(N / 10) : N;
    // The warm-up's requests are made first: a send's nonces must reach the server in the order they were signed.
    const warmUps = await Promise.all(servers.map((s) => load(s, kind, Math.min(300, n))));
    const runs = await Promise.all(servers.map((s) => load(s, kind, n)));
    await Promise.all(warmUps.map(cannon));
    const start = servers.map((s) => [cpuMs(s.child.pid), cpuMs(s.child.pid, true)]);
    const results = await Promise.all(runs.map(cannon));
    const [b, a] = servers.map((s, i) => {
      const n = results[i].requests.total;
      const failed = results[i].non2xx + results[i].errors + results[i].timeouts;
      if (failed > 0) throw new Error(`${kind}: ${failed} answers other than 2xx; the figures would not be the operation's`);
      return { cpu: ((cpuMs(s.child.pid) - start[i][0]) * 1000) / n, loop: ((cpuMs(s.child.pid, true) - start[i][1]) * 1000) / n };
    });
    if (kind === "send") await Promise.all(servers.map(allSent));
    rows[kind].push({ b, a });
    console.log(
      `round ${round} ${kind.padEnd(4)} before ${b.cpu.toFixed(0)} µs (loop ${b.loop.toFixed(0)})  after ${a.cpu.toFixed(0)} µs (loop ${a.loop.toFixed(0)})  after/before ${(a.cpu / b.cpu).toFixed(2)} (loop ${(a.loop / b.loop).toFixed(2)})  load ${loadavg()[0].toFixed(1)}`,
    );
  }
}
for (const kind of KINDS) {
  const r = rows[kind];
  console.log(
    `${kind}: median before ${median(r.map((x) => x.b.cpu)).toFixed(0)} µs, after ${median(r.map((x) => x.a.cpu)).toFixed(0)} µs; median of after/before ${median(r.map((x) => x.a.cpu / x.b.cpu)).toFixed(2)} (event loop ${median(r.map((x) => x.a.loop / x.b.loop)).toFixed(2)})`,
  );
}
for (const s of servers) s.child.kill("SIGTERM");
