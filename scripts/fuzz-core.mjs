/**
 * The fuzzer's core, shared by `npm run fuzz` (scripts/fuzz.mjs, against the
 * built command) and the short run in `npm test` (test/fuzz/fuzz.test.ts,
 * against the source). It sends seeded requests to every operation of the
 * contract over loopback HTTP, valid ones and spoiled ones (fuzz-requests.mjs,
 * fuzz-mutations.mjs), signed as the official client signs them
 * (fuzz-tokens.mjs), and checks every answer:
 *
 *   5xx          any status from 500 (with --validate-responses a response
 *                that breaks the contract is one, naming the mismatch)
 *   crash        no answer: connection reset, timeout, the process gone
 *   error-body   a 4xx/5xx whose body is not the platform's error body
 *                (errorType, errorMessage, correlationId, errorLink)
 *   slow         an answer slower than `slowMs` (1 s)
 *   stall        the sandbox's event loop held over 100 ms (reported by the
 *                caller's `takeStalls`), under the request in flight then
 *   accepted     a forged or misdirected token, or a replayed wallet token, answered 2xx
 *   leak         another project's key reads a record this project created
 *   rpc-internal a node answer (HTTP or WebSocket) that is JSON-RPC's internal error (-32603: an exception the
 *                node did not expect) or not JSON-RPC at all; a WebSocket closed by the sandbox or never
 *                answering is a crash
 *
 * With `nodeShare` (a fraction), that share of the requests goes to the JSON-RPC node (fuzz-node.mjs) and every
 * `socketEvery`-th request is also a message on the node's EVM or Solana WebSocket.
 *
 * The project's own modules it needs (the operations, the request validator,
 * the faker's recursion pruning) are passed in, so the same core runs against
 * dist/ or src/.
 */
import http from "node:http";
import { generateKeyPairSync } from "node:crypto";
import WebSocket from "ws";
import { createMutator } from "./fuzz-mutations.mjs";
import { createNodeFuzzer } from "./fuzz-node.mjs";
import { seededRandom } from "./fuzz-random.mjs";
import { createPool, createRequestMaker } from "./fuzz-requests.mjs";
import { makeEndUserWalletSigner, makeSigner } from "./fuzz-tokens.mjs";

const TIMEOUT_MS = 10_000;
/** The first answer of an operation may take this many times the limit: it compiles the operation's schemas. */
const FIRST_USE_FACTOR = 5;
const INHERITED = ["constructor", "__proto__", "toString"];

/** A small loopback server the generated bodies' URLs point to (webhook targets, x402 resources). */
async function startSink() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

function sendRaw(agent, origin, { method, target, headers, body }) {
  const started = performance.now();
  return new Promise((resolve) => {
    let req;
    try {
      req = http.request({ host: origin.hostname, port: origin.port, method, path: target, headers, agent, setHost: false });
    } catch (error) {
      resolve({ clientError: error.message, ms: 0 }); // the client refuses the request itself (a character Node will not send)
      return;
    }
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
    req.on("error", (error) => resolve({ error: `${error.code ?? ""} ${error.message}`.trim(), ms: performance.now() - started }));
    req.on("response", (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("error", (error) => resolve({ error: `${error.code ?? ""} ${error.message}`.trim(), ms: performance.now() - started }));
      res.on("end", () =>
        resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }),
      );
    });
    req.end(body);
  });
}

const isPlatformError = (b) =>
  b !== null &&
  typeof b === "object" &&
  typeof b.errorType === "string" &&
  typeof b.errorMessage === "string" &&
  typeof b.correlationId === "string" &&
  typeof b.errorLink === "string";
/**
 * Whether the contract gives `status` of `op` a body of its own instead of the error body (x402's refused payments
 * answer 400 with the protocol's body); the sandbox's contract check holds such answers to it.
 */
function declaresOwnBody(op, status) {
  const response = op?.http.responses.find((r) => r.code === String(status));
  const schema = response?.contents?.find((c) => /json/.test(c.mediaType))?.schema;
  if (!schema || typeof schema !== "object") return false;
  const fields = JSON.stringify(schema);
  return !fields.includes('"errorType"');
}
const isJsonRpcError = (b) => b !== null && typeof b === "object" && b.jsonrpc === "2.0" && typeof b.error === "object";
const isJsonRpcReply = (b) => b !== null && typeof b === "object" && b.jsonrpc === "2.0" && ("result" in b || isJsonRpcError(b));

/**
 * What is wrong with a node's 200 answer: not JSON-RPC, or an internal error (an exception it did not expect),
 * naming the method that met it (the call of `sent`, one message or a batch, answered at the same place).
 */
function rpcProblem(body, sent) {
  const replies = Array.isArray(body) ? body : [body];
  if (body === undefined || replies.some((r) => !isJsonRpcReply(r))) return "the answer is not JSON-RPC";
  const at = replies.findIndex((r) => r.error?.code === -32603);
  if (at < 0) return undefined;
  const calls = Array.isArray(sent) ? sent : [sent];
  const method = calls.length === replies.length ? calls[at]?.method : undefined;
  return `internal error -32603${typeof method === "string" ? ` in ${method}` : ""}: ${abbreviate(String(replies[at].error.message), 200)}`;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Long runs of one character (or a short group) written as ⟨"x"×N⟩, so a reproduction fits on a screen. */
/**
 * `text` for a report: runs of one character (24 or more) and of a group of 2–6 characters (12 or more) written
 * `⟨"a"×5000⟩`, then cut at `max`. One pass that stops once `max` characters are written: the regular expressions
 * with backreferences this replaces overflowed the stack on the fuzzer's own 4 MB strings (and ended a run).
 */
export function abbreviate(text, max = 600) {
  let out = "";
  let i = 0;
  const repeats = (unit, from) => {
    let n = 0;
    while (text.startsWith(unit, from + n * unit.length)) n++;
    return n;
  };
  while (i < text.length && out.length <= max) {
    const single = repeats(text[i], i);
    if (single >= 24) {
      out += `⟨${JSON.stringify(text[i])}×${single}⟩`;
      i += single;
      continue;
    }
    let grouped = false;
    for (let size = 2; size <= 6 && i + size <= text.length; size++) {
      const unit = text.slice(i, i + size);
      const n = repeats(unit, i);
      if (n >= 12) {
        out += `⟨${JSON.stringify(unit)}×${n}⟩`;
        i += n * size;
        grouped = true;
        break;
      }
    }
    if (grouped) continue;
    out += text[i];
    i++;
  }
  return out.length > max || i < text.length ? `${out.slice(0, max)}…(${text.length} characters)` : out;
}

const shellQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command line; tokens are named, not shown (they expire; mint fresh ones the same way). */
function curlOf(origin, wire, notes) {
  const parts = [`curl -X ${wire.method} ${shellQuote(`${origin.origin}${abbreviate(wire.target, 400)}`)}`];
  for (const [name, value] of Object.entries(wire.headers)) {
    const shown = notes[name.toLowerCase()] ?? abbreviate(String(value), 200);
    parts.push(`-H ${shellQuote(`${name}: ${shown}`)}`);
  }
  if (wire.body !== undefined && wire.body.length > 0) {
    const text = Buffer.isBuffer(wire.body) ? wire.body.toString("latin1") : wire.body;
    parts.push(`--data-raw ${shellQuote(abbreviate(text))}`);
  }
  return parts.join(" ");
}

/** The request in full (tokens named, the body cut at 256 kB), for a file of findings. */
function requestRecord(wire) {
  const text = wire.body === undefined ? undefined : Buffer.isBuffer(wire.body) ? wire.body.toString("latin1") : wire.body;
  const headers = Object.fromEntries(Object.entries(wire.headers).map(([k, v]) => [k, wire.notes[k.toLowerCase()] ?? v]));
  return {
    method: wire.method,
    target: wire.target,
    headers,
    body: text && text.length > 262_144 ? `${text.slice(0, 262_144)}…(${text.length} characters)` : text,
  };
}

const normalize = (message) =>
  String(message ?? "")
    .replace(/"[^"]*"|'[^']*'/g, "…")
    .replace(/0x[0-9a-f]+|[0-9a-f]{16,}|\d+/gi, "#")
    .slice(0, 140);

/**
 * What makes two findings of a kind the same one, beside status and message: a foreign error body or a dropped
 * connection comes from a layer all operations share, an accepted forgery from the kind of forgery; a 5xx is per
 * operation (per request target for the odd ones), a slow answer per operation and mutation.
 */
function findingScope(kind, d, wire) {
  if (kind === "error-body" || kind === "crash") return [];
  if (kind === "accepted") return [d.label];
  if (kind === "slow" || kind === "stall") return [d.operationId, d.label];
  return [d.operationId, d.operationId === "(odd target)" ? `${wire.method} ${wire.target}` : ""];
}

const matches = (pattern, value) => pattern === undefined || (pattern instanceof RegExp ? pattern.test(String(value)) : pattern === value);

/** The allow-list entry a finding falls under, if any. */
/** GET operations that read a catalogue the same for every project (borrow products): another project reading it is no leak. */
const SAME_IN_EVERY_PROJECT = new Set(["getEvmBorrowProduct"]);

function allowedBy(allow, finding) {
  return allow.find(
    (a) =>
      matches(a.kind, finding.kind) &&
      matches(a.operation, finding.operationId) &&
      matches(a.label, finding.label) &&
      matches(a.status, finding.status) &&
      matches(a.message, finding.message),
  );
}

/** Order of the first pass: creates first (they fill the id pool), deletes last. */
function firstPassRank(op) {
  if (op.method === "DELETE") return 3;
  if (op.method === "POST") return op.pathTemplate.includes("{") ? 1 : 0;
  return 2;
}

/**
 * Runs the fuzzer against a started sandbox and returns what it saw.
 * @param {import("./fuzz-core.d.mts").FuzzOptions} o
 * @returns {Promise<import("./fuzz-core.d.mts").FuzzResult>}
 */
export async function runFuzz(o) {
  const origin = new URL(o.url);
  // The fuzzer floods and forges: it talks to a sandbox on this machine, never to another host.
  if (!/^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/.test(origin.hostname)) throw new Error(`the fuzzer runs against loopback only, not ${origin.hostname}`);
  const host = origin.host;
  const slowMs = o.slowMs ?? 1000;
  const deadline = Date.now() + (o.seconds ?? 60) * 1000;
  const rng = seededRandom(o.seed);
  const nonce = () => rng.hex(16);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sink = await startSink();
  const pool = createPool(rng);
  const sessions = [];
  const maker = createRequestMaker({ validateRequest: o.validateRequest, pruneRecursion: o.pruneRecursion, rng, pool, sinkUrl: sink.url, sessions });
  const mutate = createMutator({ rng, pool });
  const main = await makeSigner(o.credentials, nonce);
  const started = Date.now();

  /** The sandbox's own API (not counted): a second project, end users' sessions. */
  async function admin(method, path, body, signer = main) {
    const headers = { Host: host, "Content-Type": "application/json", Authorization: `Bearer ${await signer.bearer({ method, host, path })}` };
    const res = await sendRaw(agent, origin, { method, target: path, headers, body: JSON.stringify(body ?? {}) });
    return res.status && res.status < 300 ? JSON.parse(res.text) : undefined;
  }
  const otherCredentials = o.otherCredentials ?? (await admin("POST", "/_sandbox/projects", { name: "fuzz-other" }));
  if (!otherCredentials) throw new Error("could not create a second project through /_sandbox/projects");
  const other = await makeSigner(otherCredentials, nonce);
  const unknown = await makeSigner({ apiKeyId: "fuzz-unknown-key", apiKeySecret: ed25519Secret() }, nonce);

  async function openSession() {
    const userId = rng.pick(pool.candidates({ tag: "" }, "userId"));
    if (!userId || sessions.some((s) => s.userId === userId)) return;
    const session = await admin("POST", `/_sandbox/end-users/${encodeURIComponent(userId)}/token`, {});
    if (session) sessions.push({ ...session, walletAuth: await makeEndUserWalletSigner(session.walletSecret, nonce) });
  }

  const byStatus = new Map();
  const answered = new Set(); // operations answered before
  const byOperation = new Map();
  const findings = new Map();
  let sent = 0;
  let stopped;
  /** The last exchanges, newest last: a stall reported a little later is matched to its request here. */
  const recent = [];
  const RECENT_KEPT = 64;

  /** The draft as bytes on the wire, signed; `notes` name the tokens for the reproduction. */
  async function toWire(d, op) {
    const headers = { Host: host };
    const notes = {};
    for (const [k, v] of Object.entries(d.headers ?? {})) {
      if (k.toLowerCase() === "host") headers.Host = v;
      else headers[k] = v;
    }
    const signHost = headers.Host;
    const path = d.path;
    const target = `${path}${d.query ?? ""}`;
    let bytes;
    let hashed;
    if (d.body?.json !== undefined) {
      bytes = JSON.stringify(d.body.json);
      hashed = d.body.json;
    } else if (d.body?.raw !== undefined) {
      bytes = d.body.raw;
      hashed = parseJson(Buffer.isBuffer(bytes) ? bytes.toString("utf8") : bytes);
    }
    if (bytes !== undefined && d.contentType !== null) headers["Content-Type"] = d.contentType ?? "application/json";
    // Always framed by length: Node sends a GET's body unframed otherwise, which the server reads as a second request.
    if (bytes !== undefined) headers["Content-Length"] = String(Buffer.byteLength(bytes));
    const t = { method: d.method, host: signHost, path: new URL(path, "http://x").pathname };
    const now = Math.floor(Date.now() / 1000);
    const bearer = await bearerFor(d, t, now);
    if (bearer !== undefined) {
      headers.Authorization = bearer.value;
      notes.authorization = bearer.note;
    }
    const wallet = await walletFor(d, t, now, hashed, op);
    if (wallet !== undefined) {
      headers["X-Wallet-Auth"] = wallet.value;
      notes["x-wallet-auth"] = wallet.note;
    }
    return { method: d.method, target, headers, body: bytes, notes };
  }

  async function bearerFor(d, t, now) {
    const mode = d.auth?.bearer ?? "api";
    const fresh = (signer, extra = {}) => signer.bearer({ ...t, ...extra });
    const note = (what) => `Bearer <${what} for ${t.method} ${t.host}${t.path}>`;
    switch (mode) {
      case "none":
      case "missing":
        return undefined;
      case "api":
        return { value: `Bearer ${await fresh(main)}`, note: note("a fresh token of the default project") };
      case "other":
        return { value: `Bearer ${await fresh(other)}`, note: note("a fresh token of the other project") };
      case "endUser":
        return { value: `Bearer ${d.session.accessToken}`, note: `Bearer <the access token of end user ${d.session.userId}>` };
      case "alg-none":
        return { value: `Bearer ${main.unsigned(t)}`, note: note("an alg none token") };
      case "hs256-public-key":
        return { value: `Bearer ${await main.publicKeyHmac(t)}`, note: note("an HS256 token keyed with the API key's public key PEM") };
      case "sub-not-kid":
        return { value: `Bearer ${await fresh(main, { claims: { sub: other.apiKeyId } })}`, note: note("a token whose sub is another key") };
      case "kid-of-other-project":
        return {
          value: `Bearer ${await fresh(main, { header: { kid: other.apiKeyId }, claims: { sub: other.apiKeyId } })}`,
          note: note("a token naming the other project's key, signed with this one"),
        };
      case "uris-method":
        return { value: `Bearer ${await fresh(main, { method: t.method === "GET" ? "POST" : "GET" })}`, note: note("a token for another method") };
      case "uris-host":
        return { value: `Bearer ${await fresh(main, { host: "api.cdp.coinbase.com" })}`, note: note("a token for another host") };
      case "uris-path":
        return { value: `Bearer ${await fresh(main, { path: `${t.path}/x` })}`, note: note("a token for another path") };
      case "expired":
        return { value: `Bearer ${await fresh(main, { times: { iat: now - 600, nbf: now - 600, exp: now - 480 } })}`, note: note("an expired token") };
      case "lifetime-300s":
        return { value: `Bearer ${await fresh(main, { times: { exp: now + 300 } })}`, note: note("a token living 300 s") };
      case "future-iat":
        return {
          value: `Bearer ${await fresh(main, { times: { nbf: now, iat: now + 86300, exp: now + 86400 } })}`,
          note: note("a token with nbf=now, iat=now+86300, exp=now+86400"),
        };
      case "old-nbf":
        return {
          value: `Bearer ${await fresh(main, { times: { nbf: now - 1000, iat: now, exp: now + 60 } })}`,
          note: note("a token with nbf=now-1000, iat=now, exp=now+60"),
        };
      case "no-exp":
        return { value: `Bearer ${await fresh(main, { times: { exp: undefined } })}`, note: note("a token without exp") };
      case "string-exp":
        return { value: `Bearer ${await fresh(main, { times: { exp: String(now + 60) } })}`, note: note("a token whose exp is a string") };
      case "wrong-iss":
        return { value: `Bearer ${await fresh(main, { claims: { iss: "coinbase-cloud" } })}`, note: note("a token with iss coinbase-cloud") };
      case "inherited-kid": {
        const kid = rng.pick(INHERITED);
        return { value: `Bearer ${await fresh(main, { header: { kid }, claims: { sub: kid } })}`, note: note(`a token with kid and sub ${kid}`) };
      }
      case "unknown-key":
        return { value: `Bearer ${await fresh(unknown)}`, note: note("a token of a key the sandbox does not know") };
      case "garbage": {
        const value = rng.pick(["Bearer a.b.c", "Bearer eyJ.eyJ.", `Bearer ${"x".repeat(5000)}`, "Bearer W10.W10.", "Bearer ...", "Bearer e30.e30.e30"]);
        return { value, note: abbreviate(value, 100) };
      }
      case "empty-bearer":
        return { value: "Bearer ", note: "Bearer " };
      case "basic-scheme":
        return { value: "Basic dXNlcjpwYXNz", note: "Basic dXNlcjpwYXNz" };
      default:
        throw new Error(`unknown bearer mode ${mode}`);
    }
  }

  async function walletFor(d, t, now, body, op) {
    const mode = d.auth?.wallet ?? "none";
    const note = (what) => `<${what} for ${t.method} ${t.host}${t.path}>`;
    const opts = { ...t, body, withReqHash: d.withReqHash };
    switch (mode) {
      case "none":
      case "missing":
        return undefined;
      case "api":
        return { value: await main.walletAuth(opts), note: note("a fresh wallet token of the default project") };
      case "endUser":
        return { value: await d.session.walletAuth(opts), note: note(`a wallet token of end user ${d.session.userId}'s Temporary Wallet Secret`) };
      case "garbage":
        return { value: "x.y.z", note: "x.y.z" };
      case "empty":
        return { value: "", note: "" };
      case "uris-path":
        return { value: await main.walletAuth({ ...opts, path: `${t.path}/x` }), note: note("a wallet token for another path") };
      case "other-project":
        return { value: await other.walletAuth(opts), note: note("a wallet token signed with the other project's wallet secret") };
      case "expired":
        return { value: await main.walletAuth({ ...opts, now: now - 300 }), note: note("a wallet token issued 300 s ago") };
      case "other-body": {
        const hasBody = body && typeof body === "object" && Object.keys(body).length > 0 && op;
        const value = await main.walletAuth({ ...opts, body: hasBody ? { ...body, fuzzOther: 1 } : { fuzzOther: 1 } });
        return { value, note: note("a wallet token whose reqHash covers another body") };
      }
      case "alg-none": {
        const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
        return {
          value: `${b64({ alg: "none", typ: "JWT" })}.${b64({ uris: [`${t.method} ${t.host}${t.path}`], iat: now, nbf: now, jti: nonce() })}.`,
          note: note("an alg none wallet token"),
        };
      }
      default:
        throw new Error(`unknown wallet mode ${mode}`);
    }
  }

  function record(kind, d, wire, res, message, index) {
    const finding = { kind, operationId: d.operationId, label: d.label, status: res.status ?? 0, message, ms: Math.round(res.ms ?? 0), index };
    const key = [kind, finding.status, normalize(message), ...findingScope(kind, d, wire)].join("|");
    const seen = findings.get(key);
    if (seen) {
      seen.count++;
      return;
    }
    finding.count = 1;
    finding.repro = curlOf(origin, wire, wire.notes);
    finding.request = requestRecord(wire);
    const allowed = allowedBy(o.allow ?? [], finding);
    if (allowed) finding.allowedBy = allowed.id;
    findings.set(key, finding);
    if (!allowed) o.log?.(`finding #${findings.size}: [${kind}] ${d.operationId} ${d.label} → ${finding.status}: ${message}`);
  }

  function count(d, res) {
    const status = res.status ?? (res.clientError ? "refused-by-client" : "no answer");
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    const perOp = byOperation.get(d.operationId) ?? new Map();
    perOp.set(status, (perOp.get(status) ?? 0) + 1);
    byOperation.set(d.operationId, perOp);
  }

  /** Sends one draft, counts and checks the answer; returns it with the wire request. */
  async function exchange(d, op, index) {
    const wire = await toWire(d, op);
    const res = await sendRaw(agent, origin, wire);
    sent++;
    recent.push({ d, wire, index, name: `${wire.method} ${wire.target}`.slice(0, 600) });
    if (recent.length > RECENT_KEPT) recent.shift();
    count(d, res);
    if (res.clientError) return { wire, res };
    if (res.error) {
      const gone = o.alive?.();
      record("crash", d, wire, res, gone ? `${res.error}; the sandbox is gone: ${gone}` : res.error, index);
      if (gone) stopped = gone;
      return { wire, res };
    }
    // An operation's first answer compiles its schemas (the request's, and with --validate-responses the answer's too).
    const limit = answered.has(d.operationId) ? slowMs : slowMs * FIRST_USE_FACTOR;
    answered.add(d.operationId);
    if (res.ms > limit) record("slow", d, wire, res, `answered in ${Math.round(res.ms)} ms (limit ${limit} ms)`, index);
    const body = parseJson(res.text);
    if (res.status >= 500) record("5xx", d, wire, res, body?.errorMessage ?? abbreviate(res.text, 300), index);
    const ownBody = declaresOwnBody(op, res.status) && d.operationId === op?.operationId && wire.method === op.method;
    if (res.status >= 400 && !ownBody && !isPlatformError(body) && !(wire.target.startsWith("/rpc/") && isJsonRpcError(body))) {
      record("error-body", d, wire, res, `not the platform's error body: ${abbreviate(res.text || "(empty)", 200)}`, index);
    }
    if (wire.target.startsWith("/rpc/") && res.status === 200) {
      const problem = rpcProblem(body, d.body?.json);
      if (problem) record("rpc-internal", d, wire, res, problem, index);
    }
    if (d.expect === "refused" && res.status < 300 && !(d.auth?.bearer === "missing" && op?.security.flat().includes("unauthenticated"))) {
      record("accepted", d, wire, res, `${d.label} was answered ${res.status}; it must be refused`, index);
    }
    return { wire, res, body };
  }

  /** Follow-ups of a 2xx valid answer: wallet-token replay, another project reading the record. */
  async function followUps(op, d, wire, res, body, index) {
    const lastParam = /\{[^}]+\}$/.test(op.pathTemplate) ? decodeURIComponent(d.path.split("/").pop()) : undefined;
    if (op.walletAuth === "required" && d.auth.bearer === "api" && wire.headers["X-Wallet-Auth"] && rng.chance(0.05)) {
      const now = Math.floor(Date.now() / 1000);
      const replay = { ...d, label: "wallet:replay", expect: "refused" };
      const t = { method: d.method, host: wire.headers.Host, path: new URL(d.path, "http://x").pathname };
      const headers = { ...wire.headers, Authorization: (await bearerFor(replay, t, now)).value };
      const again = { ...wire, headers, notes: { ...wire.notes, "x-wallet-auth": "<the wallet token of the request before, sent again>" } };
      const r = await sendRaw(agent, origin, again);
      sent++;
      count(replay, r);
      if (r.status && r.status < 300) record("accepted", replay, again, r, `a replayed X-Wallet-Auth (same jti) was answered ${r.status}`, index);
    }
    const isolated =
      op.method === "GET" &&
      op.security.flat().includes("apiKeyAuth") &&
      !op.security.flat().includes("unauthenticated") &&
      !SAME_IN_EVERY_PROJECT.has(op.operationId);
    if (isolated && lastParam && !op.pathTemplate.includes("{network}") && res.text.includes(lastParam) && rng.chance(0.15)) {
      const probe = { ...d, label: "isolation:other-project", auth: { bearer: "other", wallet: "none" } };
      const { res: r } = await exchange(probe, op, index);
      if (r.status && r.status < 300 && r.text.includes(lastParam)) {
        record("leak", probe, await toWire(probe, op), r, `the other project's key read ${lastParam} (${r.status})`, index);
      }
    }
    if (res.status < 300 && body) pool.harvest(op, body);
  }

  /** The project's client API key: the node's token. */
  async function clientKey() {
    const path = "/apikeys/v1/tokens/active";
    const headers = { Host: host, Authorization: `Bearer ${await main.bearer({ method: "GET", host, path })}` };
    const res = await sendRaw(agent, origin, { method: "GET", target: path, headers });
    const id = parseJson(res.text ?? "")?.id;
    if (!id) throw new Error(`could not read the client API key: ${res.status} ${res.text}`);
    return id;
  }

  /**
   * The node's WebSockets, one EVM and one Solana socket kept open: each round sends one message and waits for
   * its answer (by id) if one is due. A socket the sandbox closes, or an answer that does not come in time, is a
   * crash; an internal error a finding like the HTTP node's.
   */
  function createSocketFuzz() {
    const open = {};
    let nextId = 1;
    const connect = (chain) => {
      const network = chain === "evm" ? "base-sepolia" : "solana-devnet";
      const ws = new WebSocket(`ws://${host}/rpc/v1/${network}/${nodeToken}`);
      const state = { ws, waiting: new Map(), closed: undefined, ready: new Promise((resolve) => ws.once("open", resolve).once("error", resolve)) };
      ws.on("message", (data) => {
        const reply = parseJson(data.toString());
        const waiter = reply && typeof reply === "object" && !Array.isArray(reply) ? state.waiting.get(reply.id) : undefined;
        if (waiter) waiter(reply);
      });
      ws.on("error", () => undefined);
      ws.on("close", (code, reason) => {
        state.closed = `closed by the sandbox: ${code} ${reason.toString()}`;
        for (const waiter of state.waiting.values()) waiter(undefined);
      });
      open[chain] = state;
      return state;
    };
    return {
      async round(index) {
        const chain = rng.chance(0.5) ? "evm" : "solana";
        const state = open[chain] && !open[chain].closed ? open[chain] : connect(chain);
        await state.ready;
        const id = nextId++;
        const m = node.socketMessage(chain, id);
        const d = { operationId: `ws:${chain}`, label: m.label };
        const wire = {
          method: "WS",
          target: `/rpc/v1/${chain === "evm" ? "base-sepolia" : "solana-devnet"}/<node token>`,
          headers: {},
          notes: {},
          body: m.data,
        };
        const started = performance.now();
        const answer = m.answered
          ? new Promise((resolve) => {
              state.waiting.set(id, resolve);
              setTimeout(() => resolve("timeout"), TIMEOUT_MS).unref();
            })
          : undefined;
        if (state.ws.readyState === WebSocket.OPEN) state.ws.send(m.data);
        const reply = await answer;
        state.waiting.delete(id);
        sent++;
        const res = { status: 200, ms: performance.now() - started };
        count(d, res);
        // A message over the socket's size limit closes it, as the node documents: that close is the answer.
        const tooLarge = typeof m.data === "string" && m.data.length > 65_536;
        if (state.closed && !tooLarge) record("crash", d, wire, res, state.closed, index);
        else if (reply === "timeout") record("crash", d, wire, res, `no answer in ${TIMEOUT_MS / 1000} s`, index);
        else if (reply) {
          const problem = rpcProblem(reply, parseJson(m.data));
          if (problem) record("rpc-internal", d, wire, res, problem, index);
          if (res.ms > slowMs) record("slow", d, wire, res, `answered in ${Math.round(res.ms)} ms (limit ${slowMs} ms)`, index);
        }
      },
      close() {
        for (const state of Object.values(open)) state.ws.terminate();
      },
    };
  }

  /** Stalls the caller has seen since the last call, each a finding under the request it names. */
  function takeStalls() {
    for (const stall of o.takeStalls?.() ?? []) {
      const collected = stall.gcMs ? ` (${stall.gcMs} ms of it the garbage collector's pauses)` : "";
      const message = `held the sandbox's event loop ${stall.ms} ms${collected}`;
      const held = recent.findLast((r) => stall.requests.includes(r.name));
      if (held) record("stall", held.d, held.wire, { status: 0, ms: stall.ms }, message, held.index);
      else {
        // No request of the fuzzer in flight: the sandbox's own work (a delivery, a timer) held the loop.
        const own = { operationId: "(no request)", label: stall.requests.length ? stall.requests.join(", ") : "-" };
        const wire = { method: "-", target: "-", headers: {}, notes: {} };
        record("stall", own, wire, { status: 0, ms: stall.ms }, message, sent);
      }
    }
  }

  const operations = o.operations;
  const firstPass = [...operations].sort((a, b) => firstPassRank(a) - firstPassRank(b));
  const nodeShare = o.nodeShare ?? 0;
  const node = nodeShare > 0 ? createNodeFuzzer({ rng, methods: o.nodeMethods }) : undefined;
  const nodeToken = node ? await clientKey() : undefined;
  const sockets = node ? createSocketFuzz() : undefined;
  try {
    for (let i = 0; sent < o.requests && Date.now() < deadline && !stopped; i++) {
      if (sessions.length < 2 && i % 200 === firstPass.length) await openSession();
      if (node && i >= firstPass.length && rng.chance(nodeShare)) {
        await exchange(node.draft(nodeToken), undefined, i);
        if (o.socketEvery && i % o.socketEvery === 0) await sockets.round(i);
        takeStalls();
        if (o.progressEvery && sent % o.progressEvery === 0) o.log?.(`… ${sent} requests, ${findings.size} distinct findings`);
        continue;
      }
      const op = i < firstPass.length ? firstPass[i] : rng.pick(operations);
      const valid = maker.valid(op);
      const d = i >= firstPass.length && rng.chance(0.6) ? mutate(op, valid) : valid;
      const { wire, res, body } = await exchange(d, op, i);
      if (d.label === "valid" && res.status && res.status < 300) await followUps(op, d, wire, res, body, i);
      takeStalls();
      if (o.progressEvery && sent % o.progressEvery === 0) o.log?.(`… ${sent} requests, ${findings.size} distinct findings`);
    }
    // The monitor's line about the last request may still be on its way through the pipe.
    if (o.takeStalls) await new Promise((resolve) => setTimeout(resolve, 200));
    takeStalls();
  } finally {
    sockets?.close();
    agent.destroy();
    await sink.close();
  }
  return { seed: o.seed, sent, elapsedMs: Date.now() - started, byStatus, byOperation, findings: [...findings.values()], stopped };
}

function ed25519Secret() {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  return Buffer.concat([Buffer.from(jwk.d, "base64url"), Buffer.from(jwk.x, "base64url")]).toString("base64");
}

/** Counts by status and by operation, then every distinct finding with its reproduction. */
export function formatReport(result, { operations = true } = {}) {
  const lines = [];
  const seconds = result.elapsedMs / 1000;
  lines.push(`fuzz: seed=${result.seed} ${result.sent} requests in ${seconds.toFixed(1)} s (${Math.round(result.sent / seconds)} req/s)`);
  if (result.stopped) lines.push(`stopped early: ${result.stopped}`);
  const statuses = [...result.byStatus.entries()].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  lines.push(`by status: ${statuses.map(([s, n]) => `${s}: ${n}`).join(", ")}`);
  if (operations) {
    lines.push("by operation (status: count):");
    for (const [op, perOp] of [...result.byOperation.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      const entries = [...perOp.entries()].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      lines.push(`  ${op.padEnd(44)} ${entries.map(([s, n]) => `${s}:${n}`).join(" ")}`);
    }
    const never = [...result.byOperation.entries()].filter(([, perOp]) => ![...perOp.keys()].some((s) => typeof s === "number" && s < 300)).map(([op]) => op);
    if (never.length) lines.push(`operations never answered 2xx in this run (${never.length}): ${never.join(", ")}`);
  }
  const open = result.findings.filter((f) => !f.allowedBy);
  const allowed = result.findings.filter((f) => f.allowedBy);
  lines.push(`findings: ${open.length} open, ${allowed.length} allowed (known, listed with a reason)`);
  for (const f of [...open, ...allowed]) {
    lines.push(
      `- [${f.kind}] ${f.operationId} ${f.label} → ${f.status || "no answer"} ×${f.count}${f.allowedBy ? ` (allowed: ${f.allowedBy})` : ""} (request #${f.index}, ${f.ms} ms)`,
    );
    lines.push(`    ${abbreviate(f.message, 400)}`);
    lines.push(`    ${f.repro}`);
  }
  return lines.join("\n");
}
