#!/usr/bin/env node
/**
 * Where the memory of a sandbox goes. `node bench/heap.mjs` writes a state file of BENCH_HEAP_SIZE (100,000)
 * records of each kind (as `npm run bench:state` does: EVM accounts, ledger transactions, transfers, webhook
 * deliveries, and a Solana wallet with a token account per record), starts the built command on it with `--data`,
 * makes a few first calls (a named lookup, list pages, a signed create, a receipt), and has it write a V8 heap
 * snapshot; `node bench/heap.mjs FILE.heapsnapshot` reads a snapshot taken elsewhere (e.g. after `npm run bench`,
 * with BENCH_HEAPSNAPSHOT=DIR there). Prints, as Markdown, the retained size of each part of the state (each
 * collection's records, the store's indexes, the journal, the replay caches, the runtimes, the validators) and the
 * largest kinds of object by self size. `node bench/heap.mjs BEFORE AFTER COUNT` compares two snapshots of one
 * process (`bench/evm.mjs` writes such a pair around its last holders with BENCH_HEAPSNAPSHOT=DIR): the bytes each part
 * added, per COUNT (what each holder cost). A measurement, never a test. Run `npm run build` first.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { heapGraph, readHeapSnapshot } from "./lib/heapSnapshot.mjs";
import { makeStateFile, rssMb, signer, start, stop } from "./lib/stateFile.mjs";

const SIZE = Number(process.env.BENCH_HEAP_SIZE ?? 100000);

/** Parts of the sandbox found by the class of their objects: each one's retained size is reported. */
const BY_CLASS = {
  "store: indexes (lookups, list order, due times)": ["CollectionIndexes"],
  "store: in-memory snapshots (`/_sandbox/snapshots`)": ["Snapshots"],
  "journal of requests": ["Journal", "JournalFile"],
  "idempotency replay cache": ["Idempotency"],
  "wallet-token replay registry (jti)": ["WalletAuthStage"],
  "EVM runtime (ethereumjs)": ["EVM", "LedgerStateManager"],
  "Solana runtime (LiteSVM)": ["LiteSvmRuntime", "LiteSVM"],
  "compiled validators (Ajv)": ["PreparedAjv", "Ajv", "Ajv2019", "Ajv2020"],
  "viem's caches (checksummed addresses; 8,192 each)": ["LruMap"],
};

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** A heap snapshot of the sandbox at SIZE records of each kind, and its RSS when it was taken. */
async function snapshotAtSize() {
  const { dir, file, name, hash } = await makeStateFile(SIZE);
  const began = performance.now();
  const { child, fields } = await start(file, ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`]);
  const startMs = performance.now() - began;
  const request = await signer(fields);
  const call = async (method, path, body) => {
    const res = await fetch(...Object.values(await request(method, path, body)));
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    await res.arrayBuffer();
  };
  await call("GET", `/v2/evm/accounts/by-name/${name}`);
  await call("GET", "/v2/evm/accounts?pageSize=20");
  await call("POST", "/v2/evm/accounts", { name: "heap-signer" });
  await call("GET", "/v2/transfers?pageSize=20&status=completed");
  const node = `${new URL(fields.basePath).origin}/rpc/v1/base-sepolia/${fields.projectId}`;
  await fetch(node, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] }),
  });
  const rss = rssMb(child.pid);
  child.kill("SIGUSR2");
  // The snapshot is written on the sandbox's main thread: once it answers again, the file is complete (a kept-alive
  // connection may have been dropped meanwhile: asked again on a new one).
  for (let attempt = 0; ; attempt++) {
    try {
      await call("GET", "/v2/evm/accounts?pageSize=1");
      break;
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
  const written = readdirSync(dir).find((f) => f.endsWith(".heapsnapshot"));
  await stop(child);
  return { dir, snapshot: join(dir, written), rss, startMs };
}

function attribute(file) {
  const began = performance.now();
  const graph = heapGraph(readHeapSnapshot(file));
  const { total, seen } = graph.reachable();
  const rows = [];
  const retained = (label, nodes) => {
    if (nodes.length === 0) return;
    rows.push([label, total - graph.reachable(new Set(nodes)).total, nodes.length]);
  };
  // The store's records: each collection of each project's `data`, found as the records object of a project.
  const collections = new Map();
  for (const project of graph.nodesWhere((n) => graph.type(n) === "object" && seen[n])) {
    const members = new Map([...graph.edgesOf(project)].filter(([t]) => t === "property").map(([, k, to]) => [k, to]));
    if (!members.has("apiKeys") || !members.has("data") || !members.has("settings")) continue;
    for (const [t, k, to] of graph.edgesOf(members.get("data"))) {
      if (t === "property" && k !== "__proto__") collections.set(k, [...(collections.get(k) ?? []), to]);
    }
  }
  for (const [name, nodes] of [...collections].sort()) retained(`store records: ${name}`, nodes);
  const shapes = [...collections].sort().map(([name, nodes]) => [name, recordShapes(graph, nodes)]);
  for (const [label, classes] of Object.entries(BY_CLASS)) {
    retained(
      label,
      graph.nodesWhere((n) => seen[n] && graph.type(n) === "object" && classes.includes(graph.name(n))),
    );
  }
  const kinds = [...graph.selfSizeByKind(seen)].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 15);
  return { total, rows, kinds, shapes, strings: stringCopies(graph, seen), seconds: (performance.now() - began) / 1000 };
}

/**
 * The records of a collection (the members of its records objects): how many hidden classes (V8 maps) they use, and
 * how many keep properties out of the object, in a property array of their own (the "property tables").
 */
function recordShapes(graph, collectionNodes) {
  const maps = new Set();
  let records = 0;
  let outOfObject = 0;
  let outOfObjectBytes = 0;
  let collectionTables = 0;
  for (const collection of collectionNodes) {
    for (const [t, k, to] of graph.edgesOf(collection)) {
      if (t === "internal" && (k === "properties" || k === "elements")) collectionTables += graph.selfSize(to);
      if (t !== "property" || k === "__proto__" || graph.type(to) !== "object") continue;
      records++;
      for (const [rt, rk, rto] of graph.edgesOf(to)) {
        if (rt !== "internal") continue;
        if (rk === "map") maps.add(rto);
        else if (rk === "properties" && graph.selfSize(rto) > 16) {
          outOfObject++;
          outOfObjectBytes += graph.selfSize(rto);
        }
      }
    }
  }
  return { records, maps: maps.size, outOfObject, outOfObjectBytes, collectionTables };
}

/**
 * The reachable strings by content: how many bytes are copies of a string held elsewhere too (the first of each
 * content counted as the original), and the contents copied most, by bytes. Flat strings only (cons and sliced
 * strings are counted apart: a sliced string keeps its parent alive). A snapshot names a string by at most its
 * first 1,024 characters, so longer strings of the same start and size count as copies.
 */
function stringCopies(graph, seen) {
  const byContent = new Map();
  const other = new Map();
  let bytes = 0;
  let count = 0;
  let twoByte = 0;
  for (const n of graph.nodesWhere((node) => seen[node])) {
    const type = graph.type(n);
    if (type === "concatenated string" || type === "sliced string") {
      const entry = other.get(type) ?? { count: 0, bytes: 0 };
      entry.count++;
      entry.bytes += graph.selfSize(n);
      other.set(type, entry);
    }
    if (type !== "string") continue;
    const size = graph.selfSize(n);
    const name = graph.name(n);
    bytes += size;
    count++;
    // A one-byte string takes its length and a 16-byte header, rounded up to 8; a two-byte one twice the length.
    if (name.length < 1024 && name.length >= 16 && size >= 2 * name.length + 16) twoByte++;
    const key = `${size}:${name}`;
    const entry = byContent.get(key);
    if (entry) entry.copies++;
    else byContent.set(key, { name, size, copies: 0 });
  }
  const copied = [...byContent.values()].filter((e) => e.copies > 0);
  const copyBytes = copied.reduce((sum, e) => sum + e.copies * e.size, 0);
  const top = copied.sort((a, b) => b.copies * b.size - a.copies * a.size).slice(0, 10);
  return { bytes, count, copyBytes, copyCount: copied.reduce((sum, e) => sum + e.copies, 0), distinct: byContent.size, twoByte, other, top };
}

/**
 * Each part's bytes in a snapshot, every reachable object counted once: a walk from each part's objects in turn (the
 * collections' records first, then the parts of BY_CLASS) takes what no earlier part took, and what none reaches is
 * "the rest". Code, closures, scopes and hidden classes are left to the rest: they are the program's, not a part's data.
 */
function partBytes(file) {
  const graph = heapGraph(readHeapSnapshot(file));
  const { seen } = graph.reachable();
  const taken = new Uint8Array(graph.nodeCount);
  const bytes = new Map();
  const walk = (label, roots) => {
    let total = 0;
    const stack = roots.filter((n) => !taken[n]);
    for (const n of stack) taken[n] = 1;
    while (stack.length > 0) {
      const n = stack.pop();
      total += graph.selfSize(n);
      for (const [type, name, to] of graph.edgesOf(n)) {
        if (type === "weak" || taken[to] || !seen[to] || name === "map" || name === "__proto__") continue;
        // Nor into a function's scope (a module's variables): from there, a part would take whatever its module holds.
        if (["code", "closure", "object shape"].includes(graph.type(to)) || graph.name(to) === "system / Context") continue;
        taken[to] = 1;
        stack.push(to);
      }
    }
    bytes.set(label, (bytes.get(label) ?? 0) + total);
  };
  const objects = graph.nodesWhere((n) => seen[n] && graph.type(n) === "object");
  for (const project of objects) {
    const members = new Map([...graph.edgesOf(project)].filter(([t]) => t === "property").map(([, k, to]) => [k, to]));
    if (!members.has("apiKeys") || !members.has("data") || !members.has("settings")) continue;
    for (const [t, k, to] of graph.edgesOf(members.get("data"))) if (t === "property" && k !== "__proto__") walk(`store records: ${k}`, [to]);
  }
  for (const [label, classes] of Object.entries(BY_CLASS))
    walk(
      label,
      objects.filter((n) => classes.includes(graph.name(n))),
    );
  let rest = 0;
  for (let n = 0; n < graph.nodeCount; n++) if (seen[n] && !taken[n]) rest += graph.selfSize(n);
  bytes.set("the rest (code, caches, the client's side)", rest);
  return bytes;
}

if (process.argv[4] !== undefined) {
  const [before, after] = [partBytes(process.argv[2]), partBytes(process.argv[3])];
  const count = Number(process.argv[4]);
  console.log(`\n| part | bytes added per one of ${count} |\n|---|---|`);
  let sum = 0;
  for (const [label, bytes] of after) {
    const added = (bytes - (before.get(label) ?? 0)) / count;
    sum += added;
    if (Math.abs(added) >= 0.5) console.log(`| ${label} | ${added.toFixed(0)} |`);
  }
  console.log(`| all | ${sum.toFixed(0)} |`);
  process.exit(0);
}

const given = process.argv[2];
const taken = given ? undefined : await snapshotAtSize();
const file = given ?? taken.snapshot;
const { total, rows, kinds, shapes, strings, seconds } = attribute(file);
console.log(
  `\n${given ? file : `${SIZE} records of each kind`}: V8 heap reachable ${mb(total)} MB in the snapshot (${(statSync(file).size / 1e6).toFixed(0)} MB file, read in ${seconds.toFixed(0)} s)`,
);
if (taken) console.log(`RSS before the snapshot ${taken.rss.toFixed(0)} MB; start-up to the ready line ${taken.startMs.toFixed(0)} ms`);
console.log("\n| part (retained) | MB | share of the heap | objects found |\n|---|---|---|---|");
for (const [label, bytes, count] of rows) console.log(`| ${label} | ${mb(bytes)} | ${((100 * bytes) / total).toFixed(1)} % | ${count} |`);
console.log("\n| kind (self size) | count | MB | share |\n|---|---|---|---|");
for (const [kind, { count, bytes }] of kinds) console.log(`| ${kind} | ${count} | ${mb(bytes)} | ${((100 * bytes) / total).toFixed(1)} % |`);
console.log(
  "\n| records (hidden classes) | records | hidden classes | with a property array | MB in them | the collection's own table, MB |\n|---|---|---|---|---|---|",
);
for (const [name, r] of shapes) {
  if (r.records > 0) console.log(`| ${name} | ${r.records} | ${r.maps} | ${r.outOfObject} | ${mb(r.outOfObjectBytes)} | ${mb(r.collectionTables)} |`);
}
console.log(
  `\nStrings: ${mb(strings.bytes)} MB in ${strings.count} flat strings (${strings.distinct} distinct contents, ${strings.twoByte} two-byte), of which ${mb(strings.copyBytes)} MB (${((100 * strings.copyBytes) / strings.bytes).toFixed(1)} %) in ${strings.copyCount} copies of a string held elsewhere too`,
);
for (const [type, { count, bytes }] of strings.other) console.log(`${type}: ${count}, ${mb(bytes)} MB`);
console.log("\n| most copied (first 40 characters) | size | copies | MB |\n|---|---|---|---|");
for (const { name, size, copies } of strings.top) console.log(`| ${JSON.stringify(name.slice(0, 40))} | ${size} | ${copies} | ${mb(copies * size)} |`);
if (taken) rmSync(taken.dir, { recursive: true, force: true });
