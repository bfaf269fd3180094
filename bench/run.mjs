#!/usr/bin/env node
/**
 * `npm run bench`: autocannon against (1) an authenticated, validated GET,
 * (2) a wallet-signed POST, both with tokens minted before the run, and (3) a
 * bare Express 5 baseline, all in one run on this machine. Prints req/s, p99,
 * the ratio to the baseline, start-up time and RSS. A measurement, never a test.
 *
 * The sandbox runs in a child process (`dist/cli.js`), as users run it, so the
 * load generator does not share its event loop. Run `npm run build` first.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import express from "express";
import { SignJWT, importJWK, importPKCS8 } from "jose";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOKENS = 40_000; // more than any run sends: each wallet token's jti may be used once

async function startSandbox() {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(process.env.BENCH_PROF ? ["--cpu-prof", "--cpu-prof-dir=/tmp/prof"] : []), join(root, "dist/cli.js"), "--port", "0", "--seed", "bench"], { stdio: ["ignore", "pipe", "inherit"] });
  let line = "";
  for await (const chunk of child.stdout) {
    line += chunk;
    if (line.includes("\n")) break;
  }
  const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  const url = new URL(fields.basePath).origin;
  // start-up = process start to first answered request
  await fetch(`${url}/_sandbox/health`);
  const startupMs = performance.now() - t0;
  return { child, url, host: new URL(url).host, startupMs, ...fields };
}

async function bearerFactory(apiKeyId, apiKeySecret) {
  const raw = Buffer.from(apiKeySecret, "base64");
  const key = await importJWK({ kty: "OKP", crv: "Ed25519", d: raw.subarray(0, 32).toString("base64url"), x: raw.subarray(32).toString("base64url") }, "EdDSA");
  return (method, host, path) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sub: apiKeyId, iss: "cdp", uris: [`${method} ${host}${path}`] })
      .setProtectedHeader({ alg: "EdDSA", kid: apiKeyId, typ: "JWT", nonce: randomBytes(16).toString("hex") })
      .setIssuedAt(now).setNotBefore(now).setExpirationTime(now + 120)
      .sign(key);
  };
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

async function walletFactory(walletSecret) {
  const key = await importPKCS8(`-----BEGIN PRIVATE KEY-----\n${walletSecret}\n-----END PRIVATE KEY-----`, "ES256");
  return (method, host, path, body) => {
    const now = Math.floor(Date.now() / 1000);
    const reqHash = createHash("sha256").update(JSON.stringify(sortKeys(body))).digest("hex");
    return new SignJWT({ uris: [`${method} ${host}${path}`], reqHash })
      .setProtectedHeader({ alg: "ES256", typ: "JWT" })
      .setIssuedAt(now).setNotBefore(now).setJti(randomBytes(16).toString("hex"))
      .sign(key);
  };
}

function run(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

function summary(name, r, baseline) {
  const rps = r.requests.average;
  const ok = r["2xx"];
  const ratio = baseline ? ` (${((rps / baseline) * 100).toFixed(0)}% of bare Express)` : "";
  return `${name.padEnd(34)} ${rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.latency.p99).padStart(4)} ms  2xx ${ok}/${r.requests.total}${ratio}`;
}

async function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return NaN;
  }
}

const sandbox = await startSandbox();
const bearer = await bearerFactory(sandbox.apiKeyId, sandbox.apiKeySecret);
const wallet = await walletFactory(sandbox.walletSecret);

// Baseline: bare Express 5 answering JSON, in this process.
const bare = express();
bare.get("/ping", (_req, res) => res.json({ ok: true }));
const bareServer = bare.listen(0, "127.0.0.1");
await once(bareServer, "listening");
const barePort = bareServer.address().port;

const GET_PATH = "/platform/v2/evm/accounts";
// The POST signs with a real account, created first like any client would.
const created = await fetch(`${sandbox.url}${GET_PATH}`, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    authorization: `Bearer ${await bearer("POST", sandbox.host, GET_PATH)}`,
    "x-wallet-auth": await wallet("POST", sandbox.host, GET_PATH, { name: "bench" }),
  },
  body: JSON.stringify({ name: "bench" }),
}).then((r) => r.json());
if (!created.address) throw new Error(`could not create the benchmark account: ${JSON.stringify(created)}`);
const POST_PATH = `/platform/v2/evm/accounts/${created.address}/sign/message`;
const postBody = { message: "hello from the benchmark" };

console.log(`minting ${TOKENS} bearer tokens and ${TOKENS} wallet tokens ...`);
const getTokens = await Promise.all(Array.from({ length: TOKENS }, () => bearer("GET", sandbox.host, GET_PATH)));
const postTokens = await Promise.all(Array.from({ length: TOKENS }, () => bearer("POST", sandbox.host, POST_PATH)));
const walletTokens = await Promise.all(Array.from({ length: TOKENS }, () => wallet("POST", sandbox.host, POST_PATH, postBody)));

let g = 0;
let p = 0;
const bareResult = await run({ url: `http://127.0.0.1:${barePort}/ping` });
const getResult = await run({
  url: `${sandbox.url}${GET_PATH}`,
  requests: [{ method: "GET", setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${getTokens[g++ % TOKENS]}` } }) }],
});
const postResult = await run({
  url: `${sandbox.url}${POST_PATH}`,
  requests: [
    {
      method: "POST",
      body: JSON.stringify(postBody),
      setupRequest: (req) => ({
        ...req,
        headers: { ...req.headers, "content-type": "application/json", authorization: `Bearer ${postTokens[p % TOKENS]}`, "x-wallet-auth": walletTokens[p++ % TOKENS] },
      }),
    },
  ],
});
const rss = await rssOf(sandbox.child.pid);

console.log(`\ncdp-sandbox benchmark: ${DURATION}s per run, ${CONNECTIONS} connections, node ${process.version}`);
console.log(summary("bare Express 5 GET", bareResult));
console.log(summary("authenticated, validated GET", getResult, bareResult.requests.average));
console.log(summary("wallet-signed, validated POST", postResult, bareResult.requests.average));
console.log(`start-up to first answered request: ${sandbox.startupMs.toFixed(0)} ms; sandbox RSS after the runs: ${rss.toFixed(0)} MB`);

bareServer.close();
sandbox.child.kill("SIGTERM");
