/**
 * The ways the fuzzer spoils a valid request: bodies with fields missing,
 * added, mistyped, null, empty, huge, deeply nested or in odd unicode; path
 * segments that do not decode or name inherited members; bad query values;
 * bad and forged headers and tokens; other methods; odd request targets.
 * Each takes the valid draft of an operation and returns a spoiled copy with
 * a label saying what was done (`body:wrong-type`, `path:bad-segment`, …).
 * Drafts with `expect: "refused"` are attacks: a 2xx answer is a finding.
 */

/** Path segments that must never reach a handler as an id, nor crash the router. */
export const BAD_SEGMENTS = [
  "%",
  "%ZZ",
  "%E0%A4%A",
  "%00",
  "%2F",
  "%2e%2e",
  "..",
  ".",
  "%2E",
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "__defineGetter__",
  "isPrototypeOf",
  "%C0%AF",
  "%ED%A0%80",
  "%F4%90%80%80",
  "%FF",
  "%25",
  "%20",
  "+",
  "%F0%9F%92%A9",
  "null",
  "undefined",
  "NaN",
  "-1",
  "0",
  "1e309",
  "[object%20Object]",
  `0x${"0".repeat(40)}`,
  `0x${"f".repeat(40)}`,
  "a".repeat(5000),
  "%u0041",
  "%%",
  "%252e",
  "~",
  "'",
  '"',
  ";",
  "$",
];

/** Strings in odd unicode: lone surrogates, direction overrides, invisible and combining characters, NUL. */
const ODD_STRINGS = [
  "\ud800",
  "\udfff",
  "a\ud800b",
  "\u202e\u202dabc",
  "\u200b\u200c\u200d\ufeff",
  "\u0000",
  "a\u0000b",
  "\uffff\ufffe",
  "e\u0301\u0301\u0301\u0301\u0301",
  "\u2028\u2029",
  "👨‍👩‍👧‍👦",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "İıſK",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  "${jndi:ldap://127.0.0.1/x}",
  "../../etc/passwd",
  "\\",
  '"',
  "%s%n%x",
  "\u00a0",
  "٠١٢٣",
  "\r\n\r\n",
  "",
  " ",
];

/** Long inputs of the shapes that make backtracking regular expressions slow. */
const BACKTRACKING_STRINGS = [
  `${"a".repeat(50_000)}!`,
  `0x${"0".repeat(100_000)}g`,
  `${" ".repeat(50_000)}x`,
  "a@".repeat(20_000),
  `${"-".repeat(50_000)}a`,
  `${"1".repeat(50_000)}a`,
  ".".repeat(50_000),
  `${"a".repeat(64)}!`,
  `${"ab".repeat(25_000)}c`,
  `${"0x".repeat(25_000)}`,
];

const WRONG_VALUES = [0, -1, 1.5, 1e308, -0, "", "0", "true", true, false, [], [1, "a"], {}, { a: 1 }, null, "x".repeat(300)];
const INHERITED = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"];

const clone = (v) => (v === undefined ? undefined : structuredClone(v));

/** Every object inside `value` with its path (at most `limit`), the root first. */
function objectsIn(value, limit = 200) {
  const out = [];
  const visit = (node) => {
    if (out.length >= limit || node === null || typeof node !== "object") return;
    if (!Array.isArray(node)) out.push(node);
    for (const child of Object.values(node)) visit(child);
  };
  visit(value);
  return out;
}

/** A random object of the body with at least one key, and one of its keys; undefined when the body has none. */
function someField(rng, body) {
  const withKeys = objectsIn(body).filter((o) => Object.keys(o).length > 0);
  if (!withKeys.length) return undefined;
  const obj = rng.pick(withKeys);
  return { obj, key: rng.pick(Object.keys(obj)) };
}

/** A place to put a value: an existing field (or, in an empty body, a new one). */
function slot(rng, body) {
  const field = someField(rng, body);
  if (field) return field;
  const obj = objectsIn(body)[0];
  return obj ? { obj, key: "fuzz" } : undefined;
}

/** The body as raw JSON text with the value at a random field replaced by `text`. */
function withRawField(rng, json, text) {
  const body = clone(json);
  const place = body && typeof body === "object" ? slot(rng, body) : undefined;
  if (!place) return text;
  place.obj[place.key] = "__FUZZ_RAW__";
  return JSON.stringify(body).replace('"__FUZZ_RAW__"', () => text);
}

const nested = (depth, rng) => (rng.chance(0.5) ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);

/** body:* mutations; each returns the new body ({ json } or { raw }) and may set the content type or turn the reqHash off. */
const BODY = {
  "missing-field": (rng, json) => {
    const body = clone(json);
    const field = someField(rng, body);
    if (field) delete field.obj[field.key];
    return { body: { json: body ?? {} } };
  },
  "extra-field": (rng, json) => {
    const body = clone(json) ?? {};
    const obj = rng.pick(objectsIn(body)) ?? body;
    obj[rng.pick(["fuzzExtra", "isAdmin", "projectId", ...INHERITED])] = rng.pick(WRONG_VALUES);
    return { body: { json: body } };
  },
  "wrong-type": (rng, json) => {
    const body = clone(json);
    const place = slot(rng, body);
    if (!place) return { body: { json: rng.pick(WRONG_VALUES) } };
    place.obj[place.key] = rng.pick(WRONG_VALUES);
    return { body: { json: body } };
  },
  "null-field": (rng, json) => {
    const body = clone(json);
    const place = slot(rng, body);
    if (place) place.obj[place.key] = null;
    return { body: { json: body ?? null } };
  },
  "null-body": () => ({ body: { raw: "null" } }),
  "empty-object": () => ({ body: { json: {} } }),
  "empty-raw": () => ({ body: { raw: "" } }),
  "array-body": (rng, json) => ({ body: { json: rng.chance(0.5) ? [] : [json] } }),
  "scalar-body": (rng) => ({ body: { json: rng.pick(["text", 42, true, -1.5, ""]) } }),
  "huge-string": (rng, json) => ({ body: { raw: withRawField(rng, json, JSON.stringify("x".repeat(rng.pick([10_000, 100_000, 1_000_000, 4_000_000])))) } }),
  "backtracking-string": (rng, json) => {
    const body = clone(json);
    const place = slot(rng, body);
    if (!place) return { body: { json: rng.pick(BACKTRACKING_STRINGS) } };
    place.obj[place.key] = rng.pick(BACKTRACKING_STRINGS);
    return { body: { json: body } };
  },
  "deep-nesting": (rng, json) => ({
    body: { raw: withRawField(rng, json, nested(rng.pick([64, 500, 5_000, 50_000, 200_000]), rng)) },
    withReqHash: false,
  }),
  "odd-unicode": (rng, json) => {
    const body = clone(json);
    const place = slot(rng, body);
    const odd = rng.pick(ODD_STRINGS);
    if (!place) return { body: { json: odd } };
    if (rng.chance(0.3) && typeof place.obj[place.key] === "string") place.obj[place.key] += odd;
    else place.obj[place.key] = odd;
    if (rng.chance(0.2)) place.obj[odd || "\u0000"] = 1; // as a key, too
    return { body: { json: body } };
  },
  "inherited-keys": (rng, json) => {
    const key = rng.pick(INHERITED);
    const value = rng.pick(['{"polluted":true}', '{"prototype":{"polluted":true}}', "null", "1", '"x"', "[]"]);
    return { body: { raw: withRawField(rng, json, `{"${key}":${value}}`).replace(/^\{/, () => `{"${key}":${value},`) } };
  },
  "duplicate-keys": (rng, json) => {
    const text = JSON.stringify(json ?? {});
    const field = someField(rng, clone(json));
    return { body: { raw: field ? text.replace(/^\{/, `{${JSON.stringify(field.key)}:${JSON.stringify(rng.pick(WRONG_VALUES))},`) : text } };
  },
  "malformed-json": (rng, json) => {
    const text = JSON.stringify(json ?? {});
    const broken = [
      text.slice(0, Math.max(1, rng.int(text.length))),
      `${text},`,
      text.replace(/"/g, "'"),
      `${text} trailing`,
      "{NaN}",
      "{/*c*/}",
      "\u0000",
      `\ufeff${text}`,
    ];
    return { body: { raw: rng.pick(broken) } };
  },
  "invalid-utf8": (rng, json) => {
    const text = JSON.stringify(json ?? {});
    const at = text.indexOf('"') + 1;
    const bad = rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
    return { body: { raw: Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad), Buffer.from(text.slice(at))]) } };
  },
  "big-number": (rng, json) => ({
    body: { raw: withRawField(rng, json, rng.pick(["1e400", "-1e400", "9007199254740993", "1".repeat(400), "0.0000000000000000000000001", "-0"])) },
  }),
  "big-array": (rng, json) => ({
    body: {
      raw: withRawField(
        rng,
        json,
        `[${Array(rng.pick([1_000, 100_000]))
          .fill('"a"')
          .join(",")}]`,
      ),
    },
  }),
  "content-type": (rng) => ({
    contentType: rng.pick([
      null,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=utf-16",
      "application/xml",
      "*/*",
      "",
    ]),
  }),
  "huge-body": (rng, json) => ({ body: { raw: withRawField(rng, json, JSON.stringify("y".repeat(6 * 1024 * 1024))) } }),
};
const BODY_WEIGHTS = {
  "missing-field": 3,
  "extra-field": 2,
  "wrong-type": 3,
  "null-field": 2,
  "null-body": 1,
  "empty-object": 1,
  "empty-raw": 1,
  "array-body": 1,
  "scalar-body": 1,
  "huge-string": 1,
  "backtracking-string": 2,
  "deep-nesting": 1.5,
  "odd-unicode": 2,
  "inherited-keys": 2,
  "duplicate-keys": 0.5,
  "malformed-json": 1,
  "invalid-utf8": 0.5,
  "big-number": 1,
  "big-array": 0.3,
  "content-type": 1,
  "huge-body": 0.05,
};

/** Replaces the `index`-th path parameter's segment of `op` in `path` with `segment`. */
function replaceParam(op, path, index, segment) {
  const parts = path.split("/");
  const template = `/platform${op.pathTemplate}`.split("/");
  const positions = template.map((t, i) => (/^\{.+\}$/.test(t) ? i : -1)).filter((i) => i >= 0);
  if (!positions.length) return path;
  parts[positions[index % positions.length]] = segment;
  return parts.join("/");
}

const PATH = {
  "bad-segment": (rng, op, d) => ({ path: replaceParam(op, d.path, rng.int(8), rng.pick(BAD_SEGMENTS)) }),
  "foreign-id": (rng, op, d, pool) => ({ path: replaceParam(op, d.path, rng.int(8), encodeURIComponent(pool.any() ?? "fuzz")) }),
  "inherited-id": (rng, op, d) => ({ path: replaceParam(op, d.path, rng.int(8), rng.pick(INHERITED)) }),
  "trailing-slash": (_rng, _op, d) => ({ path: `${d.path}/` }),
  "double-slash": (_rng, _op, d) => ({ path: d.path.replace(/\/(?=[^/]*$)/, "//") }),
  "extra-segment": (rng, _op, d) => ({ path: `${d.path}/${rng.pick(BAD_SEGMENTS)}` }),
  "missing-segment": (_rng, _op, d) => ({ path: d.path.replace(/\/[^/]*$/, "") || "/platform" }),
  "upper-case": (_rng, _op, d) => ({ path: d.path.replace(/\/v2\/[a-z-]+/, (m) => m.toUpperCase()) }),
  "dot-segments": (_rng, _op, d) => ({ path: d.path.replace("/v2/", "/v2/x/../") }),
};

const QUERY = {
  "page-size": (rng) => `pageSize=${rng.pick(["-1", "0", "abc", "1e309", "99999999999999999999", "1.5", "", "%", "0x10"])}`,
  "page-token": (rng, pool) =>
    `pageToken=${rng.pick(["%", "%ZZ", "%E0%A4%A", "AAAA", "eyJ9", "__proto__", "constructor", "a".repeat(10_000), encodeURIComponent(pool.any() ?? "x"), "e30", "W10", "bnVsbA"])}`,
  "inherited-keys": (rng) => `${rng.pick(INHERITED)}=${rng.pick(["1", "x", ""])}&__proto__[polluted]=1`,
  repeated: (rng, _pool, op) => {
    const name = rng.pick(op.http.request?.query ?? [])?.name ?? "pageSize";
    return `${name}=1&${name}=2&${name}=`;
  },
  odd: (rng) => rng.pick(["%", "%ZZ", "a=%E0%A4%A", "=&&=", "a=b=c", "&&&", "a[]=1&a[b]=2", `q=${"%20".repeat(3000)}`]),
  "wrong-value": (rng, _pool, op) => {
    const name = rng.pick(op.http.request?.query ?? [])?.name ?? "limit";
    return `${name}=${encodeURIComponent(rng.pick(["", "-1", "true", "__proto__", "%", "\u0000", "x".repeat(5_000), "1e400"]))}`;
  },
};

/** Bearer attacks: each must be refused with 401 (`expect: "refused"`). */
const BEARER_ATTACKS = [
  "alg-none",
  "hs256-public-key",
  "sub-not-kid",
  "kid-of-other-project",
  "uris-method",
  "uris-host",
  "uris-path",
  "expired",
  "lifetime-300s",
  "future-iat",
  "old-nbf",
  "no-exp",
  "string-exp",
  "wrong-iss",
  "inherited-kid",
  "unknown-key",
  "missing",
  "garbage",
  "empty-bearer",
  "basic-scheme",
];
/** Wallet-token attacks on operations that require X-Wallet-Auth: each must be refused. */
const WALLET_ATTACKS = ["missing", "garbage", "uris-path", "other-project", "expired", "other-body", "alg-none", "empty"];

const HEADERS = {
  "idempotency-key": (rng) => ({
    "X-Idempotency-Key": rng.pick(["", "x".repeat(10_000), Buffer.from("ключ-🔑").toString("latin1"), "__proto__", "constructor", "%ZZ"]),
  }),
  host: (rng) => ({
    Host: rng.pick(["evil.example", "127.0.0.1:1", "[::1]:x", "localhost", "", Buffer.from("höst.example").toString("latin1"), "a".repeat(2_000)]),
  }),
  origin: (rng) => ({ Origin: rng.pick(["https://evil.example", "null", "%", "http://127.0.0.1"]) }),
  accept: (rng) => ({ Accept: rng.pick(["application/xml", "text/html", "*/*;q=0", "%"]) }),
  "content-encoding": (rng) => ({ "Content-Encoding": rng.pick(["gzip", "br", "deflate", "x-unknown", "gzip, gzip", "identity"]) }),
  "many-headers": () => Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`X-Fuzz-${i}`, "v"])),
  "oversize-header": () => ({ "X-Fuzz": "h".repeat(17_000) }),
  "correlation-id": (rng) => ({ "X-Correlation-Id": rng.pick(["../../x", "%", "x".repeat(5_000)]) }),
};
const HEADER_WEIGHTS = {
  "idempotency-key": 2,
  host: 2,
  origin: 1,
  accept: 1,
  "content-encoding": 1.5,
  "many-headers": 0.5,
  "oversize-header": 0.3,
  "correlation-id": 0.5,
};

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

/** Request targets beside the operations: prefixes, the node, the admin API, with odd segments. */
const ODD_TARGETS = [
  "/platform",
  "/platform/",
  "/platform/v2",
  "/platform/%",
  "/platform/v2/%ZZ",
  "/platform/v2/evm/accounts/%E0%A4%A/sign",
  "/platform/v2/../_sandbox/health",
  "/platform//v2/evm/accounts",
  "/PLATFORM/v2/evm/accounts",
  "/platform/v2/evm/accounts?%",
  "/platform/__proto__",
  "/platform/v2/constructor",
  "/platform/v2/evm/accounts/__proto__/sign/message",
  "/platform/v2/evm/accounts/constructor",
  "/platform/v2/evm/accounts/toString",
  `/platform/v2/evm/accounts/${"a".repeat(10_000)}`,
  "/_sandbox/%",
  "/_sandbox/__proto__",
  "/_sandbox/projects/constructor",
  "/_sandbox/projects/%ZZ",
  "/%",
  "/%ZZ",
  "/__proto__",
  "/rpc/v1/%/x",
  "/rpc/v1/base-sepolia/%ZZ",
  "/rpc/v1/__proto__/constructor",
  "/apikeys/v1/tokens/active",
  "/platform/v2/evm/accounts/%2e%2e/%2e%2e/_sandbox/reset",
];

/**
 * @param {{ rng: ReturnType<import("./fuzz-random.mjs").seededRandom>, pool: { any(): string | undefined } }} deps
 */
export function createMutator({ rng, pool }) {
  function body(_op, d) {
    if (!d.body) return { ...d, label: "body:unexpected", body: { json: { fuzz: rng.pick(WRONG_VALUES) } } };
    const kind = rng.weighted(BODY_WEIGHTS);
    const result = BODY[kind](rng, d.body.json);
    return { ...d, ...result, body: result.body ?? d.body, label: `body:${kind}` };
  }

  function path(op, d) {
    const hasParams = op.pathTemplate.includes("{");
    const kinds = Object.keys(PATH).filter((k) => hasParams || !["bad-segment", "foreign-id", "inherited-id"].includes(k));
    const kind = rng.pick(kinds);
    return { ...d, ...PATH[kind](rng, op, d, pool), label: `path:${kind}` };
  }

  function query(op, d) {
    const kind = rng.pick(Object.keys(QUERY));
    const extra = QUERY[kind](rng, pool, op);
    const base = rng.chance(0.5) ? d.query : "";
    return { ...d, query: base ? `${base}&${extra}` : `?${extra}`, label: `query:${kind}` };
  }

  function header(_op, d) {
    const kind = rng.weighted(HEADER_WEIGHTS);
    return { ...d, headers: { ...d.headers, ...HEADERS[kind](rng) }, label: `header:${kind}` };
  }

  function bearerAttack(_op, d) {
    const attack = rng.pick(BEARER_ATTACKS);
    return { ...d, auth: { ...d.auth, bearer: attack }, label: `auth:${attack}`, expect: "refused" };
  }

  function walletAttack(op, d) {
    if (op.walletAuth !== "required" || d.auth.bearer !== "api") return bearerAttack(op, d);
    const attack = rng.pick(WALLET_ATTACKS);
    return { ...d, auth: { ...d.auth, wallet: attack }, label: `wallet:${attack}`, expect: "refused" };
  }

  function method(op, d) {
    return { ...d, method: rng.pick(METHODS.filter((m) => m !== op.method)), label: "method:other" };
  }

  function target(_op, d) {
    const raw = rng.pick(ODD_TARGETS);
    const q = raw.indexOf("?");
    return {
      ...d,
      operationId: "(odd target)",
      path: q < 0 ? raw : raw.slice(0, q),
      query: q < 0 ? "" : raw.slice(q),
      method: rng.pick(METHODS),
      label: "target:odd",
    };
  }

  const STRATEGIES = { body, path, query, header, bearerAttack, walletAttack, method, target };
  const WEIGHTS = { body: 40, path: 15, query: 8, header: 10, bearerAttack: 10, walletAttack: 8, method: 4, target: 5 };

  /** A spoiled copy of the valid draft `d` of `op`. */
  return function mutate(op, d) {
    const strategy = rng.weighted(WEIGHTS);
    return STRATEGIES[strategy](op, d);
  };
}
