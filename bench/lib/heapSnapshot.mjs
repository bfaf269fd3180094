/**
 * Reads a V8 `.heapsnapshot` (from `--heapsnapshot-signal` or `v8.writeHeapSnapshot()`) and attributes its
 * memory. The file of a sandbox holding 400,000 records is over a gigabyte, past the longest string `JSON.parse`
 * takes, so the numbers of its `nodes` and `edges` are read straight from the bytes into typed arrays; only the
 * small header and the `strings` are parsed as JSON.
 *
 * Attribution is by retained size, the bytes that would be freed with a thing: everything reachable from the
 * snapshot's root, less what is still reachable when the thing's nodes are taken out (one walk per category,
 * no dominator tree needed). Weak edges keep nothing alive and are not followed.
 */
import { closeSync, openSync, readSync } from "node:fs";

const CHUNK = 64 << 20;

/** Byte-level reader over a file, in chunks. */
class Bytes {
  constructor(file) {
    this.fd = openSync(file, "r");
    this.buffer = Buffer.alloc(CHUNK);
    this.length = 0;
    this.at = 0;
  }
  /** The next byte, or -1 at the end of the file. */
  next() {
    if (this.at === this.length) {
      this.length = readSync(this.fd, this.buffer, 0, CHUNK, null);
      this.at = 0;
      if (this.length === 0) return -1;
    }
    return this.buffer[this.at++];
  }
  /** Reads up to and including `marker` (ASCII), returning the text before it. */
  until(marker) {
    const codes = [...marker].map((c) => c.charCodeAt(0));
    const seen = [];
    let matched = 0;
    for (;;) {
      const b = this.next();
      if (b === -1) throw new Error(`the snapshot ends before ${marker}`);
      seen.push(b);
      if (b === codes[matched]) matched++;
      else matched = b === codes[0] ? 1 : 0;
      if (matched === codes.length) return Buffer.from(seen.slice(0, seen.length - codes.length)).toString("utf8");
    }
  }
  /** Reads a JSON array of non-negative integers into `into`; returns how many were read. */
  integers(into) {
    let count = 0;
    let value = 0;
    let inNumber = false;
    for (;;) {
      const b = this.next();
      if (b >= 48 && b <= 57) {
        value = value * 10 + (b - 48);
        inNumber = true;
      } else {
        if (inNumber) into[count++] = value;
        value = 0;
        inNumber = false;
        if (b === 93 /* ] */ || b === -1) return count;
      }
    }
  }
  /** Reads a JSON array of strings. */
  strings() {
    const out = [];
    let bytes = [];
    let inString = false;
    let escaped = false;
    for (;;) {
      const b = this.next();
      if (b === -1) return out;
      if (!inString) {
        if (b === 34) {
          inString = true;
          bytes = [34];
        } else if (b === 93) return out;
        continue;
      }
      bytes.push(b);
      if (escaped) escaped = false;
      else if (b === 92) escaped = true;
      else if (b === 34) {
        out.push(JSON.parse(Buffer.from(bytes).toString("utf8")));
        inString = false;
      }
    }
  }
  close() {
    closeSync(this.fd);
  }
}

/** The parsed snapshot: typed arrays of nodes and edges, the strings, and the field layout. */
export function readHeapSnapshot(file) {
  const bytes = new Bytes(file);
  try {
    const header = JSON.parse(`${bytes.until('"nodes":[').trim().replace(/,$/, "")}}`);
    const meta = header.snapshot.meta;
    const nodeFields = meta.node_fields.length;
    const edgeFields = meta.edge_fields.length;
    const nodes = new Float64Array(header.snapshot.node_count * nodeFields);
    if (bytes.integers(nodes) !== nodes.length) throw new Error("the snapshot's node count does not match its nodes");
    bytes.until('"edges":[');
    const edges = new Uint32Array(header.snapshot.edge_count * edgeFields);
    if (bytes.integers(edges) !== edges.length) throw new Error("the snapshot's edge count does not match its edges");
    bytes.until('"strings":[');
    const strings = bytes.strings();
    return { meta, nodes, edges, strings, nodeFields, edgeFields, nodeCount: header.snapshot.node_count };
  } finally {
    bytes.close();
  }
}

/** Graph helpers over a parsed snapshot. */
export function heapGraph(snapshot) {
  const { meta, nodes, edges, strings, nodeFields, edgeFields, nodeCount } = snapshot;
  const nf = Object.fromEntries(meta.node_fields.map((f, i) => [f, i]));
  const ef = Object.fromEntries(meta.edge_fields.map((f, i) => [f, i]));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const WEAK = edgeTypes.indexOf("weak");
  const ELEMENT = edgeTypes.indexOf("element");
  const HIDDEN = edgeTypes.indexOf("hidden");
  const firstEdge = new Uint32Array(nodeCount + 1);
  for (let i = 0; i < nodeCount; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * nodeFields + nf.edge_count];
  const type = (n) => nodeTypes[nodes[n * nodeFields + nf.type]];
  const name = (n) => strings[nodes[n * nodeFields + nf.name]];
  const selfSize = (n) => nodes[n * nodeFields + nf.self_size];
  /** [edge type, edge name or index, target node] of each edge of `n`. */
  function* edgesOf(n) {
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) {
      const t = edges[e * edgeFields + ef.type];
      const label = edges[e * edgeFields + ef.name_or_index];
      yield [edgeTypes[t], t === ELEMENT || t === HIDDEN ? label : strings[label], edges[e * edgeFields + ef.to_node] / nodeFields];
    }
  }
  /** Bytes reachable from the root (node 0) without entering `excluded`, and the visited marks. */
  function reachable(excluded = new Set()) {
    const seen = new Uint8Array(nodeCount);
    const stack = new Uint32Array(nodeCount);
    let top = 0;
    let total = 0;
    stack[top++] = 0;
    seen[0] = 1;
    for (const n of excluded) seen[n] = 1;
    while (top > 0) {
      const n = stack[--top];
      total += nodes[n * nodeFields + nf.self_size];
      for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) {
        if (edges[e * edgeFields + ef.type] === WEAK) continue;
        const to = edges[e * edgeFields + ef.to_node] / nodeFields;
        if (!seen[to]) {
          seen[to] = 1;
          stack[top++] = to;
        }
      }
    }
    return { total, seen };
  }
  /** Self size by kind: the constructor's name for objects, the node type for the rest. */
  function selfSizeByKind(seen) {
    const by = new Map();
    for (let n = 0; n < nodeCount; n++) {
      if (!seen[n]) continue;
      const t = type(n);
      const kind = t === "object" || t === "native" ? name(n) : t === "closure" ? "(closure)" : `(${t})`;
      const entry = by.get(kind) ?? { count: 0, bytes: 0 };
      entry.count++;
      entry.bytes += selfSize(n);
      by.set(kind, entry);
    }
    return by;
  }
  /** Every node that `predicate(node)` holds for. */
  function nodesWhere(predicate) {
    const found = [];
    for (let n = 0; n < nodeCount; n++) if (predicate(n)) found.push(n);
    return found;
  }
  return { nodeCount, type, name, selfSize, edgesOf, reachable, selfSizeByKind, nodesWhere };
}
